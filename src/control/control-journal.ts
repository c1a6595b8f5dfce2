import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';
import type { ControlStep } from '../records/control-steps.js';

/**
 * The one place a change made through the control plane (or the library's same calls) is kept in the tenant's
 * journal, in order with its requests, for the replay of its session (`GET /__control/export?format=vitest`). Called
 * once the change succeeded: a refused call changed nothing. `tenantAt`: the tenant's clock when the change was made.
 */
export function journalControl(
  ctx: Pick<FakeContext, 'journal'>,
  tenant: Tenant,
  step: ControlStep,
  tenantAt: number = tenant.now(),
): void {
  // the caller's objects may change after the call (a library caller's input); a snapshot's text cannot
  const kept = step.kind === 'restore_state' ? step : structuredClone(step);
  ctx.journal.recordControl(tenant.client.client_id, kept, tenantAt);
}
