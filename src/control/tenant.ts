import type { Request } from 'express';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';

/** The client a control call names: `X-Client-Id`, else `?client_id=`. */
export function namedClientId(req: Request): string | undefined {
  return req.get('x-client-id') ?? (typeof req.query.client_id === 'string' ? req.query.client_id : undefined);
}

/** The tenant a control call acts on: the one it names, else the default client's. */
export function controlTenant(req: Request, ctx: FakeContext): Tenant {
  return ctx.tenants.get(namedClientId(req) ?? ctx.tenants.defaultClientId);
}
