import type { OrderStatus, Schemas } from './api.js';

// The rules of src/domain/order-lifecycle.ts, for drawing and for enabling buttons (a unit test keeps them equal);
// the fake still decides, and the console shows its answer when it refuses.
export const LIFECYCLE: Record<Schemas['OrderSide'], Partial<Record<OrderStatus, OrderStatus>>> = {
  BUY: { PLACED: 'AWAITING_PAYMENT', AWAITING_PAYMENT: 'AWAITING_TOKEN_DELIVERY', AWAITING_TOKEN_DELIVERY: 'COMPLETED' },
  SELL: { PLACED: 'AWAITING_TOKEN_DELIVERY', AWAITING_TOKEN_DELIVERY: 'AWAITING_PAYMENT', AWAITING_PAYMENT: 'COMPLETED' },
};
export const CANCELLABLE_STATUSES: readonly OrderStatus[] = ['PLACED', 'AWAITING_PAYMENT'];
export const ORDER_STATUSES: readonly OrderStatus[] = ['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'];

/** The statuses of a side's road, in order. */
export function road(side: Schemas['OrderSide']): OrderStatus[] {
  const steps: OrderStatus[] = [];
  for (let at: OrderStatus | undefined = 'PLACED'; at !== undefined; at = LIFECYCLE[side][at]) steps.push(at);
  return steps;
}

export const canAdvance = (order: { side: Schemas['OrderSide']; status: OrderStatus }): boolean => LIFECYCLE[order.side][order.status] !== undefined;
export const canCancel = (order: { status: OrderStatus }): boolean => CANCELLABLE_STATUSES.includes(order.status);

export const statusLabel = (status: OrderStatus): string => status.toLowerCase().replaceAll('_', ' ');
