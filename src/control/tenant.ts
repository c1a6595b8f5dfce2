import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';

/** What a control call carries to name a tenant: `X-Client-Id`, else `?client_id=`. */
export interface TenantNaming {
  header(name: string): string | undefined;
  readonly query: { client_id?: string };
}

export const namedClientId = (call: TenantNaming): string | undefined => call.header('x-client-id') ?? call.query.client_id;

/** The tenant a control call acts on: the one it names, else the default client's. */
export const controlTenant = (ctx: FakeContext, call: TenantNaming): Tenant =>
  ctx.tenants.get(namedClientId(call) ?? ctx.tenants.defaultClientId);
