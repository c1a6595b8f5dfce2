import { describe, expect, it } from 'vitest';
import { advanceOrder, cancelOrder, setOrderStatus } from '../../src/domain/order-actions.js';
import {
  advancedFields,
  cancelledFields,
  fieldsSetOnTheWayTo,
  forcedFields,
  makePaymentReference,
  makeSettlementHash,
} from '../../src/domain/order-lifecycle.js';
import type { OrderRecord, OrderSide, OrderStatus } from '../../src/api/types.js';
import { failure, seededTenant } from '../support/world.js';

const REFERENCE = /^PAY-[A-Z0-9]{12}$/;
const HASH = /^0x[0-9a-f]{64}$/;
const STATUSES: OrderStatus[] = ['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'];

function order(side: OrderSide, status: OrderStatus, fields: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: '6f1c2a43-4c1e-4d59-9f5e-0d1f4b8f2a11',
    side,
    market: 'PRIMARY',
    status,
    amount_of_units: 10,
    value: 100_000,
    currency: 'EUR',
    isin: 'DE0005557508',
    account_id: 'a3a7f0c2-6d3b-4b6f-8c55-6b1b7e3e9d10',
    created: '2026-01-01T00:00:00.000Z',
    settlement_transaction_hash: null,
    payment_transaction_reference: null,
    custom_offering_id: null,
    sender_payment_method_details: null,
    recipient_payment_method_details: null,
    recipient_wallet_address: null,
    ...fields,
  };
}

/** Advances until the end of the lifecycle; answers every state the order went through, with its fields. */
function walk(side: OrderSide): OrderRecord[] {
  const states = [order(side, 'PLACED')];
  for (;;) {
    const current = states.at(-1)!;
    if (current.status === 'COMPLETED') return states;
    states.push({ ...current, ...advancedFields(current) });
  }
}

const sideEffectsOf = (o: OrderRecord) => ({
  status: o.status,
  reference: o.payment_transaction_reference === null ? null : 'set',
  hash: o.settlement_transaction_hash === null ? null : 'set',
});

describe('the lifecycle table', () => {
  it('walks a BUY PLACED → AWAITING_PAYMENT → AWAITING_TOKEN_DELIVERY → COMPLETED; leaving AWAITING_PAYMENT sets the reference, leaving AWAITING_TOKEN_DELIVERY the hash', () => {
    expect(walk('BUY').map(sideEffectsOf)).toEqual([
      { status: 'PLACED', reference: null, hash: null },
      { status: 'AWAITING_PAYMENT', reference: null, hash: null },
      { status: 'AWAITING_TOKEN_DELIVERY', reference: 'set', hash: null },
      { status: 'COMPLETED', reference: 'set', hash: 'set' },
    ]);
  });

  it('walks a SELL PLACED → AWAITING_TOKEN_DELIVERY → AWAITING_PAYMENT → COMPLETED, tokens first, payout last', () => {
    expect(walk('SELL').map(sideEffectsOf)).toEqual([
      { status: 'PLACED', reference: null, hash: null },
      { status: 'AWAITING_TOKEN_DELIVERY', reference: null, hash: null },
      { status: 'AWAITING_PAYMENT', reference: null, hash: 'set' },
      { status: 'COMPLETED', reference: 'set', hash: 'set' },
    ]);
  });

  it('makes up values in the fixtures’ formats, and keeps them on later steps', () => {
    const completed = walk('BUY').at(-1)!;
    expect(completed.payment_transaction_reference).toMatch(REFERENCE);
    expect(completed.settlement_transaction_hash).toMatch(HASH);
    const [, , deliveringTokens] = walk('BUY');
    const reference = deliveringTokens!.payment_transaction_reference;
    expect(advancedFields(deliveringTokens!).payment_transaction_reference).toBe(reference);
  });

  it('keeps a value that is already there when a step would set it', () => {
    const paid = order('BUY', 'AWAITING_PAYMENT', { payment_transaction_reference: 'PAY-KEEPME000000' });
    expect(advancedFields(paid).payment_transaction_reference).toBe('PAY-KEEPME000000');
  });

  it('refuses to advance a COMPLETED or CANCELLED order with 409 order_not_advanceable', () => {
    for (const side of ['BUY', 'SELL'] as const) {
      for (const status of ['COMPLETED', 'CANCELLED'] as const) {
        const error = failure(() => advancedFields(order(side, status)));
        expect(error).toMatchObject({ status: 409, code: 'order_not_advanceable' });
        expect(error.detail).toContain(status);
      }
    }
  });

  it('draws each side-effect value from the order id: the same order always gets the same, two orders differ', () => {
    const [a, b] = ['a0000000-0000-4000-8000-000000000001', 'a0000000-0000-4000-8000-000000000002'];
    expect(makePaymentReference(a)).toMatch(REFERENCE);
    expect(makePaymentReference(a)).toBe(makePaymentReference(a));
    expect(makePaymentReference(a)).not.toBe(makePaymentReference(b));
    expect(makeSettlementHash(a)).toMatch(/^0x[0-9a-f]{64}$/);
    expect(makeSettlementHash(a)).toBe(makeSettlementHash(a));
    expect(makeSettlementHash(a)).not.toBe(makeSettlementHash(b));
  });
});

