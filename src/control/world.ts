import type { FakeContext } from '../context.js';
import { clockView } from '../domain/clock.js';
import { resetTenants } from '../domain/clients.js';
import { listDocumentLinks } from '../domain/documents.js';
import { replaceWorld } from '../domain/world.js';
import { noContent, ok, type OperationHandlers } from '../http/operation.js';
import { linkContextOf } from '../http/request-context.js';
import { checkedClientId, controlTenant, namedClientId } from './tenant.js';
import { journalControl } from './control-journal.js';

/** A tenant's world and clock: reset, snapshot and restore, its documents' links, its time. */
export function worldHandlers(ctx: Pick<FakeContext, 'journal' | 'linkSigner' | 'options' | 'tenants' | 'tokens'>) {
  return {
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
