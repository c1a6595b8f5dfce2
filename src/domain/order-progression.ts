// Orders that move by themselves (CONTRACT §13): progress is a pure function of the tenant's clock (mode `clock`) or
// of the answers that showed an order (mode `polls`). Nothing runs on a timer: whoever reads or writes a tenant's
// orders first takes the steps its clock implies (`settle`), each at its own instant.
import type { OrderRecord, OrderStatus, Schemas } from '../api/types.js';
import { advancedFields, cancelledFields, type LifecycleFields } from './order-lifecycle.js';
import { LIFECYCLE } from './order-lifecycle-table.js';
import { DueQueue } from './due-queue.js';

type ProgressionMode = NonNullable<Schemas['ClientSettings']['order_progression']>;
type StepStatus = keyof NonNullable<Schemas['ClientSettings']['order_step_seconds']>;
export type StatusChangeBy = Schemas['OrderStatusHistoryEntry']['by'];
/** Who places orders: the control plane (or the library) and end investors; the API has no placement. */
export type PlacedBy = Extract<StatusChangeBy, 'control' | 'investor'>;

/** The settings progression reads (a client's settings, defaults filled in). */
export interface ProgressionSettings {
  order_progression: ProgressionMode;
  order_step_seconds: Record<StepStatus, number>;
  order_polls_per_step: number;
  payment_deadline_seconds: number | null;
}

export const DEFAULT_PROGRESSION_SETTINGS: ProgressionSettings = {
  order_progression: 'manual',
  order_step_seconds: { PLACED: 10, AWAITING_PAYMENT: 120, AWAITING_TOKEN_DELIVERY: 60 },
  order_polls_per_step: 3,
  payment_deadline_seconds: null,
};

/** One entry of an order's status history: the status, the instant (ms, tenant clock) it entered it, and by what. */
export interface StatusChange {
  status: OrderStatus;
  at: number;
  by: StatusChangeBy;
}

export interface TimedEvent {
  at: number;
  by: 'progression' | 'platform';
}

/**
 * The next thing time does to an order in `clock` mode, from the instant it entered its status and the instant
 * progression was switched on (time counts from the later of the two): its next lifecycle step, or the platform's
 * cancel at the payment deadline when that comes first. None for a final status or another mode.
 */
export function nextTimedEvent(
  order: Pick<OrderRecord, 'side' | 'status'>,
  enteredAt: number,
  since: number,
  settings: ProgressionSettings,
): TimedEvent | undefined {
  if (settings.order_progression !== 'clock' || LIFECYCLE[order.side][order.status] === undefined) return undefined;
  const start = Math.max(enteredAt, since);
  const stepAt = start + settings.order_step_seconds[order.status as StepStatus] * 1000;
  const deadline = settings.payment_deadline_seconds;
  // a payment that arrives at the deadline's very instant is in time
  if (order.status === 'AWAITING_PAYMENT' && deadline !== null && start + deadline * 1000 < stepAt) {
    return { at: start + deadline * 1000, by: 'platform' };
  }
  return { at: stepAt, by: 'progression' };
}

const fieldsOf = (event: TimedEvent, order: OrderRecord): LifecycleFields =>
  event.by === 'platform' ? cancelledFields(order) : advancedFields(order);

/** What a tenant file keeps of progression (STATE_DIR): histories as `[status, at, by]` triples. */
export interface ProgressionState {
  since: number;
  history: Record<string, [OrderStatus, number, StatusChangeBy][]>;
  polls: Record<string, number>;
}

/**
 * One tenant's progression: when it was switched on, each order's history (kept from its first change; before
 * that an order has been in its status since `created`), the poll counts of `polls` mode, and (`clock` mode) a queue
 * of the orders by the instant their next step is due, so a read with nothing due costs one comparison and a step
 * costs O(log n), however many orders the world holds. The queue is built at the first settle after a restart.
 */
export class OrderProgression {
  private since: number;
  private readonly history = new Map<string, StatusChange[]>();
  private readonly polls = new Map<string, number>();
  /** Each order waiting for a timed step, at that step's instant; an entry whose order has moved since is stale. */
  private readonly queue = new DueQueue<OrderRecord>();
  private queueBuilt = false;

  constructor(now: number) {
    this.since = now;
  }

  /** The instant the order entered its current status. */
  enteredAt(order: OrderRecord): number {
    return this.history.get(order.id)?.at(-1)?.at ?? Date.parse(order.created);
  }

  /**
   * Its history, oldest first. An order of the fixtures (or of a world loaded) never changed has been in its status
   * since it was created, `by: 'fixtures'`; a placed order's history starts with who placed it.
   */
  historyLength(orderId: string): number {
    return this.history.get(orderId)?.length ?? 1;
  }

  historyOf(order: OrderRecord): StatusChange[] {
    return [
      ...(this.history.get(order.id) ?? [
        { status: order.status, at: Date.parse(order.created), by: 'fixtures' as const },
      ]),
    ];
  }

