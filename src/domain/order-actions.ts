// Status changes of an existing order; each goes through the lifecycle table (order-lifecycle.ts).
import { notFound } from '../api/errors.js';
import { advancedFields, cancelledFields, forcedFields, type LifecycleFields } from './order-lifecycle.js';
import type { OrderRecord, OrderStatus } from '../api/types.js';
import type { WorldStore } from '../store/world-store.js';

export function findOrder(store: WorldStore, orderId: string): OrderRecord {
  const order = store.orderById.get(orderId);
  if (!order) throw notFound(`An order with id "${orderId}"`);
  return order;
}

/** The order with every field of the cancel response, detached from the store so callers cannot change it. */
export const toOrderDetails = (order: OrderRecord): OrderRecord => structuredClone(order);

function changeStatus(store: WorldStore, orderId: string, change: (order: OrderRecord) => LifecycleFields): OrderRecord {
  const order = findOrder(store, orderId);
  // The change is computed (and refused) before anything is written, so a refused change leaves the order as it was.
  Object.assign(order, change(order));
  store.changed();
  return toOrderDetails(order);
}

/** `DELETE /v1/orders/{order_id}/`: from PLACED or AWAITING_PAYMENT only, else 409 `order_not_cancellable`. */
export function cancelOrder(store: WorldStore, orderId: string): OrderRecord {
  return changeStatus(store, orderId, cancelledFields);
}

/** One lifecycle step with its side effect; 409 `order_not_advanceable` at COMPLETED or CANCELLED. */
export function advanceOrder(store: WorldStore, orderId: string): OrderRecord {
  return changeStatus(store, orderId, advancedFields);
}

/** Any status, with side-effect fields consistent with it. */
export function setOrderStatus(store: WorldStore, orderId: string, status: OrderStatus): OrderRecord {
  return changeStatus(store, orderId, (order) => forcedFields(order, status));
}