describe('the fields set on the way to a status', () => {
  it.each([
    ['BUY', 'PLACED', []],
    ['BUY', 'AWAITING_PAYMENT', []],
    ['BUY', 'AWAITING_TOKEN_DELIVERY', ['payment_transaction_reference']],
    ['BUY', 'COMPLETED', ['payment_transaction_reference', 'settlement_transaction_hash']],
    ['SELL', 'PLACED', []],
    ['SELL', 'AWAITING_TOKEN_DELIVERY', []],
    ['SELL', 'AWAITING_PAYMENT', ['settlement_transaction_hash']],
    ['SELL', 'COMPLETED', ['payment_transaction_reference', 'settlement_transaction_hash']],
  ] as [OrderSide, OrderStatus, string[]][])('a %s that reached %s has %j', (side, status, fields) => {
    expect(fieldsSetOnTheWayTo(side, status)).toEqual(fields);
  });

  it('are none for CANCELLED, which is no step of the walk, on either side', () => {
    expect(fieldsSetOnTheWayTo('BUY', 'CANCELLED')).toEqual([]);
    expect(fieldsSetOnTheWayTo('SELL', 'CANCELLED')).toEqual([]);
  });

  it('are the fields a walk of lifecycle steps from PLACED has set', () => {
    for (const side of ['BUY', 'SELL'] as const) {
      for (const state of walk(side)) {
        const set = (['payment_transaction_reference', 'settlement_transaction_hash'] as const).filter(
          (field) => state[field] !== null,
        );
        expect(fieldsSetOnTheWayTo(side, state.status).sort()).toEqual(set);
      }
    }
  });
});

describe('cancellation', () => {
  it('is accepted from PLACED and AWAITING_PAYMENT, on both sides, and sets no side-effect field', () => {
    for (const side of ['BUY', 'SELL'] as const) {
      for (const status of ['PLACED', 'AWAITING_PAYMENT'] as const) {
        const hash =
          side === 'SELL' && status === 'AWAITING_PAYMENT'
            ? makeSettlementHash('a0000000-0000-4000-8000-000000000001')
            : null;
        const before = order(side, status, { settlement_transaction_hash: hash });
        expect(cancelledFields(before)).toEqual({
          status: 'CANCELLED',
          payment_transaction_reference: null,
          settlement_transaction_hash: hash,
        });
      }
    }
  });

  it('is refused from AWAITING_TOKEN_DELIVERY, COMPLETED and CANCELLED with 409 order_not_cancellable naming the status', () => {
    for (const status of ['AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'] as const) {
      const error = failure(() => cancelledFields(order('BUY', status)));
      expect(error).toMatchObject({ status: 409, code: 'order_not_cancellable' });
      expect(error.detail).toContain(status);
      expect(error.detail).toContain('PLACED or AWAITING_PAYMENT');
    }
  });
});

