// The order lifecycle table: data and pure functions over it, with no import but the document's generated types, so
// the console's bundle draws the table the domain applies (order-lifecycle.ts computes each status change from it).
import type { components } from '../api/schema.js';

type OrderSide = components['schemas']['OrderSide'];
type OrderStatus = components['schemas']['OrderStatus'];

/** The next status of one lifecycle step, per side; a status without an entry is the end of the road. */
export const LIFECYCLE: Readonly<Record<OrderSide, Readonly<Partial<Record<OrderStatus, OrderStatus>>>>> = {
  BUY: {
    PLACED: 'AWAITING_PAYMENT',
    AWAITING_PAYMENT: 'AWAITING_TOKEN_DELIVERY',
    AWAITING_TOKEN_DELIVERY: 'COMPLETED',
  },
  SELL: {
    PLACED: 'AWAITING_TOKEN_DELIVERY',
    AWAITING_TOKEN_DELIVERY: 'AWAITING_PAYMENT',
    AWAITING_PAYMENT: 'COMPLETED',
  },
};

export const CANCELLABLE_STATUSES: readonly OrderStatus[] = ['PLACED', 'AWAITING_PAYMENT'];

export const ORDER_STATUSES: readonly OrderStatus[] = [
  'PLACED',
  'AWAITING_PAYMENT',
  'AWAITING_TOKEN_DELIVERY',
  'COMPLETED',
  'CANCELLED',
];

/** The statuses a `side` order walks through, in order, from PLACED to the end of its road. */
export function road(side: OrderSide): OrderStatus[] {
  const steps: OrderStatus[] = [];
  for (let at: OrderStatus | undefined = 'PLACED'; at !== undefined; at = LIFECYCLE[side][at]) steps.push(at);
  return steps;
}

export const isCancellable = (status: OrderStatus): boolean => CANCELLABLE_STATUSES.includes(status);

/** Whether an order has a lifecycle step left (it is not COMPLETED or CANCELLED). */
export const canAdvance = (order: { side: OrderSide; status: OrderStatus }): boolean =>
  LIFECYCLE[order.side][order.status] !== undefined;
