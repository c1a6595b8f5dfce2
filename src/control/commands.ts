import type { Schemas } from '../api/types.js';
import type { Tenant } from '../domain/tenants.js';
import type { FakeContext } from '../context.js';
import { advanceOrder, setOrderStatus } from '../domain/order-actions.js';
import { placeOrder } from '../domain/order-placement.js';
import { journalControl } from './control-journal.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'journal'>;

// The control plane's order changes, kept in the tenant's journal: its handlers (control/orders.ts) and the library's
// sync calls (server.ts): one place for both.

export function placeOrderJournaled(
  ctx: InstanceParts,
  tenant: Tenant,
  input: Schemas['OrderPlacement'],
): Schemas['OrderDetails'] {
  const order = placeOrder(tenant, input);
  journalControl(ctx, tenant, { kind: 'place_order', input, order_id: order.id, answer: order });
  return order;
}

export function advanceOrderJournaled(ctx: InstanceParts, tenant: Tenant, orderId: string): Schemas['OrderDetails'] {
  const order = advanceOrder(tenant, orderId);
  journalControl(ctx, tenant, { kind: 'advance_order', order_id: orderId, answer: order });
  return order;
}

export function setOrderStatusJournaled(
  ctx: InstanceParts,
  tenant: Tenant,
  orderId: string,
  status: Schemas['OrderStatus'],
): Schemas['OrderDetails'] {
  const order = setOrderStatus(tenant, orderId, status);
  journalControl(ctx, tenant, { kind: 'set_order_status', order_id: orderId, status, answer: order });
  return order;
}
