import type { FakeContext } from '../context.js';
import { controlOrder, listControlOrders } from '../domain/order-actions.js';
import { createPaymentMethodDetails } from '../domain/payment-methods.js';
import { created, ok, type OperationHandlers } from '../http/operation.js';
import { controlTenant } from './tenant.js';
import { journalControl } from './control-journal.js';
import { advanceOrderJournaled, placeOrderJournaled, setOrderStatusJournaled } from './commands.js';

/** What partners cannot do through the API but their tests need: place orders, move them, add payment methods. */
export function orderControlHandlers(ctx: Pick<FakeContext, 'journal' | 'tenants'>) {
  return {
    getControlOrder: (call) => ok(controlOrder(controlTenant(ctx, call), call.path.order_id)),
    listControlOrders: (call) => ok(listControlOrders(controlTenant(ctx, call), call.query)),
    placeOrder: (call) => created(placeOrderJournaled(ctx, controlTenant(ctx, call), call.body)),
    advanceOrder: (call) => ok(advanceOrderJournaled(ctx, controlTenant(ctx, call), call.path.order_id)),
    setOrderStatus: (call) =>
      ok(setOrderStatusJournaled(ctx, controlTenant(ctx, call), call.path.order_id, call.body.status)),
    createPaymentMethodDetails: (call) => {
      const tenant = controlTenant(ctx, call);
      const details = createPaymentMethodDetails(tenant.store, call.path.account_id, call.body);
      journalControl(ctx, tenant, {
        kind: 'add_payment_method',
        account_id: call.path.account_id,
        input: call.body,
        id: details.id,
        answer: details,
      });
      return created(details);
    },
  } satisfies Partial<OperationHandlers>;
}
