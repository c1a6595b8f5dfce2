import type { Request } from 'express';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../store/tenants.js';

/** The tenant a control call acts on: `X-Client-Id`, else `?client_id=`, else the default client. */
export function controlTenant(req: Request, ctx: FakeContext): Tenant {
  const named = req.get('x-client-id') ?? (typeof req.query.client_id === 'string' ? req.query.client_id : undefined);
  return ctx.tenants.get(named ?? ctx.tenants.defaultClientId);
}
