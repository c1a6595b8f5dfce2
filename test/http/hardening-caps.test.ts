import { describe, expect, it } from 'vitest';
import type { World } from '../../src/api/types.js';
import { optionsFromCli } from '../../src/config.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

const IBAN = 'DE89370400440532013000';
const recordsOf = (world: World) =>
  world.accounts.length + world.wallets.length + world.payment_method_details.length + world.orders.length;

describe('MAX_RECORDS_PER_TENANT', () => {
  it('a create past the cap answers 409 limit_reached naming the setting, and creates nothing', async () => {
    const probe = (await http(testApp()).get('/__control/state')).body as World;
    const app = testApp({ maxRecordsPerTenant: recordsOf(probe) + 2 });
    const auth = { Authorization: `Bearer ${await tokenFor(app)}` };
    await http(app).post('/v1/accounts').set(auth).send({ type: 'individual' }).expect(201);
    // one record of room left: an account with a payment method needs two
    const refused = await http(app)
      .post('/v1/accounts')
      .set(auth)
      .send({ type: 'individual', payment_methods: [{ type: 'sepa', iban: IBAN, account_holder_name: 'A' }] });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('limit_reached');
    expect(refused.body.detail).toMatch(/MAX_RECORDS_PER_TENANT \(\d+\)/);
    expect(refused.body.detail).toMatch(/reset/i);
    const after = (await http(app).get('/__control/state')).body as World;
    expect(recordsOf(after)).toBe(recordsOf(probe) + 1);

    await http(app).post('/v1/accounts').set(auth).send({ type: 'business' }).expect(201);
    const accountId = after.accounts[0]!.id;
    const wallet = await http(app)
      .post(`/v1/accounts/${accountId}/wallets`)
      .set(auth)
      .send({ chain: 'polygon', wallet_address: `0x${'ab'.repeat(20)}` });
    expect(wallet.status).toBe(409);
    expect(wallet.body.code).toBe('limit_reached');
    const details = await http(app)
      .post(`/__control/accounts/${accountId}/payment-method-details`)
      .send({ type: 'sepa', iban: IBAN, account_holder_name: 'A' });
    expect(details.status).toBe(409);
  });

  it('placing an order past the cap answers 409 limit_reached; a reset makes room again', async () => {
    const probe = (await http(testApp()).get('/__control/state')).body as World;
    const app = testApp({ maxRecordsPerTenant: recordsOf(probe) });
    const order = probe.orders.find((o) => o.status === 'PLACED')!;
    const placement = {
      account_id: order.account_id,
      isin: order.isin,
      side: order.side,
      market: order.market,
      amount_of_units: 1,
      value: 10_000_000,
    };
    const refused = await http(app).post('/__control/orders').send(placement);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('limit_reached');
  });

  it('a snapshot above the cap is refused by PUT /__control/state, nothing changed', async () => {
    const app = testApp({ maxRecordsPerTenant: 5 });
    const before = (await http(app).get('/__control/state')).body as World;
    const response = await http(app).put('/__control/state').send(before);
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('limit_reached');
    expect((await http(app).get('/__control/state')).body).toEqual(before);
  });

  it('the fixtures may start above the cap: reads work, growth does not', async () => {
    const app = testApp({ maxRecordsPerTenant: 1 });
    const auth = { Authorization: `Bearer ${await tokenFor(app)}` };
    expect((await http(app).get('/v1/accounts').set(auth)).status).toBe(200);
    expect((await http(app).post('/v1/accounts').set(auth).send({ type: 'individual' })).status).toBe(409);
  });
});

describe('MAX_TENANTS', () => {
  it('a client past the cap answers 409 limit_reached naming MAX_TENANTS', async () => {
    const app = testApp({ maxTenants: 2 });
    await http(app).post('/__control/clients').send({ client_id: 'second', client_secret: 's' }).expect(201);
    const refused = await http(app).post('/__control/clients').send({ client_id: 'third', client_secret: 's' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('limit_reached');
    expect(refused.body.detail).toMatch(/MAX_TENANTS/);
    expect((await http(app).get('/__control/state').set('X-Client-Id', 'third')).status).toBe(404);
  });

  it('more configured clients than the cap fail at startup with a clear message', () => {
    expect(() =>
      testApp({
        maxTenants: 1,
        clients: [
          { client_id: 'a', client_secret: 'a' },
          { client_id: 'b', client_secret: 'b' },
        ],
      }),
    ).toThrow(/MAX_TENANTS/);
  });
});

describe('configuration', () => {
  it('MAX_TENANTS, MAX_RECORDS_PER_TENANT and ALLOWED_HOSTS are read from the environment', () => {
    const options = optionsFromCli([], {
      MAX_TENANTS: '50',
      MAX_RECORDS_PER_TENANT: '2000',
      ALLOWED_HOSTS: 'fake.ci.example, .corp.internal',
    });
    expect(options).toMatchObject({
      maxTenants: 50,
      maxRecordsPerTenant: 2000,
      allowedHosts: ['fake.ci.example', '.corp.internal'],
    });
  });

  it('a cap that is not a positive integer is a configuration error', () => {
    expect(() => optionsFromCli([], { MAX_TENANTS: '0' })).toThrow(/MAX_TENANTS must be an integer/);
    expect(() => optionsFromCli([], { MAX_RECORDS_PER_TENANT: 'lots' })).toThrow(/MAX_RECORDS_PER_TENANT/);
  });
});
