import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { AppProvider, useApp, useAppState } from './app.js';
import { ProblemView } from './components.js';
import { interceptLinks, useRoute, type Route } from './router.js';
import { ClockControls, Nav, TenantPicker, TokenPrompt, WorldControls } from './shell.js';
import { AccountDetail, Accounts } from './views/accounts.js';
import { Catalog } from './views/catalog.js';
import { Connect } from './views/connect.js';
import { Faults } from './views/faults.js';
import { Fidelity } from './views/fidelity.js';
import { OrderDetail } from './views/order.js';
import { Orders } from './views/orders.js';
import { Overview } from './views/overview.js';
import { NewOrder } from './views/place-order.js';
import { Report } from './views/report.js';
import { Requests } from './views/requests.js';
import { Tenant } from './views/tenant.js';
import './styles.css';

const TITLES: Record<string, string> = {
  '': 'Overview',
  accounts: 'Accounts',
  orders: 'Orders',
  catalog: 'Catalog',
  requests: 'Requests',
  faults: 'Faults',
  report: 'Readiness report',
  fidelity: 'Fidelity',
  connect: 'Connect',
  tenant: 'Tenant',
};

function View({ route }: { route: Route }) {
  const [section = '', id] = route.segments;
  switch (section) {
    case '':
      return <Overview />;
    case 'accounts':
      return id ? <AccountDetail accountId={id} /> : <Accounts />;
    case 'orders':
      return id === 'new' ? (
        <NewOrder accountId={route.query.get('account') ?? undefined} />
      ) : id ? (
        <OrderDetail orderId={id} />
      ) : (
        <Orders route={route} />
      );
    case 'catalog':
      return <Catalog />;
    case 'requests':
      return <Requests route={route} />;
    case 'faults':
      return <Faults />;
    case 'report':
      return <Report />;
    case 'fidelity':
      return <Fidelity />;
    case 'connect':
      return <Connect />;
    case 'tenant':
      return <Tenant />;
    default:
      return (
        <>
          <h1>No such view</h1>
          <p>The console has no page at this address.</p>
        </>
      );
  }
}

function Console() {
  const app = useApp();
  const route = useRoute();
  const section = route.segments[0] ?? '';
  useEffect(() => {
    document.title = `${TITLES[section] ?? 'Console'} · investment-api-fake`;
  }, [section]);
  if (app.needsToken) return <TokenPrompt />;
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to the view
      </a>
      <header>
        <p class="brand">
          investment-api-fake <span>sandbox console</span>
        </p>
        <TenantPicker />
        <ClockControls />
        <WorldControls />
      </header>
      <Nav route={route} />
      <main id="main" tabIndex={-1}>
        <p class="notice" role="status" aria-live="polite">
          {app.notice}
        </p>
        {app.loadError !== undefined && <ProblemView error={app.loadError} />}
        {app.defaultClientId === undefined && app.loadError === undefined ? (
          <p>Connecting to the fake…</p>
        ) : (
          <View route={route} />
        )}
      </main>
    </div>
  );
}

function Root() {
  const state = useAppState();
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (root.current) interceptLinks(root.current);
  }, []);
  return (
    <div ref={root}>
      <AppProvider value={state}>
        <Console />
      </AppProvider>
    </div>
  );
}

render(<Root />, document.getElementById('app')!);
