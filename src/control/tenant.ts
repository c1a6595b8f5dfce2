import { DomainError } from '../api/errors.js';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';

/** What a control call carries to name a tenant: `X-Client-Id`, else `?client_id=`; and who makes it. */
export interface TenantNaming {
  header(name: string): string | undefined;
  readonly query: { client_id?: string };
  /** A partner's own token (scope `control`): the one tenant the call may act on. */
  readonly controlPartner: Tenant | undefined;
}

export const namedClientId = (call: TenantNaming): string | undefined =>
  call.header('x-client-id') ?? call.query.client_id;

const forbiddenTenant = (partner: Tenant, named: string): DomainError =>
  new DomainError(
    403,
    'forbidden_tenant',
    `This token is client "${partner.client.client_id}"'s: it acts on that tenant only, not on "${named.slice(0, 200)}". Drop X-Client-Id (and client_id), or name your own client.`,
  );

/** A partner's call may name its own tenant only, the operator's any: answers the client id to act on, if named. */
export function checkedClientId(
  call: Pick<TenantNaming, 'controlPartner'>,
  named: string | undefined,
): string | undefined {
  const partner = call.controlPartner;
  if (partner && named !== undefined && named !== partner.client.client_id) throw forbiddenTenant(partner, named);
  return partner ? partner.client.client_id : named;
}

/**
 * A partner's control request names no tenant but its own, wherever it names one (each `X-Client-Id`, each
 * `?client_id=`): checked by the guard before any operation runs, so none can slip, reading a request
 * by id included. The handlers check the names in paths, bodies and MCP tools' arguments themselves.
 */
export function confinePartner(partner: Tenant, named: readonly string[]): void {
  for (const name of named) checkedClientId({ controlPartner: partner }, name);
}

/**
 * The tenant a control call acts on: a partner's own; for the operator, the one it names, else the default client's.
 * The registry hands it out settled to its clock, as it does a request's tenant.
 */
export function controlTenant(ctx: Pick<FakeContext, 'tenants'>, call: TenantNaming): Tenant {
  return ctx.tenants.get(checkedClientId(call, namedClientId(call)) ?? ctx.tenants.defaultClientId);
}

/** Calls that reach beyond one tenant (new clients, scopes, every tenant at once) are the operator's alone. */
export function ensureOperator(call: Pick<TenantNaming, 'controlPartner'>, what: string): void {
  if (call.controlPartner) {
    throw new DomainError(
      403,
      'operator_only',
      `Only the operator (CONTROL_TOKEN) may ${what}; a partner's token acts on its own tenant.`,
    );
  }
}
