import type { Request, Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError } from '../api/errors.js';
import type { Tenant } from '../domain/tenants.js';
import type { Fault, FaultPhase } from '../records/faults.js';
import { settle, stateOf } from './request-state.js';

const CODES: Record<number, string> = { 429: 'rate_limited', 503: 'service_unavailable' };

/** The fault the tenant's control plane set for this request at this phase, if any (only for a tenant it proved to be). */
export function takeFault(tenant: Tenant | undefined, req: Request, phase: FaultPhase): Fault | undefined {
  if (!tenant || tenant.faults.size === 0) return undefined;
  const fault = tenant.faults.take(req.method, req.path, phase);
  if (fault) stateOf(req).faultId = fault.id;
  return fault;
}

/**
 * A fault's effect: a delay, then an error status (thrown, for the error middleware) or a dropped connection. The
 * request's work goes on after a delay even when its client has left: a slow platform still applies what it received.
 */
export async function strike(fault: Fault, req: Request, res: Response): Promise<'dropped' | 'none'> {
  if (fault.latency_ms !== null) await sleep(fault.latency_ms);
  if (fault.drop) {
    res.destroy();
    settle(stateOf(req));
    return 'dropped';
  }
  if (fault.status === null) return 'none';
  const headers = fault.retry_after_seconds === null ? undefined : { 'Retry-After': String(fault.retry_after_seconds) };
  throw new DomainError(
    fault.status,
    CODES[fault.status] ?? 'injected_fault',
    `Injected through the control plane (${fault.id}).`,
    undefined,
    headers,
  );
}
