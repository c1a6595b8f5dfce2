import type { FakeContext } from '../context.js';
import { readinessFindings } from '../harness/readiness-report.js';
import { created, noContent, ok, type OperationHandlers } from '../http/operation.js';
import { checkedClientId, controlTenant, namedClientId } from './tenant.js';

/** The partner test harness: injected faults, the request journal and the readiness report built on it. */
export function harnessHandlers(ctx: FakeContext) {
  return {
    listFaults: (call) => ok({ data: controlTenant(ctx, call).faults.list() }),
    addFault: (call) => created(controlTenant(ctx, call).faults.add(call.body)),
    clearFaults: (call) => {
      controlTenant(ctx, call).faults.clear();
      return noContent();
    },
    removeFault: (call) => {
      controlTenant(ctx, call).faults.remove(call.path.fault_id);
      return noContent();
    },
    listRequests: (call) => {
      const { method, path } = call.query;
      return ok({ data: ctx.journal.entries({ method, path, clientId: checkedClientId(call, namedClientId(call)) }) });
    },
    getReadinessReport: (call) => {
      const clientId = controlTenant(ctx, call).client.client_id;
      const records = ctx.journal.records((r) => r.clientId === clientId);
      return ok({ client_id: clientId, findings: readinessFindings(records, ctx.options.tokenTtlSeconds) });
    },
  } satisfies Partial<OperationHandlers>;
}
