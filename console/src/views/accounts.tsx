import { useApp } from '../app.js';
import { accountName, Fields, Link, show, Table } from '../components.js';
import { OrderTable } from './orders.js';
import { PlaceOrder } from './place-order.js';

export function Accounts() {
  const app = useApp();
  const w = app.world;
  return (
    <>
      <h1>Accounts of {app.clientId}</h1>
      {!w ? (
        <p>Loading…</p>
      ) : (
        <Table
          headings={['Name', 'Type', 'External id', 'Country', 'Wallets', 'Orders', 'Created']}
          rows={w.accounts}
          row={(a) => (
            <tr key={a.id}>
              <td>
                <Link to={`accounts/${a.id}`}>{accountName(a)}</Link>
              </td>
              <td>{a.type}</td>
              <td>{show(a.external_id)}</td>
              <td>{show(a.country)}</td>
              <td class="num">{w.wallets.filter((x) => x.account_id === a.id).length}</td>
              <td class="num">{w.orders.filter((o) => o.account_id === a.id).length}</td>
              <td>{a.created.slice(0, 10)}</td>
            </tr>
          )}
        />
      )}
    </>
  );
}

export function AccountDetail({ accountId }: { accountId: string }) {
  const app = useApp();
  const w = app.world;
  if (!w) return <p>Loading…</p>;
  const account = w.accounts.find((a) => a.id === accountId);
  if (!account)
    return (
      <>
        <h1>No such account</h1>
        <p>
          {app.clientId} has no account <code>{accountId}</code>. <Link to="accounts">Its accounts</Link>
        </p>
      </>
    );
  const wallets = w.wallets.filter((x) => x.account_id === account.id);
  const methods = w.payment_method_details.filter((p) => p.account_id === account.id);
  const orders = w.orders.filter((o) => o.account_id === account.id);
  return (
    <>
      <p class="crumbs">
        <Link to="accounts">Accounts</Link> /
      </p>
      <h1>{accountName(account)}</h1>
      <Fields record={account} />
      <h2>Wallets</h2>
      {wallets.length === 0 ? (
        <p>None.</p>
      ) : (
        <Table
          headings={['Address', 'Chain', 'Primary', 'Id']}
          rows={wallets}
          row={(x) => (
            <tr key={x.id}>
              <td class="mono">{x.wallet_address}</td>
              <td>{x.chain}</td>
              <td>{x.is_primary ? <strong>primary</strong> : 'no'}</td>
              <td class="mono">{x.id}</td>
            </tr>
          )}
        />
      )}
      <h2>Payment methods</h2>
      {methods.length === 0 ? (
        <p>None.</p>
      ) : (
        <Table
          headings={['IBAN', 'Holder', 'Type', 'Primary', 'Id']}
          rows={methods}
          row={(p) => (
            <tr key={p.id}>
              <td class="mono">{p.iban}</td>
              <td>{p.account_holder_name}</td>
              <td>{p.type}</td>
              <td>{p.is_primary ? <strong>primary</strong> : 'no'}</td>
              <td class="mono">{p.id}</td>
            </tr>
          )}
        />
      )}
      <h2>Orders</h2>
      {orders.length === 0 ? <p>None.</p> : <OrderTable orders={orders} />}
      <PlaceOrder accountId={account.id} />
    </>
  );
}