  /** What the clock will do to the order next (`clock` mode), with the status it enters; none otherwise. */
  nextStep(order: OrderRecord, settings: ProgressionSettings): (TimedEvent & { status: OrderStatus }) | undefined {
    const event = nextTimedEvent(order, this.enteredAt(order), this.since, settings);
    return event && { ...event, status: event.by === 'platform' ? 'CANCELLED' : LIFECYCLE[order.side][order.status]! };
  }

  /** Records a change already written to the order (from `from` to its status now), and what it makes due. */
  recorded(order: OrderRecord, from: OrderStatus, at: number, by: StatusChangeBy, settings: ProgressionSettings): void {
    this.recordOnly(order, from, at, by);
    this.due(order, settings);
  }

  /** A new order, placed by `by` at its `created` instant: its history starts there, and it may become due. */
  placed(order: OrderRecord, settings: ProgressionSettings, by: PlacedBy): void {
    this.history.set(order.id, [{ status: order.status, at: Date.parse(order.created), by }]);
    this.due(order, settings);
  }

  /** Progression switched on or its settings changed (time counts from now), or the world replaced: look again. */
  restart(now: number): void {
    this.since = now;
    this.queue.clear();
    this.queueBuilt = false;
  }

  /** The clock set to an instant before progression began: it counts from that instant (a replay starts so). */
  startNoLaterThan(now: number): void {
    if (now < this.since) this.restart(now);
  }

  /** Back to nothing recorded (a reset: the fixtures again). */
  clear(now: number): void {
    this.history.clear();
    this.polls.clear();
    this.restart(now);
  }

  /** Forgets the orders a new world no longer has, and looks again at what is due. */
  keepOnly(orderIds: ReadonlySet<string>, now: number): void {
    for (const id of [...this.history.keys()]) if (!orderIds.has(id)) this.history.delete(id);
    for (const id of [...this.polls.keys()]) if (!orderIds.has(id)) this.polls.delete(id);
    this.restart(now);
  }

  /**
   * `clock` mode: every step (and payment deadline) due by `now` is taken, each at its own instant, earliest first,
   * with its side effects. Cheap when nothing is due. Says whether it changed an order.
   */
  settle(orders: readonly OrderRecord[], settings: ProgressionSettings, now: number): boolean {
    if (settings.order_progression !== 'clock') return false;
    let stepped = false;
    if (!this.queueBuilt) {
      for (const order of orders) this.enqueue(order, settings);
      this.queueBuilt = true;
    }
    while (this.queue.peekAt() <= now) {
      const at = this.queue.peekAt();
      const order = this.queue.pop();
      const event = nextTimedEvent(order, this.enteredAt(order), this.since, settings);
      // stale: the order moved (a cancel, a forced status) after this entry was queued; its own entry is queued too
      if (event === undefined || event.at !== at) continue;
      const from = order.status;
      Object.assign(order, fieldsOf(event, order));
      this.recordOnly(order, from, event.at, event.by);
      this.enqueue(order, settings);
      stepped = true;
    }
    return stepped;
  }

  /**
   * `polls` mode: the orders a `GET /v1/orders` answer showed; each shown often enough takes its next step now. Says
   * whether it changed an order.
   */
  shown(orders: readonly OrderRecord[], settings: ProgressionSettings, now: number): boolean {
    if (settings.order_progression !== 'polls') return false;
    let stepped = false;
    for (const order of orders) {
      if (LIFECYCLE[order.side][order.status] === undefined) continue;
      const count = (this.polls.get(order.id) ?? 0) + 1;
      if (count < settings.order_polls_per_step) {
        this.polls.set(order.id, count);
        continue;
      }
      const from = order.status;
      Object.assign(order, advancedFields(order));
      this.recordOnly(order, from, now, 'progression');
      stepped = true;
    }
    return stepped;
  }

  exportState(): ProgressionState {
    const history: ProgressionState['history'] = {};
    for (const [id, entries] of this.history) history[id] = entries.map((e) => [e.status, e.at, e.by]);
    return { since: this.since, history, polls: Object.fromEntries(this.polls) };
  }

  restoreState(state: ProgressionState): void {
    this.history.clear();
    this.polls.clear();
    for (const [id, entries] of Object.entries(state.history))
      this.history.set(
        id,
        entries.map(([status, at, by]) => ({ status, at, by })),
      );
    for (const [id, count] of Object.entries(state.polls)) this.polls.set(id, count);
    this.restart(state.since);
  }

  private recordOnly(order: OrderRecord, from: OrderStatus, at: number, by: StatusChangeBy): void {
    let entries = this.history.get(order.id);
    if (!entries)
      this.history.set(order.id, (entries = [{ status: from, at: Date.parse(order.created), by: 'fixtures' }]));
    entries.push({ status: order.status, at, by });
    this.polls.delete(order.id);
  }

  /** Queues the order's next timed step, if it has one (an unbuilt queue picks every order up when it is built). */
  private due(order: OrderRecord, settings: ProgressionSettings): void {
    if (this.queueBuilt) this.enqueue(order, settings);
  }

  private enqueue(order: OrderRecord, settings: ProgressionSettings): void {
    const event = nextTimedEvent(order, this.enteredAt(order), this.since, settings);
    if (event !== undefined) this.queue.push(event.at, order);
  }
}
