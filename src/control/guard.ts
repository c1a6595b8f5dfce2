import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { DomainError } from '../api/errors.js';

/** With CONTROL_TOKEN set, every /__control call but health needs `Authorization: Bearer <CONTROL_TOKEN>`. */
export function controlGuard(controlToken: string | undefined): RequestHandler {
  const expected = controlToken === undefined ? undefined : Buffer.from(`Bearer ${controlToken}`);
  return (req, _res, next) => {
    if (!expected || req.path === '/health') return next();
    const sent = Buffer.from(req.get('authorization') ?? '');
    if (sent.length === expected.length && timingSafeEqual(sent, expected)) return next();
    throw new DomainError(401, 'invalid_control_token', 'This server guards its control plane: send "Authorization: Bearer <CONTROL_TOKEN>".', undefined, {
      'WWW-Authenticate': 'Bearer realm="control"',
    });
  };
}
