import { getHeapStatistics } from 'node:v8';
import type { AnswerOf } from '../api/types.js';
import { usageOf } from '../domain/usage.js';
import type { FakeContext } from '../context.js';
import { clockView } from '../domain/clock.js';
import { createClient, listClients, resetTenants, updateClient } from '../domain/clients.js';
import { listDocumentLinks } from '../domain/documents.js';
import { replaceWorld } from '../domain/world.js';
import { created, noContent, ok, type OperationHandlers } from '../http/operation.js';
import { linkContextOf } from '../http/request-context.js';
import { checkedClientId, controlTenant, ensureOperator, namedClientId } from './tenant.js';
import { journalControl } from './control-journal.js';

/**
 * Up, and with STATE_DIR whether its writes are on disk: a directory that cannot take them answers 503 `degraded`
 * (the Docker health check then says unhealthy), naming persistence.
 */
function health(ctx: FakeContext): AnswerOf<'getHealth'> {
  const persistence = ctx.stateWriter?.health;
  // said in shadow mode only, so that the console's Fidelity view asks for a report only where there is one
  const shadow = ctx.shadow !== undefined && { shadow_mode: true };
  if (persistence === undefined) return ok({ status: 'ok', ...shadow });
  if (persistence.status === 'ok') return ok({ status: 'ok', persistence, ...shadow });
  return { status: 503, body: { status: 'degraded', persistence, ...shadow } } as unknown as AnswerOf<'getHealth'>;
}

/** Tenants, their worlds and clocks. */
export function controlHandlers(ctx: FakeContext) {
  return {
    getHealth: () => health(ctx),
    resetWorld: (call) => {
      // a partner's reset is its own tenant's, however it names it; the operator's names one in the body, or none (all)
      checkedClientId(call, namedClientId(call));
      resetTenants(ctx.tenants, ctx.journal, checkedClientId(call, call.body?.client_id));
      return noContent();
    },
    getState: (call) => ok(controlTenant(ctx, call).store.snapshot()),
    replaceState: (call) => {
      const tenant = controlTenant(ctx, call);
      // as it was handed: the store keeps and changes the object itself
      const world = JSON.stringify(call.body);
      replaceWorld(tenant, call.body);
      journalControl(ctx, tenant, { kind: 'restore_state', world });
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
      const client = updateClient(ctx.tenants, call.path.client_id, call.body);
      journalControl(ctx, ctx.tenants.get(call.path.client_id), { kind: 'update_client', changes: call.body });
      return ok(client);
    },
    getUsage: (call) => {
      checkedClientId(call, namedClientId(call));
      ensureOperator(call, 'read the usage of every budget');
      const heap = getHeapStatistics();
      return ok(usageOf(ctx.tenants, ctx.journal, ctx.budgets, { limit: heap.heap_size_limit, used: heap.used_heap_size }));
    },
    getClock: (call) => ok(clockView(controlTenant(ctx, call).clock)),
    setClock: (call) => {
      const tenant = controlTenant(ctx, call);
      const before = tenant.now();
      const clock = tenant.changeClock(call.body);
      journalControl(ctx, tenant, { kind: 'clock', change: call.body, before, after: tenant.now() }, before);
      return ok(clock);
    },
  } satisfies Partial<OperationHandlers>;
}
