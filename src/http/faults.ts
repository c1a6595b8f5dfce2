import type { RequestHandler } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeContext } from '../context.js';
import { claimedClientId, isOwnPath } from './observe.js';
import { problem, sendProblem } from './problem.js';

const CODES: Record<number, string> = { 429: 'rate_limited', 503: 'service_unavailable' };

/** Injected faults of the requesting client's tenant: a delay, an error status, or a dropped connection. */
export function faultInjector(ctx: FakeContext): RequestHandler {
  return async (req, res, next) => {
    if (isOwnPath(req.path) || !ctx.tenants.hasFaults()) return next();
    const clientId = claimedClientId(req);
    if (clientId === undefined) return next();
    const fault = ctx.tenants.find(clientId)?.faults.take(req.method, req.path);
    if (!fault) return next();
    res.locals.faultId = fault.id;
    if (fault.latency_ms !== null) await sleep(fault.latency_ms);
    if (fault.drop) {
      req.socket.destroy();
      return;
    }
    if (fault.status === null) return next();
    const code = CODES[fault.status] ?? 'injected_fault';
    const headers: Record<string, string> = fault.retry_after_seconds === null ? {} : { 'Retry-After': String(fault.retry_after_seconds) };
    sendProblem(res, problem(fault.status, code, `Injected through the control plane (${fault.id}).`), headers);
  };
}
