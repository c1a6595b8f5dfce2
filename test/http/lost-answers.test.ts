import { describe, expect, it, vi } from 'vitest';
import type { Express } from 'express';
import type { Account, OrderRecord, Schemas, World } from '../../src/api/types.js';
import { appPerFile } from '../support/tenants.js';
import { http } from '../support/test-app.js';

type Fault = Schemas['Fault'];
type JournalEntry = Schemas['JournalEntry'];
type ReadinessReport = Schemas['ReadinessReport'];

const fake = appPerFile();

/** A tenant of its own and helpers acting as it: the public API with its token, its faults, journal and report. */
async function partner() {
  const { app, clientId, token } = await fake.tenant();
  const auth = { Authorization: `Bearer ${token}` };
  const control = (method: 'get' | 'post', path: string) =>
    http(app)[method](`/__control${path}`).set('X-Client-Id', clientId);
  return {
    app,
    clientId,
    auth,
    addFault: async (fault: object): Promise<Fault> => (await control('post', '/faults').send(fault).expect(201)).body,
    faults: async (): Promise<Fault[]> => (await control('get', '/faults')).body.data,
    createAccount: (externalId: string) =>
      http(app)
        .post('/v1/accounts')
        .set(auth)
        .send({ type: 'individual', external_id: externalId, first_name: 'Ada', last_name: 'Lovelace' }),
    accountsNamed: async (externalId: string): Promise<Account[]> =>
      (await http(app).get('/v1/accounts').query({ external_id: externalId }).set(auth).expect(200)).body.data,
    /** The journal's entries of the tenant for a method and path, once `count` are written (an entry waits for its operation). */
    journal: (method: string, path: string, count = 1): Promise<JournalEntry[]> =>
      vi.waitFor(
        async () => {
          const entries = (await control('get', '/requests').query({ method, path })).body.data as JournalEntry[];
          expect(entries).toHaveLength(count);
          return entries;
        },
        { timeout: 3000, interval: 20 },
      ),
    report: async (): Promise<ReadinessReport> => (await control('get', '/report').expect(200)).body,
    world: async (): Promise<World> => (await control('get', '/state')).body,
  };
}

const placedOrderOf = async (app: Express, clientId: string, world: World): Promise<OrderRecord> => {
  const primaryWallet = new Set(world.wallets.filter((w) => w.is_primary).map((w) => w.account_id));
  const primaryPayment = new Set(world.payment_method_details.filter((p) => p.is_primary).map((p) => p.account_id));
  const account = world.accounts.find((a) => primaryWallet.has(a.id) && primaryPayment.has(a.id))!;
  const asset = world.assets.find((a) => a.tradeable)!;
  const response = await http(app).post('/__control/orders').set('X-Client-Id', clientId).send({
    account_id: account.id,
    isin: asset.isin,
    side: 'BUY',
    market: 'SECONDARY',
    amount_of_units: 1,
    value: 1000,
  });
  expect(response.status).toBe(201);
  return response.body;
};

describe('a latency fault (phase before) on a write', () => {
  it('delays the operation without losing it: a client that gives up first still finds its account, journaled status 0 and applied', async () => {
    const p = await partner();
    await p.addFault({ method: 'POST', path: '/v1/accounts', latency_ms: 800, count: 1 });
    await expect(p.createAccount('slow-1').timeout(300)).rejects.toThrow(/timeout/i);
    const [entry] = await p.journal('POST', '/v1/accounts');
    expect(entry).toMatchObject({
      method: 'POST',
      status: 0,
      applied: true,
      fault_id: expect.any(String),
      operation_id: 'createAccount',
    });
    expect(entry!.duration_ms).toBeGreaterThanOrEqual(790);
    expect(await p.accountsNamed('slow-1')).toHaveLength(1);
  });

  it('delays the answer of a client that waits, which then gets its 201', async () => {
    const p = await partner();
    await p.addFault({ method: 'POST', path: '/v1/accounts', latency_ms: 300, count: 1 });
    const started = Date.now();
    expect((await p.createAccount('slow-2')).status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await p.journal('POST', '/v1/accounts')).toMatchObject([{ status: 201, applied: true }]);
  });

  it('with a status, answers it and applies nothing', async () => {
    const p = await partner();
    await p.addFault({ method: 'POST', path: '/v1/accounts', status: 503, latency_ms: 50, count: 1 });
    expect((await p.createAccount('refused-1')).status).toBe(503);
    expect(await p.accountsNamed('refused-1')).toEqual([]);
    expect(await p.journal('POST', '/v1/accounts')).toMatchObject([
      { status: 503, applied: false, code: 'service_unavailable' },
    ]);
  });
});

