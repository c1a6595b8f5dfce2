import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import type { OrderRecord } from '../../src/api/types.js';
import { advancedFields, cancelledFields, fieldsSetOnTheWayTo } from '../../src/domain/order-lifecycle.js';
import { CANCELLABLE_STATUSES, LIFECYCLE } from '../../src/domain/order-lifecycle-table.js';
import {
  DEFAULT_PROGRESSION_SETTINGS,
  nextTimedEvent,
  OrderProgression,
  type ProgressionSettings,
} from '../../src/domain/order-progression.js';
import { propertyRuns } from '../support/runs.js';

const START = Date.UTC(2030, 0, 1);
const clock = (overrides: Partial<ProgressionSettings> = {}): ProgressionSettings => ({
  ...DEFAULT_PROGRESSION_SETTINGS,
  order_progression: 'clock',
  ...overrides,
});

/** Orders of both sides in every status, created at or before START, each in its own object. */
function orders(): OrderRecord[] {
  return structuredClone(generateWorld({ seed: 3, scale: { orders: 60, accounts: 10 } }).orders).map((o, i) => ({
    ...o,
    created: new Date(START - i * 7_000).toISOString(),
  }));
}

const settingsArbitrary = fc.record({
  order_progression: fc.constant('clock' as const),
  order_step_seconds: fc.record({
    PLACED: fc.integer({ min: 0, max: 300 }),
    AWAITING_PAYMENT: fc.integer({ min: 0, max: 300 }),
    AWAITING_TOKEN_DELIVERY: fc.integer({ min: 0, max: 300 }),
  }),
  order_polls_per_step: fc.constant(3),
  payment_deadline_seconds: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
});

const historiesOf = (progression: OrderProgression, list: readonly OrderRecord[]) =>
  list.map((o) => progression.historyOf(o));

describe('nextTimedEvent', () => {
  it('counts from the later of entering the status and switching progression on', () => {
    const order = { side: 'BUY', status: 'PLACED' } as const;
    expect(nextTimedEvent(order, START, START + 60_000, clock())).toEqual({ at: START + 70_000, by: 'progression' });
    expect(nextTimedEvent(order, START + 60_000, START, clock())).toEqual({ at: START + 70_000, by: 'progression' });
  });

  it('is the platform’s cancel at the payment deadline when it comes before the step; a payment at its very instant is in time', () => {
    const paying = { side: 'BUY', status: 'AWAITING_PAYMENT' } as const;
    expect(nextTimedEvent(paying, START, START, clock({ payment_deadline_seconds: 30 }))).toEqual({
      at: START + 30_000,
      by: 'platform',
    });
    expect(nextTimedEvent(paying, START, START, clock({ payment_deadline_seconds: 120 }))).toEqual({
      at: START + 120_000,
      by: 'progression',
    });
  });

  it('is nothing for a final status or outside clock mode', () => {
    expect(nextTimedEvent({ side: 'SELL', status: 'COMPLETED' }, START, START, clock())).toBeUndefined();
    expect(nextTimedEvent({ side: 'SELL', status: 'CANCELLED' }, START, START, clock())).toBeUndefined();
    expect(
      nextTimedEvent({ side: 'SELL', status: 'PLACED' }, START, START, DEFAULT_PROGRESSION_SETTINGS),
    ).toBeUndefined();
  });
});

describe('OrderProgression.settle (property)', () => {
  it('is monotone in time: settling at t1 then t2 gives exactly what settling at t2 gives', () => {
    fc.assert(
      fc.property(
        settingsArbitrary,
        fc.integer({ min: 0, max: 900_000 }),
        fc.integer({ min: 0, max: 900_000 }),
        (settings, a, b) => {
          const [t1, t2] = [START + Math.min(a, b), START + Math.max(a, b)];
          const stepwise = orders();
          const once = orders();
          const p1 = new OrderProgression(START);
          const p2 = new OrderProgression(START);
          p1.settle(stepwise, settings, t1);
          p1.settle(stepwise, settings, t2);
          p2.settle(once, settings, t2);
          expect(stepwise).toEqual(once);
          expect(historiesOf(p1, stepwise)).toEqual(historiesOf(p2, once));
        },
      ),
      { numRuns: propertyRuns(150) },
    );
  });

  it('never skips a step or its side effects: each history walks the lifecycle, at rising instants no later than now', () => {
    fc.assert(
      fc.property(settingsArbitrary, fc.integer({ min: 0, max: 2_000_000 }), (settings, elapsed) => {
        const list = orders();
        const progression = new OrderProgression(START);
        progression.settle(list, settings, START + elapsed);
        for (const order of list) {
          const history = progression.historyOf(order);
          for (let i = 1; i < history.length; i++) {
            const [before, after] = [history[i - 1]!, history[i]!];
            expect(after.at).toBeGreaterThanOrEqual(before.at);
            expect(after.at).toBeLessThanOrEqual(START + elapsed);
            if (after.by === 'platform')
              expect([before.status, after.status]).toEqual(['AWAITING_PAYMENT', 'CANCELLED']);
            else expect(LIFECYCLE[order.side][before.status]).toBe(after.status);
          }
          if (order.status !== 'CANCELLED' && history.length > 1) {
            for (const field of fieldsSetOnTheWayTo(order.side, order.status))
              expect(order[field], `${order.side} ${order.status} ${field}`).not.toBeNull();
          }
          if (history.at(-1)!.by === 'platform') expect(order.payment_transaction_reference).toBeNull();
        }
      }),
      { numRuns: propertyRuns(150) },
    );
  });
});

