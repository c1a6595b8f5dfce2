// A partner's strict usage of the published types. Type-checked (not run) in a fresh project by
// test/package/pack-install.test.ts, with strict on and skipLibCheck off.
import {
  createApp,
  createControlClient,
  ControlError,
  DomainError,
  fetchToken,
  startServer,
  type ClientCreate,
  type ControlClient,
  type FakeOptions,
  type FakeServer,
  type Schemas,
  type World,
  type components,
  type operations,
  type paths,
} from 'investment-api-fake';

const options: FakeOptions = { seed: 7, fixtureScale: { accounts: 3, orders: 5 }, logLevel: 'silent' };
const client: ClientCreate = { client_id: 'acme', client_secret: 's3cret' };

export async function typed(): Promise<void> {
  const fake: FakeServer = await startServer({ ...options, clients: [client] });
  const world: World = fake.state();
  const order: Schemas['OrderDetails'] | undefined = world.orders[0];
  if (order) {
    const status: Schemas['OrderStatus'] = order.status;
    fake.setOrderStatusSync(order.id, 'CANCELLED');
    // @ts-expect-error: not an order status of the interface
    fake.setOrderStatusSync(order.id, 'SHIPPED');
    // the deprecated name of 0.1.0 still types
    fake.setOrderStatus(order.id, 'PLACED');
    // @ts-expect-error: orders have no `price_eur` field
    void order.price_eur;
    void status;
  }
  const control: ControlClient = fake.control.forClient('acme');
  const report = await control.report();
  const codes: string[] = report.findings.map((f) => f.code);
  // @ts-expect-error: a fault needs a numeric status
  await control.addFault({ status: 'five hundred' });
  const remote = createControlClient({ url: fake.url, controlToken: 'ops' });
  const token: string = await fetchToken(fake.url, 'acme', 's3cret');
  const app = createApp({ seed: 1 });
  type ShareClassPath = paths['/v1/share-classes']['get'];
  type ListOrders = operations['listOrders'];
  type Problem = components['schemas']['Problem'];
  const error: unknown = new Error();
  if (error instanceof ControlError) void (error.problem satisfies Problem | undefined);
  if (error instanceof DomainError) void error.status;
  void [codes, remote, token, app, {} as ShareClassPath, {} as ListOrders];
  await fake.stop();
}
