import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { World } from '../../src/api/types.js';
import { KNOWN_STATE_NAMES } from '../../src/records/provider-state-names.js';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';

const URL = '/__control/pact/provider-states';
const change = (app: Express, body: unknown, headers: Record<string, string> = {}) =>
  http(app)
    .post(URL)
    .set(headers)
    .send(body as object);
const accountsOf = async (app: Express) =>
  ((await http(app).get('/__control/state').expect(200)).body as World).accounts.length;

describe('POST /__control/pact/provider-states', () => {
  it('answers 200 {} to a call naming no state, an empty state and a teardown, and changes nothing', async () => {
    const app = testApp();
    const before = await accountsOf(app);
    for (const body of [
      {},
      { state: '' },
      { state: '', params: {}, action: 'setup' },
      { state: 'an account exists', params: { first_name: 'Ada' }, action: 'teardown' },
    ]) {
      const answer = await change(app, body);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({});
    }
    expect(await accountsOf(app)).toBe(before);
  });

  it("takes the verifier's Authorization (the API token it is given) on an open control plane", async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const answer = await change(
      app,
      { state: 'an account exists', params: { type: 'individual', first_name: 'Ada' }, action: 'setup' },
      bearer(token),
    );
    expect(answer.status).toBe(200);
    const account = await http(app)
      .get(`/v1/accounts/${answer.body.accountId as string}`)
      .set(bearer(token))
      .expect(200);
    expect(account.body).toMatchObject({ type: 'individual', first_name: 'Ada' });
  });

  it('makes a state in the tenant of the API token it carries when the call names none; a named tenant wins', async () => {
    const scopes = ['read:accounts', 'write:accounts'] as const;
    const app = testApp({
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'acme', client_secret: 'acme-secret', scopes: [...scopes] },
      ],
    });
    const acme = await tokenFor(app, { client_id: 'acme', client_secret: 'acme-secret' });
    const sandbox = await tokenFor(app);
    const made = await change(app, { state: 'an account exists', params: { first_name: 'Wile' } }, bearer(acme));
    await http(app)
      .get(`/v1/accounts/${made.body.accountId as string}`)
      .set(bearer(acme))
      .expect(200);
    await http(app)
      .get(`/v1/accounts/${made.body.accountId as string}`)
      .set(bearer(sandbox))
      .expect(404);
    const named = await http(app)
      .post(`${URL}?client_id=sandbox-client`)
      .set(bearer(acme))
      .send({ state: 'an account exists' });
    await http(app)
      .get(`/v1/accounts/${named.body.accountId as string}`)
      .set(bearer(sandbox))
      .expect(200);
  });

  it("with CONTROL_TOKEN, takes a token whose client holds the scope control, acting on that client's tenant", async () => {
    const scopes = [
      'read:accounts',
      'write:accounts',
      'read:orders',
      'write:orders',
      'read:assets',
      'read:documents',
      'control',
    ] as const;
    const app = testApp({
      controlToken: 'operator-secret',
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'acme', client_secret: 'acme-secret', scopes: [...scopes] },
      ],
    });
    const token = await tokenFor(app, {
      client_id: 'acme',
      client_secret: 'acme-secret',
      scope: 'openid offline control',
    });
    const answer = await change(app, { state: 'an account exists', params: { first_name: 'Wile' } }, bearer(token));
    expect(answer.status).toBe(200);
    // the same token reaches the API: the verifier's one custom header serves both
    await http(app)
      .get(`/v1/accounts/${answer.body.accountId as string}`)
      .set(bearer(token))
      .expect(200);
    const apiOnly = await tokenFor(app, { client_id: 'acme', client_secret: 'acme-secret' });
    expect((await change(app, { state: '' }, bearer(apiOnly))).status).toBe(403);
  });

  it('names the known states when it does not know the one asked for (422 unknown_provider_state)', async () => {
    const answer = await change(testApp(), { state: 'a unicorn exists', action: 'setup' });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('unknown_provider_state');
    for (const name of KNOWN_STATE_NAMES) expect(answer.body.detail).toContain(`"${name}"`);
  });

  it('makes an order in the status its name says, for an account with a primary wallet and payment method', async () => {
    const app = testApp();
    const answer = await change(app, {
      state: 'an order exists in status AWAITING_PAYMENT',
      params: { side: 'BUY', market: 'PRIMARY', amount_of_units: 2, value: 100 },
    });
    expect(answer.status).toBe(200);
    const order = await http(app)
      .get(`/__control/orders/${answer.body.orderId as string}`)
      .expect(200);
    expect(order.body.order).toMatchObject({
      status: 'AWAITING_PAYMENT',
      side: 'BUY',
      account_id: answer.body.accountId,
    });
    expect(order.body.status_history.map((h: { status: string }) => h.status)).toEqual(['PLACED', 'AWAITING_PAYMENT']);
  });

  it('makes a wallet with its account, and answers the same wallet when its address is there already', async () => {
    const app = testApp();
    const params = {
      wallet_address: '0x0000000000000000000000000000000000000ada',
      is_primary: true,
      account: { type: 'business', business_name: 'Acme' },
    };
    const first = await change(app, { state: 'a wallet exists', params });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accountId: expect.any(String), walletId: expect.any(String) });
    expect((await change(app, { state: 'a wallet exists', params })).body).toEqual(first.body);
    const world = (await http(app).get('/__control/state')).body as World;
    expect(world.accounts.find((a) => a.id === first.body.accountId)).toMatchObject({
      type: 'business',
      business_name: 'Acme',
    });
  });

  it('makes payment method details and finds the catalog records the world has', async () => {
    const app = testApp();
    const method = await change(app, {
      state: 'payment method details exist',
      params: { iban: 'DE89 3704 0044 0532 0130 00', account_holder_name: 'Ada', is_primary: true },
    });
    expect(method.body).toEqual({ accountId: expect.any(String), paymentMethodDetailsId: expect.any(String) });
    const world = (await http(app).get('/__control/state')).body as World;
    expect((await change(app, { state: 'an asset exists', params: { isin: 'NOT-IN-THIS-WORLD' } })).body).toEqual({
      isin: world.assets[0]!.isin,
    });
    expect((await change(app, { state: 'an asset exists', params: { isin: world.assets[1]!.isin } })).body).toEqual({
      isin: world.assets[1]!.isin,
    });
    expect((await change(app, { state: 'a feeder fund exists' })).body).toEqual({
      abbreviation: world.feeder_funds[0]!.abbreviation,
    });
    expect((await change(app, { state: 'a custom offering exists' })).body).toEqual({
      isin: expect.any(String),
      customOfferingId: expect.any(String),
    });
  });

  it('refuses params that break the rules as the API would, and bad or oversized fields, changing nothing', async () => {
    const app = testApp();
    const before = await accountsOf(app);
    const refused = [
      { state: 'an account exists', params: { type: 'individual', dob_day: 'first' } },
      { state: 'an account exists', params: { type: 'individual', lei: '5493001KJTIIGC8Y1R12' } },
      { state: 'a wallet exists', params: { wallet_address: 'not-an-address' } },
      { state: 'payment method details exist', params: { iban: 'DE00 0000', account_holder_name: 'Ada' } },
      { state: 'x'.repeat(201) },
      { state: 'an account exists', params: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, i])) },
      { state: 'an account exists', action: 'delete' },
      { state: 'an account exists', ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`extra${i}`, i])) },
    ];
    for (const body of refused) {
      const answer = await change(app, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
    }
    expect(await accountsOf(app)).toBe(before);
  });

  it("refuses an order's state in a tenant without room for its four records before making its account (409 limit_reached)", async () => {
    const full = testApp({ maxRecordsPerTenant: 1 });
    const state = await http(full).get('/__control/state').expect(200);
    const world = state.body as World;
    const held =
      world.accounts.length + world.wallets.length + world.payment_method_details.length + world.orders.length;
    const app = testApp({ maxRecordsPerTenant: held + 3 });
    const before = await accountsOf(app);
    const answer = await change(app, { state: 'an order exists in status PLACED', action: 'setup' });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('limit_reached');
    expect(await accountsOf(app)).toBe(before);
    // with room for all four, the same state is made
    expect(
      (
        await change(testApp({ maxRecordsPerTenant: held + 4 }), {
          state: 'an order exists in status PLACED',
          action: 'setup',
        })
      ).status,
    ).toBe(200);
  });

  it('names a missing member of params by its pointer under /params', async () => {
    const answer = await change(testApp(), { state: 'a wallet exists', params: { address: 'x' } });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toMatch(
      /^The state's params are not a WalletRegister: \/params must have required property 'wallet_address'/,
    );
  });
});
