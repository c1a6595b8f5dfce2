import { useEffect, useState } from 'preact/hooks';
import type { Order, OrderStatus, Schemas } from '../api.js';
import { useApp } from '../app.js';
import { accountName, Fields, Link, money, ProblemView, Table } from '../components.js';
import { NextStep } from './orders.js';
import {
  canAdvance,
  CANCELLABLE_STATUSES,
  isCancellable,
  LIFECYCLE,
  ORDER_STATUSES,
  road,
  statusLabel,
} from '../lifecycle.js';

/** The side's road as boxes and arrows, with the cancel branch; the current status marked (also for screen readers). */
function Lifecycle({ order }: { order: Order }) {
  const steps = road(order.side);
  const at = steps.indexOf(order.status);
  const cancelledFrom = order.status === 'CANCELLED';
  return (
    <figure class="lifecycle" aria-labelledby="lifecycle-caption">
      <figcaption id="lifecycle-caption">
        {order.side} lifecycle; the order is <strong>{statusLabel(order.status)}</strong>
      </figcaption>
      <ol class="road">
        {steps.map((s, i) => (
          <li
            key={s}
            class={s === order.status ? 'step current' : at > i ? 'step done' : 'step'}
            aria-current={s === order.status ? 'step' : undefined}
          >
            <span>{statusLabel(s)}</span>
            {CANCELLABLE_STATUSES.includes(s) && <small>cancellable</small>}
          </li>
        ))}
      </ol>
      <ol class="road branch">
        <li
          class={cancelledFrom ? 'step current cancelled' : 'step cancelled'}
          aria-current={cancelledFrom ? 'step' : undefined}
        >
          <span>cancelled</span>
          <small>from {CANCELLABLE_STATUSES.map(statusLabel).join(' or ')}</small>
        </li>
      </ol>
    </figure>
  );
}

/** Who acted, as the fake names it, and what that means. */
const CAUSES: Record<Schemas['OrderStatusHistoryEntry']['by'], string> = {
  fixtures: 'the seeded world, as it was made',
  investor: 'an end investor placed it',
  control: 'the control plane or the library',
  partner: 'the partner’s cancel',
  progression: 'a step of its progression',
  platform: 'the platform, at the payment deadline',
};

/** Every status the order has been in, when (tenant clock) and by what. */
function History({ entries }: { entries: Schemas['OrderStatusHistoryEntry'][] }) {
  return (
    <>
      <h2>History</h2>
      <Table
        data-testid="status-history"
        headings={['Status', 'At (tenant clock)', 'By']}
        rows={entries}
        row={(e) => (
          <tr key={`${e.status}-${e.at}`}>
            <td>
              <span class={`order-status ${e.status}`}>{statusLabel(e.status)}</span>
            </td>
            <td>
              <time dateTime={e.at}>{e.at.replace('T', ' ').slice(0, 19)}</time>
            </td>
            <td>
              <code>{e.by}</code> <span class="muted">{CAUSES[e.by]}</span>
            </td>
          </tr>
        )}
      />
    </>
  );
}

export function OrderDetail({ orderId }: { orderId: string }) {
  const app = useApp();
  const [error, setError] = useState<unknown>();
  const [forced, setForced] = useState<OrderStatus>('COMPLETED');
  const [view, setView] = useState<Schemas['ControlOrder']>();
  const w = app.world;
  // read again with the world: the history and the next step change as it does
  useEffect(() => {
    app.api.order(orderId).then(setView, () => setView(undefined));
  }, [app.api, orderId, w]);
  if (!w) return <p>Loading…</p>;
  const order = w.orders.find((o) => o.id === orderId);
  if (!order)
    return (
      <>
        <h1>No such order</h1>
        <p>
          {app.clientId} has no order <code>{orderId}</code>. <Link to="orders">Its orders</Link>
        </p>
      </>
    );
  const account = w.accounts.find((a) => a.id === order.account_id);
  const act = async (what: () => Promise<Order>, done: (o: Order) => string) => {
    try {
      setError(undefined);
      const after = await what();
      await app.refresh();
      app.notify(done(after));
    } catch (e) {
      setError(e);
      // a refusal usually means the order moved on elsewhere (a partner's cancel, a test's control call): show it as it is
      await app.refresh();
    }
  };
  const next = LIFECYCLE[order.side][order.status];
  return (
    <>
      <p class="crumbs">
        <Link to="orders">Orders</Link> /
      </p>
      <h1>
        {order.side} {order.amount_of_units} × {order.isin}
      </h1>
      <p>
        Status:{' '}
        <strong class={`order-status ${order.status}`} data-testid="order-status">
          {statusLabel(order.status)}
        </strong>{' '}
        · {money(order.value, order.currency)} · {order.market} market · account{' '}
        {account ? <Link to={`accounts/${account.id}`}>{accountName(account)}</Link> : <code>{order.account_id}</code>}
      </p>
      <Lifecycle order={order} />
      {view?.next_step && (
        <p>
          Next: <NextStep step={view.next_step} />
        </p>
      )}
      <div class="row actions">
        <button
          type="button"
          disabled={!canAdvance(order)}
          title={next ? `To ${statusLabel(next)}` : 'The end of its road'}
          onClick={() =>
            act(
              () => app.api.advanceOrder(order.id),
              (o) => `Order advanced to ${statusLabel(o.status)}.`,
            )
          }
        >
          Advance
        </button>
        <button
          type="button"
          class="danger"
          disabled={!isCancellable(order.status)}
          title={
            isCancellable(order.status)
              ? 'Cancel, as DELETE /v1/orders/{id}/ would'
              : `Only ${CANCELLABLE_STATUSES.map(statusLabel).join(' or ')} orders can be cancelled`
          }
          onClick={() =>
            act(
              () => app.api.setOrderStatus(order.id, 'CANCELLED'),
              () => 'Order cancelled.',
            )
          }
        >
          Cancel order
        </button>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void act(
              () => app.api.setOrderStatus(order.id, forced),
              (o) => `Order forced to ${statusLabel(o.status)}.`,
            );
          }}
        >
          <label>
            Force status{' '}
            <select value={forced} onChange={(e) => setForced((e.target as HTMLSelectElement).value as OrderStatus)}>
              {ORDER_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusLabel(s)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={forced === order.status}>
            Force
          </button>
        </form>
      </div>
      <ProblemView error={error} />
      {view && <History entries={view.status_history} />}
      <h2>Fields</h2>
      <Fields record={order} />
    </>
  );
}
