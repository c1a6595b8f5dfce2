import type { Order } from '../api.js';
import { useApp } from '../app.js';
import { accountName, Link, money } from '../components.js';
import { ORDER_STATUSES, statusLabel } from '../lifecycle.js';
import { navigate, type Route } from '../router.js';

export function OrderTable({ orders }: { orders: Order[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Order</th>
          <th scope="col">Status</th>
          <th scope="col">Side</th>
          <th scope="col">Market</th>
          <th scope="col">ISIN</th>
          <th scope="col">Units</th>
          <th scope="col">Value</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        {orders.map((o) => (
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
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const FILTERS = ['status', 'side', 'market', 'account'] as const;

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
    .filter((o) => (!status || o.status === status) && (!side || o.side === side) && (!market || o.market === market) && (!account || o.account_id === account))
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
      <form class="filters row" onSubmit={(e) => e.preventDefault()}>
        {select('status', 'Status', status!, ORDER_STATUSES.map((s) => [s, statusLabel(s)]))}
        {select('side', 'Side', side!, [['BUY', 'BUY'], ['SELL', 'SELL']])}
        {select('market', 'Market', market!, [['PRIMARY', 'PRIMARY'], ['SECONDARY', 'SECONDARY']])}
        {select('account', 'Account', account!, (w?.accounts ?? []).map((a) => [a.id, accountName(a)]))}
      </form>
      <p>
        <Link to={`orders/new${account ? `?account=${account}` : ''}`}>Place an order</Link>
      </p>
      {!w ? <p>Loading…</p> : orders.length === 0 ? <p>No order matches.</p> : <OrderTable orders={orders} />}
    </>
  );
}
