import type { OrderStatus } from '../api.js';
import { useApp } from '../app.js';
import { Link } from '../components.js';
import { RequestTable } from './requests.js';
import { FaultTable } from './faults.js';

export function Overview() {
  const app = useApp();
  const w = app.world;
  const inStatus = (status: OrderStatus) => w?.orders.filter((o) => o.status === status).length;
  // each tile says what it counts: orders by the status they are in now, not by what ever happened to them
  const counts: [string, string, number | undefined][] = [
    ['accounts', 'Accounts', w?.accounts.length],
    ['orders', 'Orders, any status', w?.orders.length],
    ['orders?status=PLACED', 'Orders now in status placed', inStatus('PLACED')],
    ['orders?status=COMPLETED', 'Orders now in status completed', inStatus('COMPLETED')],
    ['catalog', 'Share classes', w?.share_classes.length],
    ['catalog', 'Assets', w?.assets.length],
    ['catalog', 'Documents', w?.documents.length],
  ];
  const mine = app.journal?.filter((e) => e.client_id === app.clientId).slice(0, 8);
  return (
    <>
      <h1>Overview of {app.clientId}</h1>
      <ul class="counts">
        {counts.map(([to, label, n]) => (
          <li key={label}>
            <Link to={to}>
              <span class="count">{n ?? '…'}</span> {label}
            </Link>
          </li>
        ))}
      </ul>
      <section aria-labelledby="faults-h">
        <h2 id="faults-h">Active faults</h2>
        {app.faults && app.faults.length > 0 ? (
          <FaultTable faults={app.faults} />
        ) : (
          <p>None: the partner's calls get their normal answers.</p>
        )}
        <p>
          <Link to="faults">Add a fault</Link>
        </p>
      </section>
      <section aria-labelledby="last-h">
        <h2 id="last-h">Last requests</h2>
        {mine && mine.length > 0 ? (
          <RequestTable entries={mine} />
        ) : (
          <p>
            No request from {app.clientId} yet. See <Link to="connect">Connect</Link> for a first call.
          </p>
        )}
        <p>
          <Link to="requests">All requests, live</Link>
        </p>
      </section>
      <section aria-labelledby="report-h">
        <h2 id="report-h">Readiness findings</h2>
        {app.report && app.report.requests_seen === 0 ? (
          <p>No requests yet: nothing to judge until the client sends one.</p>
        ) : app.report && app.report.findings.length > 0 ? (
          <ul>
            {app.report.findings.map((f, i) => (
              <li key={`${f.code}-${i}`}>
                <span class={`severity ${f.severity}`}>{f.severity}</span> <code>{f.code}</code>: {f.message}
              </li>
            ))}
          </ul>
        ) : (
          <p>No finding: nothing this client did would hurt in production.</p>
        )}
        <p>
          <Link to="report">The readiness report</Link>
        </p>
      </section>
    </>
  );
}
