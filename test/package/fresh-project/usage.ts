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
  type RequestPattern,
  VerificationError,
} from 'investment-api-fake';
import { matchers } from 'investment-api-fake/vitest';
import { expect } from 'vitest';

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
    // @ts-expect-error: orders have no `price_eur` field
    void order.price_eur;
    void status;
  }
  const control: ControlClient = fake.control.forClient('acme');
  // another tenant's client is the same typed client, no `any`
  // @ts-expect-error: not a call of the control client
  void control.forClient('beta').thisDoesNotExist(42);
  const otherReport: Promise<{ findings: { code: string }[] }> = control.forClient('beta').report();
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
  // the proof: verify in process and over HTTP, the matchers typed on vitest's expect
  const pattern: RequestPattern = { operation: 'listOrders', query: { order_status: 'PLACED' }, status: 200 };
  // @ts-expect-error: not an operation of the document
  fake.verify({ operation: 'listOrder' });
  // @ts-expect-error: not an operation of the document, over HTTP either
  void control.verify({ operation: 'cancelOrders' }, { exactly: 1 });
  const verified: number = fake.verify(pattern, { at_least: 1 }).matched;
  const remoteVerified: Promise<{ matched: number }> = control.verify(pattern, { exactly: 2 });
  const severities: ('error' | 'warning')[] = fake.report().findings.map((f) => f.severity);
  expect.extend(matchers);
  expect(fake).toHaveReceived(pattern, { at_most: 3 });
  expect(fake).toHaveNoReadinessFindings({ allow: ['over_polling'] });
  await expect(control).toHaveNoReadinessFindings();
  // @ts-expect-error: not a rule of the readiness report
  expect(fake).toHaveNoReadinessFindings({ allow: ['too_slow'] });
  // the journal across resets: verify since the last reset unless told, the report and exports over the whole journal
  const sinceStart: number = fake.verify(pattern, undefined, { since: 'start' }).matched;
  expect(fake).toHaveReceived(pattern, { exactly: 1 }, { since: 'start' });
  expect(fake).toHaveNoReadinessFindings({ since: 'reset' });
  const har: string = fake.exportRequests('har', { since: 'reset' });
  fake.clearRequests();
  await control.clearRequests();
  // @ts-expect-error: a span is `reset` or `start`
  fake.report({ since: 'yesterday' });
  void [sinceStart, har];
  if (error instanceof VerificationError) void error.failure.near_misses;
  void [
    codes,
    remote,
    token,
    app,
    otherReport,
    {} as ShareClassPath,
    {} as ListOrders,
    verified,
    remoteVerified,
    severities,
  ];
  await fake.stop();
}
