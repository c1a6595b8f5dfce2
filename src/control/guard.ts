import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { problem, sendProblem } from '../http/problem.js';

/** With CONTROL_TOKEN set, every /__control call but health needs `Authorization: Bearer <CONTROL_TOKEN>`. */
export function controlGuard(controlToken: string | undefined): RequestHandler {
  const expected = controlToken === undefined ? undefined : Buffer.from(`Bearer ${controlToken}`);
  return (req, res, next) => {
    if (!expected || req.path === '/health') return next();
    const sent = Buffer.from(req.get('authorization') ?? '');
    if (sent.length === expected.length && timingSafeEqual(sent, expected)) return next();
    sendProblem(res, problem(401, 'invalid_control_token', 'This server guards its control plane: send "Authorization: Bearer <CONTROL_TOKEN>".'), {
      'WWW-Authenticate': 'Bearer realm="control"',
    });
  };
}
