// Every status change of an order (cancel, advance, forced status) is computed here, from the lifecycle table
// (order-lifecycle-table.ts) and the side effects of leaving a status.
import { createHash } from 'node:crypto';
import { DomainError } from '../api/errors.js';
import type { OrderRecord, OrderSide, OrderStatus } from '../api/types.js';
import { CANCELLABLE_STATUSES, isCancellable, LIFECYCLE, ORDER_STATUSES, road } from './order-lifecycle-table.js';

export type SideEffectField = 'payment_transaction_reference' | 'settlement_transaction_hash';

/** What an order has after a status change: the status and the side-effect fields. */
export type LifecycleFields = Pick<OrderRecord, 'status' | SideEffectField>;

const ALPHANUMERIC_UPPER = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

// Side-effect values are drawn from the order's id: the same calls and clock moves give the same answers.
const digestOf = (orderId: string, field: SideEffectField): Buffer =>
  createHash('sha256').update(`${field}:${orderId}`).digest();

/** A payment reference in the format the fixtures use: `PAY-` and 12 of A–Z, 0–9; the order's own. */
export function makePaymentReference(orderId: string): string {
  const digest = digestOf(orderId, 'payment_transaction_reference');
  return `PAY-${Array.from({ length: 12 }, (_, i) => ALPHANUMERIC_UPPER[digest[i]! % ALPHANUMERIC_UPPER.length]).join('')}`;
}

/** A Polygon transaction hash: `0x` and 64 lower-case hex digits; the order's own. */
export function makeSettlementHash(orderId: string): string {
  return `0x${digestOf(orderId, 'settlement_transaction_hash').toString('hex')}`;
}

interface SideEffect {
  /** The lifecycle step out of this status sets `field`. */
  leaving: OrderStatus;
  field: SideEffectField;
  make: (orderId: string) => string;
}

const SIDE_EFFECTS: readonly SideEffect[] = [
  { leaving: 'AWAITING_PAYMENT', field: 'payment_transaction_reference', make: makePaymentReference },
  { leaving: 'AWAITING_TOKEN_DELIVERY', field: 'settlement_transaction_hash', make: makeSettlementHash },
];

const fieldsOf = (order: OrderRecord): LifecycleFields => ({
  status: order.status,
  payment_transaction_reference: order.payment_transaction_reference,
  settlement_transaction_hash: order.settlement_transaction_hash,
});

/** The statuses a `side` order passes through from PLACED to `status`, `status` excluded (null: not on its path). */
function statusesLeftOnTheWayTo(side: OrderSide, status: OrderStatus): OrderStatus[] | null {
  const steps = road(side);
  const at = steps.indexOf(status);
  return at < 0 ? null : steps.slice(0, at);
}

/**
 * The side-effect fields a `side` order has once it walked from PLACED to `status`: those set on leaving a status
 * on the way. None for CANCELLED, which is no step of that walk.
 */
export function fieldsSetOnTheWayTo(side: OrderSide, status: OrderStatus): SideEffectField[] {
  const left = statusesLeftOnTheWayTo(side, status) ?? [];
  return SIDE_EFFECTS.filter((effect) => left.includes(effect.leaving)).map((effect) => effect.field);
}

/** One lifecycle step, with the side effect of leaving the current status. */
export function advancedFields(order: OrderRecord): LifecycleFields {
  const next = LIFECYCLE[order.side][order.status];
  if (next === undefined) {
    throw new DomainError(
      409,
      'order_not_advanceable',
      `Order ${order.id} is ${order.status}, the end of its lifecycle; only an order that is not COMPLETED or CANCELLED can advance.`,
    );
  }
  const fields = { ...fieldsOf(order), status: next };
  const effect = SIDE_EFFECTS.find((e) => e.leaving === order.status);
  if (effect) fields[effect.field] ??= effect.make(order.id);
  return fields;
}

/** Cancellation has no side effect: nothing was paid or delivered by cancelling. */
export function cancelledFields(order: OrderRecord): LifecycleFields {
  if (!isCancellable(order.status)) {
    throw new DomainError(
      409,
      'order_not_cancellable',
      `Order ${order.id} is ${order.status}; only an order that is ${CANCELLABLE_STATUSES.join(' or ')} can be cancelled.`,
    );
  }
  return { ...fieldsOf(order), status: 'CANCELLED' };
}

/**
 * A status set directly, with side-effect fields as if the order had walked there from PLACED: a field is kept
 * (or made up) when its status was left on the way, cleared when not. CANCELLED is no step of that walk, so it
 * keeps the fields of the status it leaves (and an order already CANCELLED keeps its own).
 */
export function forcedFields(order: OrderRecord, status: OrderStatus): LifecycleFields {
  if (!ORDER_STATUSES.includes(status)) {
    throw new DomainError(422, 'validation_error', `"${String(status)}" is not an order status.`, [
      { location: 'body', path: '/status', message: `must be one of ${ORDER_STATUSES.join(', ')}` },
    ]);
  }
  if (status === 'CANCELLED') {
    if (order.status === 'CANCELLED') return fieldsOf(order);
    return { ...forcedFields(order, order.status), status: 'CANCELLED' };
  }
  const reached = fieldsSetOnTheWayTo(order.side, status);
  const fields = { ...fieldsOf(order), status };
  for (const effect of SIDE_EFFECTS) {
    fields[effect.field] = reached.includes(effect.field) ? (order[effect.field] ?? effect.make(order.id)) : null;
  }
  return fields;
}

/**
 * The order with every field of the cancel response, detached from the store so callers cannot change it: a copy of
 * its fields and of its two payment sides, its only nested objects (structuredClone costs ten times as much).
 */
export const toOrderDetails = (order: OrderRecord): OrderRecord => ({
  ...order,
  sender_payment_method_details: order.sender_payment_method_details && { ...order.sender_payment_method_details },
  recipient_payment_method_details: order.recipient_payment_method_details && {
    ...order.recipient_payment_method_details,
  },
});
