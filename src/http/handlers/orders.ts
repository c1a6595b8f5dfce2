import { cancelOrder } from '../../domain/order-actions.js';
import { ok, type OperationHandlers } from '../operation.js';

export const orderHandlers = {
  cancelOrder: ({ tenant, path }) => ok(cancelOrder(tenant, path.order_id)),
} satisfies Partial<OperationHandlers>;
