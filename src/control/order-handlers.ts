import type { FakeContext } from '../context.js';
import { advanceOrder, controlOrder, listControlOrders, setOrderStatus } from '../domain/order-actions.js';
import { placeOrder } from '../domain/order-placement.js';
import { createPaymentMethodDetails } from '../domain/payment-methods.js';
import { created, ok, type OperationHandlers } from '../http/operation.js';
import { controlTenant } from './tenant.js';

/** What partners cannot do through the API but their tests need: place orders, move them, add payment methods. */
export function orderControlHandlers(ctx: FakeContext) {
  return {
    getControlOrder: (call) => ok(controlOrder(controlTenant(ctx, call), call.path.order_id)),
    listControlOrders: (call) => ok(listControlOrders(controlTenant(ctx, call), call.query)),
    placeOrder: (call) => created(placeOrder(controlTenant(ctx, call), call.body)),
    advanceOrder: (call) => ok(advanceOrder(controlTenant(ctx, call), call.path.order_id)),
    setOrderStatus: (call) => ok(setOrderStatus(controlTenant(ctx, call), call.path.order_id, call.body.status)),
    createPaymentMethodDetails: (call) =>
      created(createPaymentMethodDetails(controlTenant(ctx, call).store, call.path.account_id, call.body)),
  } satisfies Partial<OperationHandlers>;
}