describe('a forced status', () => {
  // [side, status] → whether the reference and the hash are set: as if the order had walked there from PLACED.
  const expected: [OrderSide, OrderStatus, boolean, boolean][] = [
    ['BUY', 'PLACED', false, false],
    ['BUY', 'AWAITING_PAYMENT', false, false],
    ['BUY', 'AWAITING_TOKEN_DELIVERY', true, false],
    ['BUY', 'COMPLETED', true, true],
    ['SELL', 'PLACED', false, false],
    ['SELL', 'AWAITING_TOKEN_DELIVERY', false, false],
    ['SELL', 'AWAITING_PAYMENT', false, true],
    ['SELL', 'COMPLETED', true, true],
  ];

  it.each(expected)(
    '%s → %s sets the reference exactly when it left AWAITING_PAYMENT (%s), the hash when it left AWAITING_TOKEN_DELIVERY (%s)',
    (side, status, paid, settled) => {
      for (const from of STATUSES.filter((s) => s !== 'CANCELLED')) {
        for (const start of [
          order(side, from),
          { ...order(side, from), ...forcedFields(order(side, from), 'COMPLETED') },
        ]) {
          const forced = forcedFields(start, status);
          expect(forced.status).toBe(status);
          expect(
            forced.payment_transaction_reference === null
              ? false
              : REFERENCE.test(forced.payment_transaction_reference),
          ).toBe(paid);
          expect(
            forced.settlement_transaction_hash === null ? false : HASH.test(forced.settlement_transaction_hash),
          ).toBe(settled);
        }
      }
    },
  );

  it('keeps values already set and makes up missing ones', () => {
    const half = order('BUY', 'AWAITING_TOKEN_DELIVERY', { payment_transaction_reference: 'PAY-KEEPME000000' });
    const forced = forcedFields(half, 'COMPLETED');
    expect(forced.payment_transaction_reference).toBe('PAY-KEEPME000000');
    expect(forced.settlement_transaction_hash).toMatch(HASH);
  });

  it('clears the fields of the states it has not reached', () => {
    const completed = order('SELL', 'COMPLETED', {
      payment_transaction_reference: 'PAY-KEEPME000000',
      settlement_transaction_hash: makeSettlementHash('a0000000-0000-4000-8000-000000000001'),
    });
    expect(forcedFields(completed, 'AWAITING_TOKEN_DELIVERY')).toEqual({
      status: 'AWAITING_TOKEN_DELIVERY',
      payment_transaction_reference: null,
      settlement_transaction_hash: null,
    });
  });

  it('CANCELLED keeps the fields of the status it leaves, whatever that status is', () => {
    const hash = makeSettlementHash('a0000000-0000-4000-8000-000000000001');
    const delivering = order('BUY', 'AWAITING_TOKEN_DELIVERY', { payment_transaction_reference: 'PAY-KEEPME000000' });
    expect(forcedFields(delivering, 'CANCELLED')).toEqual({
      status: 'CANCELLED',
      payment_transaction_reference: 'PAY-KEEPME000000',
      settlement_transaction_hash: null,
    });
    const completed = order('SELL', 'COMPLETED', {
      payment_transaction_reference: 'PAY-KEEPME000000',
      settlement_transaction_hash: hash,
    });
    expect(forcedFields(completed, 'CANCELLED')).toEqual({
      status: 'CANCELLED',
      payment_transaction_reference: 'PAY-KEEPME000000',
      settlement_transaction_hash: hash,
    });
    const cancelled = order('SELL', 'CANCELLED', { settlement_transaction_hash: hash });
    expect(forcedFields(cancelled, 'CANCELLED')).toEqual({
      status: 'CANCELLED',
      payment_transaction_reference: null,
      settlement_transaction_hash: hash,
    });
  });

  it('refuses a status that is not one with 422 validation_error', () => {
    expect(failure(() => forcedFields(order('BUY', 'PLACED'), 'SHIPPED' as OrderStatus))).toMatchObject({
      status: 422,
      code: 'validation_error',
    });
  });
});

describe('status changes in a store', () => {
  const storeWith = (status: OrderStatus) => {
    const tenant = seededTenant();
    const store = tenant.store;
    const target = store.orders.find((o) => o.status === status)!;
    return { tenant, store, target };
  };

  it('cancelOrder changes the stored order and answers a copy the caller cannot change it through', () => {
    const { tenant, store, target } = storeWith('PLACED');
    const answer = cancelOrder(tenant, target.id);
    expect(answer.status).toBe('CANCELLED');
    expect(store.orderById.get(target.id)!.status).toBe('CANCELLED');
    expect(store.orders.find((o) => o.id === target.id)!.status).toBe('CANCELLED');
    answer.status = 'PLACED';
    expect(store.orderById.get(target.id)!.status).toBe('CANCELLED');
  });

  it('a refused cancel leaves the order exactly as it was', () => {
    const { tenant, store, target } = storeWith('COMPLETED');
    const before = structuredClone(target);
    expect(failure(() => cancelOrder(tenant, target.id))).toMatchObject({ status: 409, code: 'order_not_cancellable' });
    expect(store.orderById.get(target.id)).toEqual(before);
  });

  it('an unknown order id answers 404 not_found for cancel, advance and forced status', () => {
    const { tenant } = storeWith('PLACED');
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const action of [
      () => cancelOrder(tenant, unknown),
      () => advanceOrder(tenant, unknown),
      () => setOrderStatus(tenant, unknown, 'COMPLETED'),
    ]) {
      expect(failure(action)).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  it('advanceOrder and setOrderStatus write through to the store', () => {
    const { tenant, store, target } = storeWith('PLACED');
    expect(advanceOrder(tenant, target.id).status).toBe(store.orderById.get(target.id)!.status);
    setOrderStatus(tenant, target.id, 'COMPLETED');
    expect(store.orderById.get(target.id)).toMatchObject({
      status: 'COMPLETED',
      payment_transaction_reference: expect.stringMatching(REFERENCE),
      settlement_transaction_hash: expect.stringMatching(HASH),
    });
  });
});
