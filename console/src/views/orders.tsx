import type { Order, Schemas } from '../api.js';
import { tenantNow, useApp } from '../app.js';
import { accountName, Link, money, Table } from '../components.js';
import { ORDER_STATUSES, statusLabel } from '../lifecycle.js';
import { navigate, type Route } from '../router.js';

/** How long until a step, as a countdown: `0:07`, `2:00`, `1:05:00`; `now` once due (the next read shows it taken). */
function countdown(ms: number): string {
  if (ms <= 0) return 'now';
  const seconds = Math.ceil(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** The step the tenant's clock brings an order next, and in how long. */
export function NextStep({ step }: { step: Schemas['OrderNextStep'] | undefined }) {
  const app = useApp();
  if (!step || !app.clock) return <span class="muted">—</span>;
  const left = Date.parse(step.at) - tenantNow(app.clock).getTime();
  return (
    <span data-testid="next-step" title={`${step.at} (${step.by})`}>
      {step.by === 'platform' ? 'cancelled by the platform' : statusLabel(step.status)} in{' '}
      <time dateTime={step.at}>{countdown(left)}</time>
    </span>
  );
}

export function OrderTable({ orders }: { orders: Order[] }) {
  const { nextSteps } = useApp();
  return (
    <Table
      headings={['Order', 'Status', 'Side', 'Market', 'ISIN', 'Units', 'Value', 'Created', nextSteps && 'Next step']}
      rows={orders}
      row={(o) => (
        <tr key={o.id}>
          <td>
            <Link to={`orders/${o.id}`} class="mono">
              {o.id.slice(0, 8)}
            </Link>
          </td>
          <td>
            <span class={`order-status ${o.status}`}>{statusLabel(o.status)}</span>
          </td>
          <td>{o.side}</td>
          <td>{o.market}</td>
          <td class="mono">{o.isin}</td>
          <td class="num">{o.amount_of_units}</td>
          <td class="num">{money(o.value, o.currency)}</td>
          <td>{o.created.slice(0, 16).replace('T', ' ')}</td>
          {nextSteps && (
            <td>
              <NextStep step={nextSteps.get(o.id) ?? undefined} />
            </td>
          )}
        </tr>
      )}
    />
  );
}

const FILTERS = ['status', 'side', 'market', 'account'] as const;

function describeLiving(app: ReturnType<typeof useApp>): string {
  const settings = app.clients?.find((c) => c.client_id === app.clientId)?.settings;
  const parts: string[] = [];
  if (settings?.order_progression === 'clock') parts.push('orders take their steps on the tenant clock');
  if ((settings?.investor_activity_per_hour ?? 0) > 0)
    parts.push(`end investors place about ${settings!.investor_activity_per_hour} orders an hour`);
  return parts.join('; ');
}

export function Orders({ route }: { route: Route }) {
  const app = useApp();
  const w = app.world;
  const q = route.query;
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(q);
    if (value) next.set(key, value);
    else next.delete(key);
    navigate(`orders${next.size > 0 ? `?${next}` : ''}`, { replace: true });
  };
  const [status, side, market, account] = FILTERS.map((k) => q.get(k) ?? '');
  const orders = (w?.orders ?? [])
    .filter(
      (o) =>
        (!status || o.status === status) &&
        (!side || o.side === side) &&
        (!market || o.market === market) &&
        (!account || o.account_id === account),
    )
    .slice()
    .reverse();
  const select = (key: string, label: string, value: string, options: [string, string][]) => (
    <label>
      {label}{' '}
      <select value={value} onChange={(e) => set(key, (e.target as HTMLSelectElement).value)}>
        <option value="">any</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <>
      <h1>Orders of {app.clientId}</h1>
      {app.living && (
        <p data-testid="living">
          This world moves by itself ({describeLiving(app)}): the list is read every second. Switch it in{' '}
          <Link to="tenant">the tenant view</Link>.
        </p>
      )}
      <form class="filters row" onSubmit={(e) => e.preventDefault()}>
        {select(
          'status',
          'Status',
          status!,
          ORDER_STATUSES.map((s) => [s, statusLabel(s)]),
        )}
        {select('side', 'Side', side!, [
          ['BUY', 'BUY'],
          ['SELL', 'SELL'],
        ])}
        {select('market', 'Market', market!, [
          ['PRIMARY', 'PRIMARY'],
          ['SECONDARY', 'SECONDARY'],
        ])}
        {select(
          'account',
          'Account',
          account!,
          (w?.accounts ?? []).map((a) => [a.id, accountName(a)]),
        )}
      </form>
      <p>
        <Link to={`orders/new${account ? `?account=${account}` : ''}`}>Place an order</Link>
      </p>
      {!w ? <p>Loading…</p> : orders.length === 0 ? <p>No order matches.</p> : <OrderTable orders={orders} />}
    </>
  );
}
