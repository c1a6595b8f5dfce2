import type { FakeContext } from '../context.js';
import { createClient, listClients, updateClient } from '../domain/clients.js';
import { created, ok, type OperationHandlers } from '../http/operation.js';
import { checkedClientId, ensureOperator, namedClientId } from './tenant.js';
import { journalControl } from './control-journal.js';

export function clientHandlers(ctx: FakeContext) {
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
  } satisfies Partial<OperationHandlers>;
}
