import type { FakeContext } from '../context.js';
import { advanceOrder, setOrderStatus } from '../domain/order-actions.js';
import { placeOrder, type OrderPlacement } from '../domain/order-placement.js';
import type { Schemas } from '../api/types.js';
import { param, type OperationHandlers } from '../http/operation-handlers.js';
import { controlTenant } from './tenant.js';

export function orderControlHandlers(ctx: FakeContext): Pick<OperationHandlers, 'placeOrder' | 'advanceOrder' | 'setOrderStatus'> {
  return {
    placeOrder: (req, res) => {
      res.status(201).json(placeOrder(controlTenant(req, ctx), req.body as OrderPlacement));
    },
    advanceOrder: (req, res) => {
      res.json(advanceOrder(controlTenant(req, ctx).store, param(req, 'order_id')));
    },
    setOrderStatus: (req, res) => {
      const { status } = req.body as Schemas['OrderStatusChange'];
      res.json(setOrderStatus(controlTenant(req, ctx).store, param(req, 'order_id'), status));
    },
  };
}
