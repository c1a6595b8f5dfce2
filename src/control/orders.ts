import type { Schemas } from '../api/types.js';
import type { Tenant } from '../domain/tenants.js';
import type { FakeContext } from '../context.js';
import { advanceOrder, controlOrder, listControlOrders, setOrderStatus } from '../domain/order-actions.js';
import { placeOrder } from '../domain/order-placement.js';
import { createPaymentMethodDetails } from '../domain/payment-methods.js';
import { created, ok, type OperationHandlers } from '../http/operation.js';
import { controlTenant } from './tenant.js';
import { journalControl } from './control-journal.js';

/** What partners cannot do through the API but their tests need: place orders, move them, add payment methods. */
export function orderControlHandlers(ctx: FakeContext) {
  return {
    getControlOrder: (call) => ok(controlOrder(controlTenant(ctx, call), call.path.order_id)),
    listControlOrders: (call) => ok(listControlOrders(controlTenant(ctx, call), call.query)),
    placeOrder: (call) => created(placeOrderJournaled(ctx, controlTenant(ctx, call), call.body)),
    advanceOrder: (call) => ok(advanceOrderJournaled(ctx, controlTenant(ctx, call), call.path.order_id)),
    setOrderStatus: (call) => ok(setOrderStatusJournaled(ctx, controlTenant(ctx, call), call.path.order_id, call.body.status)),
    createPaymentMethodDetails: (call) => {
      const tenant = controlTenant(ctx, call);
      const details = createPaymentMethodDetails(tenant.store, call.path.account_id, call.body);
      journalControl(ctx, tenant, { kind: 'add_payment_method', account_id: call.path.account_id, input: call.body, id: details.id, answer: details });
      return created(details);
    },
  } satisfies Partial<OperationHandlers>;
}

// The control plane's order changes, kept in the tenant's journal: the handlers above and the library's sync calls.

export function placeOrderJournaled(ctx: FakeContext, tenant: Tenant, input: Schemas['OrderPlacement']): Schemas['OrderDetails'] {
  const order = placeOrder(tenant, input);
  journalControl(ctx, tenant, { kind: 'place_order', input, order_id: order.id, answer: order });
  return order;
}

export function advanceOrderJournaled(ctx: FakeContext, tenant: Tenant, orderId: string): Schemas['OrderDetails'] {
  const order = advanceOrder(tenant, orderId);
  journalControl(ctx, tenant, { kind: 'advance_order', order_id: orderId, answer: order });
  return order;
}

export function setOrderStatusJournaled(ctx: FakeContext, tenant: Tenant, orderId: string, status: Schemas['OrderStatus']): Schemas['OrderDetails'] {
  const order = setOrderStatus(tenant, orderId, status);
  journalControl(ctx, tenant, { kind: 'set_order_status', order_id: orderId, status, answer: order });
  return order;
}
