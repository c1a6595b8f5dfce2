import type { FakeContext } from '../context.js';
import { clockView } from '../domain/clock.js';
import { createClient, listClients, resetTenants, updateClient } from '../domain/clients.js';
import { listDocumentLinks } from '../domain/documents.js';
import { replaceWorld } from '../domain/world.js';
import { created, noContent, ok, type OperationHandlers } from '../http/operation.js';
import { linkContextOf } from '../http/request-context.js';
import { checkedClientId, controlTenant, ensureOperator, namedClientId } from './tenant.js';

/** Tenants, their worlds and clocks. */
export function controlHandlers(ctx: FakeContext) {
  return {
    getHealth: () => ok({ status: 'ok' as const }),
    resetWorld: (call) => {
      // a partner's reset is its own tenant's, however it names it; the operator's names one in the body, or none (all)
      checkedClientId(call, namedClientId(call));
      resetTenants(ctx.tenants, ctx.journal, checkedClientId(call, call.body?.client_id));
      return noContent();
    },
    getState: (call) => ok(controlTenant(ctx, call).store.snapshot()),
    replaceState: (call) => {
      replaceWorld(controlTenant(ctx, call), call.body);
      return noContent();
    },
    listDocumentLinks: (call) => {
      const tenant = controlTenant(ctx, call);
      return ok({ data: listDocumentLinks(tenant.store, linkContextOf(call, ctx, tenant)) });
    },
    listClients: (call) => {
      checkedClientId(call, namedClientId(call));
      return ok(listClients(ctx.tenants, call.controlPartner?.client.client_id));
    },
    createClient: (call) => {
      ensureOperator(call, 'register clients');
      return created(createClient(ctx.tenants, call.body));
    },
    updateClient: (call) => {
      checkedClientId(call, call.path.client_id);
      if (call.body.scopes !== undefined) ensureOperator(call, 'change scopes');
      return ok(updateClient(ctx.tenants, call.path.client_id, call.body));
    },
    getClock: (call) => ok(clockView(controlTenant(ctx, call).clock)),
    setClock: (call) => ok(controlTenant(ctx, call).changeClock(call.body)),
  } satisfies Partial<OperationHandlers>;
}
