// Status changes of an existing order; each goes through the lifecycle table (order-lifecycle.ts) and is recorded
// in the order's status history (order-progression.ts).
import { notFound } from '../api/errors.js';
import { clockView } from './clock.js';
import {
  advancedFields,
  cancelledFields,
  forcedFields,
  type LifecycleFields,
  toOrderDetails,
} from './order-lifecycle.js';
import type { StatusChangeBy } from './order-progression.js';
import type { OrderRecord, OrderStatus, QueryOf, Schemas } from '../api/types.js';
import type { Tenant } from './tenants.js';
import { HISTORY_ENTRY_BYTES, ORDER_HISTORY_ALLOWANCE, type WorldStore } from '../store/world-store.js';
import { ensureRoomFor } from './limits.js';

function findOrder(store: WorldStore, orderId: string): OrderRecord {
  const order = store.orderById.get(orderId);
  if (!order) throw notFound(`An order with id "${orderId}"`);
  return order;
}

function changeStatus(
  tenant: Tenant,
  orderId: string,
  by: StatusChangeBy,
  change: (order: OrderRecord) => LifecycleFields,
): OrderRecord {
  // the store as the tenant's clock has it: a change acts on the status that clock implies
  const order = findOrder(tenant.store, orderId);
  // The change is computed (and refused) before anything is written, so a refused change leaves the order as it was.
  const from = order.status;
  const fields = change(order);
  // the lifecycle's own steps were counted when the order was placed; a status forced again and again is not
  const bytes = tenant.progression.historyLength(order.id) >= ORDER_HISTORY_ALLOWANCE ? HISTORY_ENTRY_BYTES : 0;
  ensureRoomFor(tenant.store, 0, bytes);
  Object.assign(order, fields);
  tenant.store.grew(bytes);
  tenant.changed();
  tenant.progression.recorded(order, from, tenant.now(), by, tenant.client.settings);
  return toOrderDetails(order);
}

/** `DELETE /v1/orders/{order_id}/`: from PLACED or AWAITING_PAYMENT only, else 409 `order_not_cancellable`. */
export function cancelOrder(tenant: Tenant, orderId: string): OrderRecord {
  return changeStatus(tenant, orderId, 'partner', cancelledFields);
}

/** One lifecycle step with its side effect; 409 `order_not_advanceable` at COMPLETED or CANCELLED. */
export function advanceOrder(tenant: Tenant, orderId: string): OrderRecord {
  return changeStatus(tenant, orderId, 'control', advancedFields);
}

/** Any status, with side-effect fields consistent with it. */
export function setOrderStatus(tenant: Tenant, orderId: string, status: OrderStatus): OrderRecord {
  return changeStatus(tenant, orderId, 'control', (order) => forcedFields(order, status));
}

/** The control plane's view of an order: the order now, every status it has been in, and what the clock does next. */
function controlView(tenant: Tenant, order: OrderRecord): Schemas['ControlOrder'] {
  const next = tenant.progression.nextStep(order, tenant.client.settings);
  return {
    order: toOrderDetails(order),
    status_history: tenant.progression.historyOf(order).map(({ status, at, by }) => ({ status, at: isoAt(at), by })),
    next_step: next ? { status: next.status, at: isoAt(next.at), by: next.by } : null,
  };
}

const isoAt = (ms: number): string => new Date(ms).toISOString();

export function controlOrder(tenant: Tenant, orderId: string): Schemas['ControlOrder'] {
  return controlView(tenant, findOrder(tenant.store, orderId));
}

/**
 * The orders' control views, oldest first, with the clock they were read at (`GET /__control/orders`): those the
 * filters match (`GET /v1/orders`'s), from `skip`, at most `limit` (all when absent), and how many match in all.
 */
export function listControlOrders(
  tenant: Tenant,
  query: QueryOf<'listControlOrders'> = {},
): Schemas['ControlOrderList'] {
  const { side, market, order_status: status, account_id: accountId, isin, skip = 0, limit } = query;
  const matching = tenant.store.orders.filter(
    (o) =>
      (side === undefined || o.side === side) &&
      (market === undefined || o.market === market) &&
      (status === undefined || o.status === status) &&
      (accountId === undefined || o.account_id === accountId) &&
      (isin === undefined || o.isin === isin),
  );
  const page = matching.slice(skip, limit === undefined ? undefined : skip + limit);
  return {
    data: page.map((order) => controlView(tenant, order)),
    total: matching.length,
    clock: clockView(tenant.clock),
  };
}
