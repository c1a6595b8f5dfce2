import type { FakeContext } from '../context.js';
import { createClient, listClients, removableTenant, removeClient, updateClient } from '../domain/clients.js';
import { created, noContent, ok, type OperationHandlers } from '../http/operation.js';
import { checkedClientId, ensureOperator, namedClientId } from './tenant.js';
import { journalControl } from './control-journal.js';

export function clientHandlers(ctx: Pick<FakeContext, 'journal' | 'stateWriter' | 'tenants'>) {
  return {
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
    removeClient: async (call) => {
      // a partner's own token removes its own client only
      const clientId = checkedClientId(call, call.path.client_id)!;
      const tenant = removableTenant(ctx.tenants, clientId);
      const remove = () => removeClient(ctx.tenants, ctx.journal, clientId);
      // with STATE_DIR its file goes first: a directory that cannot delete it answers 503 and nothing is removed
      if (ctx.stateWriter) await ctx.stateWriter.remove(tenant, remove);
      else remove();
      return noContent();
    },
  } satisfies Partial<OperationHandlers>;
}