describe('a fault with phase after', () => {
  it('is listed with its phase; before is the default', async () => {
    const p = await partner();
    const after = await p.addFault({ method: 'POST', path: '/v1/accounts', drop: true, phase: 'after' });
    const before = await p.addFault({ method: 'GET', status: 503 });
    expect(after.phase).toBe('after');
    expect(before.phase).toBe('before');
    expect((await p.faults()).map((f) => f.phase)).toEqual(['after', 'before']);
  });

  it('refuses a phase it does not know, naming the field', async () => {
    const p = await partner();
    const response = await http(p.app)
      .post('/__control/faults')
      .set('X-Client-Id', p.clientId)
      .send({ drop: true, phase: 'during' });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/phase' })]));
    expect(await p.faults()).toEqual([]);
  });

  it('drops the connection after the account is created: it exists, the journal says status 0 and applied', async () => {
    const p = await partner();
    const fault = await p.addFault({ method: 'POST', path: '/v1/accounts', drop: true, phase: 'after', count: 1 });
    await expect(p.createAccount('dropped-1')).rejects.toThrow();
    expect(await p.journal('POST', '/v1/accounts')).toMatchObject([{ status: 0, applied: true, fault_id: fault.id }]);
    expect(await p.accountsNamed('dropped-1')).toHaveLength(1);
  });

  it('answers the status in place of the 201, with Retry-After, after the account is created', async () => {
    const p = await partner();
    await p.addFault({
      method: 'POST',
      path: '/v1/accounts',
      status: 503,
      retry_after_seconds: 2,
      phase: 'after',
      count: 1,
    });
    const response = await p.createAccount('replaced-1');
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.body.code).toBe('service_unavailable');
    expect(await p.accountsNamed('replaced-1')).toHaveLength(1);
    expect(await p.journal('POST', '/v1/accounts')).toMatchObject([{ status: 503, applied: true }]);
  });

  it('delays the answer after the write: a client that times out finds the account written', async () => {
    const p = await partner();
    await p.addFault({ method: 'POST', path: '/v1/accounts', latency_ms: 600, phase: 'after', count: 1 });
    await expect(p.createAccount('late-1').timeout(200)).rejects.toThrow(/timeout/i);
    expect(await p.accountsNamed('late-1')).toHaveLength(1);
    expect(await p.journal('POST', '/v1/accounts')).toMatchObject([{ status: 0, applied: true }]);
  });

  it('does not strike a request the platform refuses: the 422 is answered and the fault waits for a write', async () => {
    const p = await partner();
    await p.addFault({ method: 'POST', path: '/v1/accounts', status: 503, phase: 'after', count: 1 });
    const refused = await http(p.app)
      .post('/v1/accounts')
      .set(p.auth)
      .send({ type: 'individual', dob_day: 31, dob_month: 2, dob_year: 1990 });
    expect(refused.status).toBe(422);
    expect(await p.faults()).toMatchObject([{ remaining: 1 }]);
    expect((await p.createAccount('after-refusal')).status).toBe(503);
    expect(await p.faults()).toEqual([]);
    expect((await p.journal('POST', '/v1/accounts', 2)).map((e) => [e.status, e.applied])).toEqual([
      [422, false],
      [503, true],
    ]);
  });

  it('on a cancel: the order is CANCELLED although the answer was lost, and the retry meets 409', async () => {
    const p = await partner();
    const order = await placedOrderOf(p.app, p.clientId, await p.world());
    await p.addFault({ method: 'DELETE', path: '/v1/orders/*', drop: true, phase: 'after', count: 1 });
    await expect(http(p.app).delete(`/v1/orders/${order.id}/`).set(p.auth)).rejects.toThrow();
    const retry = await http(p.app).delete(`/v1/orders/${order.id}/`).set(p.auth);
    expect(retry.status).toBe(409);
    expect(retry.body.code).toBe('order_not_cancellable');
    const orders = await http(p.app).get('/v1/orders').query({ account_id: order.account_id, limit: 1000 }).set(p.auth);
    expect(orders.body.data.find((o: { id: string }) => o.id === order.id).status).toBe('CANCELLED');
    expect((await p.journal('DELETE', '/v1/orders/*', 2)).map((e) => [e.status, e.applied])).toEqual([
      [0, true],
      [409, false],
    ]);
  });
});

describe('the readiness report after a lost answer', () => {
  it('names the blind retry that created a second account: duplicate_after_lost_answer with both requests', async () => {
    const p = await partner();
    await p.addFault({ method: 'POST', path: '/v1/accounts', drop: true, phase: 'after', count: 1 });
    await expect(p.createAccount('careless-1')).rejects.toThrow();
    expect((await p.createAccount('careless-1')).status).toBe(201);
    expect(await p.accountsNamed('careless-1')).toHaveLength(2);
    const [lost, retry] = await p.journal('POST', '/v1/accounts', 2);
    expect((await p.report()).findings).toEqual([
      expect.objectContaining({
        code: 'duplicate_after_lost_answer',
        severity: 'error',
        docs: 'docs/readiness.md#duplicate_after_lost_answer',
        requests: [lost!.id, retry!.id],
        hint: expect.stringContaining('GET /v1/accounts?external_id='),
      }),
    ]);
  });

  it('stays silent for the careful client: it looks the account up by external_id and retries only when nothing is there', async () => {
    const p = await partner();
    await p.addFault({ method: 'POST', path: '/v1/accounts', status: 503, phase: 'after', count: 1 });
    await p.addFault({ method: 'POST', path: '/v1/accounts', latency_ms: 400, phase: 'after', count: 1 });
    for (const externalId of ['careful-1', 'careful-2']) {
      const created = await p
        .createAccount(externalId)
        .timeout(200)
        .catch(() => undefined);
      if (created?.status !== 201 && (await p.accountsNamed(externalId)).length === 0)
        expect((await p.createAccount(externalId)).status).toBe(201);
      expect(await p.accountsNamed(externalId)).toHaveLength(1);
    }
    expect((await p.journal('POST', '/v1/accounts', 2)).map((e) => [e.status, e.applied])).toEqual([
      [503, true],
      [0, true],
    ]);
    expect((await p.report()).findings).toEqual([]);
  });

  it('stays silent for a cancel retried after its lost answer that met 409 and stopped', async () => {
    const p = await partner();
    const order = await placedOrderOf(p.app, p.clientId, await p.world());
    await p.addFault({ method: 'DELETE', path: '/v1/orders/*', status: 503, phase: 'after', count: 1 });
    expect((await http(p.app).delete(`/v1/orders/${order.id}/`).set(p.auth)).status).toBe(503);
    expect((await http(p.app).delete(`/v1/orders/${order.id}/`).set(p.auth)).status).toBe(409);
    await p.journal('DELETE', '/v1/orders/*', 2);
    expect((await p.report()).findings).toEqual([]);
  });
});
