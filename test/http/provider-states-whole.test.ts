import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { Schemas, World } from '../../src/api/types.js';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';

// Provider states, whole or not at all: a refused setup changes nothing, and the journal keeps of a
// setup what the state used, counted in its budgets like any other entry.
const URL = '/__control/pact/provider-states';
const recordsOf = (world: World) => ({
  accounts: world.accounts.length,
  wallets: world.wallets.length,
  payment_method_details: world.payment_method_details.length,
  orders: world.orders.length,
});
const stateOf = async (app: Express, clientId = 'sandbox-client'): Promise<World> =>
  (await http(app).get('/__control/state').set('X-Client-Id', clientId).expect(200)).body;
const usageOf = async (app: Express): Promise<Schemas['Usage']> =>
  (await http(app).get('/__control/usage').expect(200)).body;

describe('a provider state, whole or not at all', () => {
  it.each([
    ['amount_of_units 1e308', { amount_of_units: 1e308 }],
    ['a value past a safe integer', { value: 2 ** 60 }],
    ['an account the rules refuse', { account: { type: 'individual', lei: '5493001KJTIIGC8Y1R12' } }],
  ])(
    '"an order exists in status PLACED" with %s answers 422 and leaves no account, wallet or payment method, nor a step in the journal',
    async (_name, params) => {
      const app = testApp();
      const before = recordsOf(await stateOf(app));
      const refused = await http(app)
        .post(URL)
        .send({ state: 'an order exists in status PLACED', params, action: 'setup' });
      expect(refused.status).toBe(422);
      expect(recordsOf(await stateOf(app))).toEqual(before);
      // nothing made, nothing to replay: the span holds no step
      expect(
        (await usageOf(app)).largest.by_journal_bytes.filter(
          (row) => row.client_id === 'sandbox-client' && row.journal_entries > 0,
        ),
      ).toEqual([]);
    },
  );

  it('the same state with the values it can take is made, the order in its status', async () => {
    const app = testApp();
    const made = await http(app)
      .post(URL)
      .send({ state: 'an order exists in status COMPLETED', params: { amount_of_units: 3 }, action: 'setup' })
      .expect(200);
    const order = await http(app)
      .get(`/__control/orders/${made.body.orderId as string}`)
      .expect(200);
    expect(order.body.order).toMatchObject({
      status: 'COMPLETED',
      amount_of_units: 3,
      account_id: made.body.accountId,
    });
  });
});

describe('a provider state in the journal', () => {
  const CLIENTS = [
    { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
    { client_id: 'quiet', client_secret: 'quiet-secret' },
  ];
  const BUDGETS = { clients: CLIENTS, journalBytes: 300_000, journalTotalBytes: 600_000 };

  /** The quiet partner's 20 requests, then a 900 KB setup in the default tenant: what each journal holds after. */
  async function afterLargeSetup(params: Record<string, unknown>) {
    const app = testApp(BUDGETS);
    const quiet = bearer(await tokenFor(app, { client_id: 'quiet', client_secret: 'quiet-secret' }));
    for (let i = 0; i < 20; i++) await http(app).get('/v1/accounts').set(quiet).expect(200);
    const answer = await http(app).post(URL).send({ state: 'an account exists', params, action: 'setup' });
    const kept = (
      await http(app).get('/__control/requests?since=start&path=/v1/accounts').set('X-Client-Id', 'quiet').expect(200)
    ).body.data as unknown[];
    return { app, answer, kept, usage: await usageOf(app) };
  }

  it('keeps what the state used, not the rest of a 900 KB setup: the other partner keeps its 20 requests', async () => {
    const { answer, kept, usage } = await afterLargeSetup({ first_name: 'Ada', note: 'x'.repeat(900_000) });
    expect(answer.status).toBe(200);
    expect(kept).toHaveLength(20);
    const own = usage.largest.by_journal_bytes.find((row) => row.client_id === 'sandbox-client')!;
    expect(own.journal_entries).toBe(1);
    expect(own.journal_bytes).toBeLessThan(20_000);
    expect(usage.budgets.journal_total_bytes.used).toBeLessThanOrEqual(600_000);
  });

  it('a setup that used 900 KB counts them in the budgets like any other entry: past JOURNAL_BYTES it goes, and no other journal empties', async () => {
    const { app, answer, kept, usage } = await afterLargeSetup({ first_name: 'A'.repeat(900_000) });
    expect(answer.status).toBe(200);
    // the account was made as asked
    expect((await stateOf(app)).accounts.some((a) => a.first_name?.length === 900_000)).toBe(true);
    expect(kept).toHaveLength(20);
    expect(usage.budgets.journal_total_bytes.used).toBeLessThanOrEqual(600_000);
    expect(usage.budgets.journal_bytes.used).toBeLessThanOrEqual(300_000);
    // a span that lost a step says so: its replay would not start from the world the setup made
    const exported = await http(app).get('/__control/export?format=vitest');
    expect(exported.text).not.toContain('A'.repeat(1000));
  });
});
