import type { FakeContext } from '../context.js';
import { changeClock } from '../domain/clock.js';
import { createClient, listClients, resetTenants, updateClient } from '../domain/clients.js';
import { listDocumentLinks } from '../domain/documents.js';
import { replaceWorld } from '../domain/world.js';
import { created, noContent, ok, type OperationHandlers } from '../http/operation.js';
import { linkContextOf } from '../http/request-context.js';
import { controlTenant } from './tenant.js';

/** Tenants, their worlds and clocks. */
export function controlHandlers(ctx: FakeContext) {
  return {
    getHealth: () => ok({ status: 'ok' as const }),
    resetWorld: ({ body }) => {
      resetTenants(ctx.tenants, ctx.journal, body?.client_id);
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
    listClients: () => ok(listClients(ctx.tenants)),
    createClient: ({ body }) => created(createClient(ctx.tenants, body)),
    updateClient: ({ path, body }) => ok(updateClient(ctx.tenants, path.client_id, body)),
    getClock: (call) => ok({ now: controlTenant(ctx, call).clock.now().toISOString() }),
    setClock: (call) => ok(changeClock(controlTenant(ctx, call).clock, call.body)),
  } satisfies Partial<OperationHandlers>;
}
