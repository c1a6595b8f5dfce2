import { cancelOrder } from '../../domain/order-actions.js';
import { listOrders } from '../../domain/orders.js';
import { ok, type OperationHandlers } from '../operation.js';

/** The document's `orders` tag. */
export const orderHandlers = {
  listOrders: ({ tenant, query }) => ok({ data: listOrders(tenant, query) }),
  cancelOrder: ({ tenant, path }) => ok(cancelOrder(tenant, path.order_id)),
} satisfies Partial<OperationHandlers>;
