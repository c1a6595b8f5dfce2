import type { FakeContext } from '../../context.js';
import { cancelOrder } from '../../domain/order-actions.js';
import { param, type OperationHandlers } from '../operation-handlers.js';
import { tenantOf } from '../request-context.js';

export function orderHandlers(_ctx: FakeContext): Pick<OperationHandlers, 'cancelOrder'> {
  return {
    cancelOrder: (req, res) => {
      res.json(cancelOrder(tenantOf(res).store, param(req, 'order_id')));
    },
  };
}
