import type { FakeContext } from '../context.js';
import { noContent, ok, type OperationHandlers } from '../http/operation.js';
import { checkedClientId, namedClientId } from './tenant.js';
import { requestExchange } from './request-exchange.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'journal'>;

/** When the tenant was last reset, as the journal marks it: null before its first reset. */
const lastReset = (ctx: InstanceParts, clientId: string): string | null => {
  const marks = ctx.journal.resets(clientId);
  const last = marks[marks.length - 1];
  return last ? new Date(last.at).toISOString() : null;
};

/** The journal: its entries and exchanges (what is proved from it is the proof satellite's, control/proof-handlers.ts). */
export function journalHandlers(ctx: InstanceParts) {
  return {
    listRequests: (call) => {
      const { method, path, since = 'reset' } = call.query;
      const clientId = checkedClientId(call, namedClientId(call));
      const data = ctx.journal.entries({ method, path, since, ...(clientId !== undefined && { clientId }) });
      return ok({ data, since, last_reset: clientId === undefined ? null : lastReset(ctx, clientId) });
    },
    clearRequests: (call) => {
      const clientId = checkedClientId(call, namedClientId(call));
      ctx.journal.clear(clientId);
      return noContent();
    },
    getRequestExchange: (call) => {
      // a partner reads its own requests only, and names no other tenant here either
      checkedClientId(call, namedClientId(call));
      return ok(requestExchange(ctx, call.path.request_id, call.controlPartner?.client.client_id));
    },
  } satisfies Partial<OperationHandlers>;
}
