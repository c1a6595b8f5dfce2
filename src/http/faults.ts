import type { Request, Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError } from '../api/errors.js';
import type { Tenant } from '../domain/tenants.js';
import { stateOf } from './request-state.js';

const CODES: Record<number, string> = { 429: 'rate_limited', 503: 'service_unavailable' };

/**
 * A fault the tenant's control plane set for this request: a delay, then an error status or a dropped connection.
 * Only for a tenant the request proved to be (src/http/authenticate.ts).
 */
export async function injectFault(tenant: Tenant, req: Request, res: Response): Promise<'dropped' | 'none'> {
  if (tenant.faults.size === 0) return 'none';
  const fault = tenant.faults.take(req.method, req.path);
  if (!fault) return 'none';
  stateOf(req).faultId = fault.id;
  if (fault.latency_ms !== null) await sleep(fault.latency_ms);
  if (fault.drop) {
    res.destroy();
    return 'dropped';
  }
  if (fault.status === null) return 'none';
  const headers = fault.retry_after_seconds === null ? undefined : { 'Retry-After': String(fault.retry_after_seconds) };
  throw new DomainError(fault.status, CODES[fault.status] ?? 'injected_fault', `Injected through the control plane (${fault.id}).`, undefined, headers);
}
