import type { FakeContext } from '../context.js';
import { created, noContent, ok, type OperationHandlers } from '../http/operation.js';
import { controlTenant } from './tenant.js';
import { journalControl } from './control-journal.js';

export function faultHandlers(ctx: Pick<FakeContext, 'journal' | 'tenants'>) {
  return {
    listFaults: (call) => ok({ data: controlTenant(ctx, call).faults.list() }),
    addFault: (call) => {
      const tenant = controlTenant(ctx, call);
      const fault = tenant.faults.add(call.body);
      journalControl(ctx, tenant, { kind: 'add_fault', input: call.body, fault_id: fault.id });
      return created(fault);
    },
    clearFaults: (call) => {
      const tenant = controlTenant(ctx, call);
      tenant.faults.clear();
      journalControl(ctx, tenant, { kind: 'clear_faults' });
      return noContent();
    },
    removeFault: (call) => {
      const tenant = controlTenant(ctx, call);
      tenant.faults.remove(call.path.fault_id);
      journalControl(ctx, tenant, { kind: 'remove_fault', fault_id: call.path.fault_id });
      return noContent();
    },
  } satisfies Partial<OperationHandlers>;
}