describe('OrderProgression.settle against a pass over every order (property)', () => {
  /** The plain rule: each order takes every step due by `now`, in turn; a model of what the queue must give. */
  function referenceSettle(
    progression: OrderProgression,
    list: OrderRecord[],
    settings: ProgressionSettings,
    since: number,
    now: number,
  ) {
    for (const order of list) {
      for (
        let event = nextTimedEvent(order, progression.enteredAt(order), since, settings);
        event && event.at <= now;
        event = nextTimedEvent(order, progression.enteredAt(order), since, settings)
      ) {
        const from = order.status;
        Object.assign(order, event.by === 'platform' ? cancelledFields(order) : advancedFields(order));
        progression.recorded(order, from, event.at, event.by, DEFAULT_PROGRESSION_SETTINGS);
      }
    }
  }

  it('gives what the plain rule gives, with control changes of random orders at random instants in between', () => {
    const change = fc.record({ after: fc.integer({ min: 0, max: 200_000 }), order: fc.nat(59), cancel: fc.boolean() });
    fc.assert(
      fc.property(settingsArbitrary, fc.array(change, { maxLength: 12 }), (settings, changes) => {
        const [fast, plain] = [orders(), orders()];
        const [queued, model] = [new OrderProgression(START), new OrderProgression(START)];
        let now = START;
        for (const { after, order: index, cancel } of changes) {
          now += after;
          queued.settle(fast, settings, now);
          referenceSettle(model, plain, settings, START, now);
          expect(fast).toEqual(plain);
          for (const [progression, list] of [
            [queued, fast],
            [model, plain],
          ] as const) {
            const order = list[index]!;
            const from = order.status;
            const fields = cancel
              ? CANCELLABLE_STATUSES.includes(from)
                ? cancelledFields(order)
                : undefined
              : LIFECYCLE[order.side][from]
                ? advancedFields(order)
                : undefined;
            if (!fields) continue;
            Object.assign(order, fields);
            progression.recorded(order, from, now, 'control', settings);
          }
        }
        queued.settle(fast, settings, now + 1_000_000);
        referenceSettle(model, plain, settings, START, now + 1_000_000);
        expect(fast).toEqual(plain);
        expect(historiesOf(queued, fast)).toEqual(historiesOf(model, plain));
      }),
      { numRuns: propertyRuns(150) },
    );
  });
});

describe('OrderProgression', () => {
  it('takes nothing before anything is due, and remembers what is due next', () => {
    const list = orders();
    const before = structuredClone(list);
    const progression = new OrderProgression(START);
    progression.settle(list, clock(), START + 9_999);
    expect(list).toEqual(before);
    progression.settle(list, clock(), START + 10_000);
    expect(list.filter((o) => o.status !== before[list.indexOf(o)]!.status).length).toBe(
      before.filter((o) => o.status === 'PLACED').length,
    );
  });

  it('polls mode: an order steps once it has been shown order_polls_per_step times; the count starts again in its new status', () => {
    const [order] = orders().filter((o) => o.status === 'PLACED' && o.side === 'SELL');
    const settings: ProgressionSettings = {
      ...DEFAULT_PROGRESSION_SETTINGS,
      order_progression: 'polls',
      order_polls_per_step: 2,
    };
    const progression = new OrderProgression(START);
    progression.shown([order!], settings, START + 1);
    expect(order!.status).toBe('PLACED');
    progression.shown([order!], settings, START + 2);
    expect(order!.status).toBe('AWAITING_TOKEN_DELIVERY');
    progression.shown([order!], settings, START + 3);
    expect(order!.status).toBe('AWAITING_TOKEN_DELIVERY');
    expect(progression.historyOf(order!).map((h) => [h.status, h.at - START, h.by])).toEqual([
      ['PLACED', Date.parse(order!.created) - START, 'fixtures'],
      ['AWAITING_TOKEN_DELIVERY', 2, 'progression'],
    ]);
  });

  it('exports and restores its state: a restored progression settles as the original would', () => {
    const original = orders();
    const progression = new OrderProgression(START);
    progression.settle(original, clock(), START + 50_000);
    const restored = new OrderProgression(0);
    restored.restoreState(JSON.parse(JSON.stringify(progression.exportState())));
    const copy = structuredClone(original);
    progression.settle(original, clock(), START + 500_000);
    restored.settle(copy, clock(), START + 500_000);
    expect(copy).toEqual(original);
    expect(historiesOf(restored, copy)).toEqual(historiesOf(progression, original));
  });
});
