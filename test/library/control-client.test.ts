import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ControlError,
  createControlClient,
  fetchToken,
  startServer,
  type ControlClient,
  type FakeServer,
  type World,
} from '../../src/index.js';

const CONTROL_TOKEN = 'ops';
let fake: FakeServer;
let admin: ControlClient;
let tenants = 0;

beforeAll(async () => {
  fake = await startServer({ controlToken: CONTROL_TOKEN, fixtureScale: { accounts: 4, orders: 4 } });
  admin = createControlClient({ url: `${fake.url}/`, controlToken: CONTROL_TOKEN });
});
afterAll(() => fake.stop());

/** A client of its own for each test, and the control client bound to it. */
async function tenant(): Promise<{ clientId: string; control: ControlClient }> {
  const clientId = `control-client-${++tenants}`;
  await admin.addClient({ client_id: clientId, client_secret: 'secret' });
  return { clientId, control: admin.forClient(clientId) };
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('createControlClient', () => {
  it('reads the memory budgets and their use (usage), as the operator', async () => {
    const { clientId } = await tenant();
    const usage = await admin.usage();
    expect(usage.budgets.tenant_bytes.setting).toBe('MAX_TENANT_BYTES');
    expect(usage.budgets.tenants.used).toBeGreaterThanOrEqual(2);
    expect(usage.largest.by_world_bytes.map((t) => t.client_id)).toContain(clientId);
  });

  it('sends the control token: without it every call but health is refused with a ControlError carrying the problem', async () => {
    const open = createControlClient({ url: fake.url });
    expect(await open.health()).toEqual({ status: 'ok' });
    const refused = await rejection(open.snapshot());
    expect(refused).toBeInstanceOf(ControlError);
    expect(refused).toMatchObject({
      status: 401,
      problem: { status: 401 },
      message: expect.stringMatching(/^control plane answered 401: /),
    });
  });

  it('registers and updates clients; a second registration of one id is a 409', async () => {
    const created = await admin.addClient({
      client_id: 'control-client-scoped',
      client_secret: 's',
      scopes: ['read:assets'],
    });
    expect(created).toMatchObject({ client_id: 'control-client-scoped', scopes: ['read:assets'] });
    expect(await admin.updateClient('control-client-scoped', { settings: { tax_reporting: true } })).toMatchObject({
      settings: { tax_reporting: true },
    });
    expect(await rejection(admin.addClient({ client_id: 'control-client-scoped', client_secret: 's' }))).toMatchObject({
      status: 409,
    });
  });

  it('lists the clients with their secrets, a new one among them', async () => {
    const { clientId } = await tenant();
    expect(await admin.clients()).toContainEqual(
      expect.objectContaining({ client_id: clientId, client_secret: 'secret' }),
    );
  });

  it('lists the tenant’s documents with links that download the PDF', async () => {
    const { control } = await tenant();
    const documents = await control.documents();
    expect(documents.map((d) => d.title)).toEqual((await control.snapshot()).documents.map((d) => d.title));
    const download = await fetch(documents[0]!.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^application\/pdf/);
  });

  it('reads a tenant’s world, restores a changed one, and resets it to its fixtures', async () => {
    const { control } = await tenant();
    const world: World = await control.snapshot();
    expect(world.orders.length).toBeGreaterThan(0);
    await control.restore({ ...world, orders: [] });
    expect((await control.snapshot()).orders).toEqual([]);
    await control.reset();
    expect(await control.snapshot()).toEqual(world);
  });

  it('reads, advances and sets the tenant’s clock', async () => {
    const { control } = await tenant();
    const { now } = await control.now();
    expect(Date.parse((await control.advanceClock(3600)).now) - Date.parse(now)).toBeGreaterThanOrEqual(3600_000);
    expect(await control.setClock(new Date('2030-01-02T03:04:05Z'), { frozen: true })).toEqual({
      now: '2030-01-02T03:04:05.000Z',
      frozen: true,
    });
    expect(await control.advanceClock(1)).toEqual({ now: '2030-01-02T03:04:06.000Z', frozen: true });
    expect((await control.freezeClock(false)).frozen).toBe(false);
    expect((await control.setClock('2031-01-01T00:00:00Z')).now).toMatch(/^2031-01-01T00:00:00/);
  });

  it('adds payment method details, then places, advances and forces an order', async () => {
    const { clientId, control } = await tenant();
    const world = await control.snapshot();
    const account = world.accounts.find((a) => world.wallets.some((w) => w.account_id === a.id && w.is_primary))!;
    const details = await control.addPaymentMethodDetails(account.id, {
      type: 'sepa',
      iban: 'DE89370400440532013000',
      account_holder_name: 'A. Holder',
      is_primary: true,
    });
    expect(details).toMatchObject({ account_id: account.id, iban: 'DE89370400440532013000', is_primary: true });
    const asset = world.assets.find((a) => a.subscribeable)!;
    const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)!.min_investment ?? 100_000;
    const order = await control.placeOrder({
      account_id: account.id,
      isin: asset.isin,
      side: 'BUY',
      market: 'PRIMARY',
      amount_of_units: 1,
      value: minimum,
    });
    expect(order).toMatchObject({
      status: 'PLACED',
      sender_payment_method_details: { iban: 'DE89370400440532013000' },
    });
    expect((await control.advanceOrder(order.id)).status).toBe('AWAITING_PAYMENT');
    expect((await control.setOrderStatus(order.id, 'COMPLETED')).status).toBe('COMPLETED');
    expect(fake.state(clientId).orders.find((o) => o.id === order.id)?.status).toBe('COMPLETED');
    const { status_history: history } = await control.order(order.id);
    expect(history.map((h) => [h.status, h.by])).toEqual([
      ['PLACED', 'control'],
      ['AWAITING_PAYMENT', 'control'],
      ['COMPLETED', 'control'],
    ]);
    expect(fake.orderSync(order.id, clientId).status_history).toEqual(history);
    expect(await rejection(control.advanceOrder(order.id))).toMatchObject({
      status: 409,
      problem: { code: 'order_not_advanceable' },
    });
  });

  it('adds, lists, removes and clears faults, which the tenant’s client then meets', async () => {
    const { clientId, control } = await tenant();
    const fault = await control.addFault({ method: 'GET', path: '/v1/assets', status: 503, count: 5 });
    await control.addFault({ path: '/v1/orders', latency_ms: 1 });
    expect((await control.faults()).map((f) => f.id)).toContain(fault.id);
    const token = await fetchToken(fake.url, clientId, 'secret');
    expect((await fetch(`${fake.url}/v1/assets`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(503);
    await control.removeFault(fault.id);
    expect((await control.faults()).map((f) => f.id)).not.toContain(fault.id);
    await control.clearFaults();
    expect(await control.faults()).toEqual([]);
    expect((await fetch(`${fake.url}/v1/assets`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('reads the tenant’s journal, filtered by method and path, and its readiness report', async () => {
    const { clientId, control } = await tenant();
    const token = await fetchToken(fake.url, clientId, 'secret');
    for (const path of ['/v1/assets', '/v1/share-classes'])
      await fetch(`${fake.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await control.requests()).map((r) => r.path)).toEqual(['/oauth2/token', '/v1/assets', '/v1/share-classes']);
    expect((await control.requests({ method: 'GET', path: '/v1/assets' })).map((r) => r.path)).toEqual(['/v1/assets']);
    expect(await control.report()).toEqual({
      client_id: clientId,
      requests_seen: 3,
      findings: [],
      since: 'start',
      resets: 0,
    });
  });

  it('fetchToken authenticates the way the client is registered for; fake.token() knows it', async () => {
    const { clientId } = await tenant();
    await admin.updateClient(clientId, { token_endpoint_auth_method: 'client_secret_basic' });
    await expect(fetchToken(fake.url, clientId, 'secret')).rejects.toThrow(
      /invalid_client .*registered for client_secret_basic/,
    );
    const token = await fetchToken(fake.url, clientId, 'secret', { authMethod: 'client_secret_basic' });
    expect((await fetch(`${fake.url}/v1/assets`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(typeof (await fake.token(clientId))).toBe('string');
    expect((await admin.clients()).find((c) => c.client_id === clientId)?.token_endpoint_auth_method).toBe(
      'client_secret_basic',
    );
  });

  it('fetchToken names the client and the OAuth error when the credentials are refused', async () => {
    await expect(fetchToken(fake.url, 'nobody', 'x')).rejects.toThrow(/^No token for nobody: invalid_client /);
  });

  it('with clientCredentials acts as the partner: its own tenant only, a fresh token once its tenant’s clock expired the last', async () => {
    const { clientId } = await tenant();
    const { clientId: otherId } = await tenant();
    await admin.updateClient(clientId, { scopes: ['read:accounts', 'control'] });
    const partner = createControlClient({ url: fake.url, clientCredentials: { clientId, clientSecret: 'secret' } });
    expect((await partner.clients()).map((c) => c.client_id)).toEqual([clientId]);
    await partner.advanceClock(2 * 3600); // its token (one hour) has expired on its tenant's clock: fetched again
    expect((await partner.snapshot()).accounts.length).toBeGreaterThan(0);
    expect(await rejection(partner.forClient(otherId).snapshot())).toMatchObject({
      status: 403,
      problem: { code: 'forbidden_tenant' },
    });
    expect(await rejection(partner.addClient({ client_id: 'x', client_secret: 'y' }))).toMatchObject({
      status: 403,
      problem: { code: 'operator_only' },
    });
    const withoutScope = createControlClient({
      url: fake.url,
      clientCredentials: { clientId: otherId, clientSecret: 'secret' },
    });
    expect(String(await rejection(withoutScope.snapshot()))).toMatch(/invalid_scope/);
  });
});
