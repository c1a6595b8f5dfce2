import { describe, expect, it, vi } from 'vitest';
import type { Express } from 'express';
import type { World } from '../../src/api/types.js';
import { bearer, http, requestToken, testApp, tokenFor } from '../support/test-app.js';
import { sleep } from '../support/waits.js';

const journal = async (app: Express, query = '') =>
  (await http(app).get(`/__control/requests${query}`)).body.data as {
    id: string;
    method: string;
    path: string;
    status: number;
    client_id: string | null;
    query: Record<string, string>;
    code: string | null;
    fault_id: string | null;
  }[];
const report = async (app: Express, clientId = 'sandbox-client') =>
  (await http(app).get('/__control/report').set('X-Client-Id', clientId)).body as {
    client_id: string;
    findings: { code: string; requests: string[] }[];
  };
/** A finding as every rule writes it: with its severity, a hint and its docs section. */
const finding = (code: string, requests: unknown[]) =>
  expect.objectContaining({
    code,
    severity: expect.stringMatching(/^(error|warning)$/),
    message: expect.any(String),
    hint: expect.any(String),
    docs: `docs/readiness.md#${code}`,
    requests,
  });

describe('faults', () => {
  it('a tenant holds at most 100 faults: the 101st answers 409 limit_reached and adds nothing; another tenant is unaffected', async () => {
    const app = testApp({
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'acme', client_secret: 'acme-secret' },
      ],
    });
    for (let i = 0; i < 100; i++)
      await http(app)
        .post('/__control/faults')
        .send({ path: `/v1/orders/${i}`, status: 503 })
        .expect(201);
    const refused = await http(app).post('/__control/faults').send({ path: '/v1/accounts', status: 503 });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('limit_reached');
    expect(refused.body.detail).toContain('(100)');
    const held = (await http(app).get('/__control/faults')).body.data as { id: string; path: string }[];
    expect(held).toHaveLength(100);
    expect(held.some((f) => f.path === '/v1/accounts')).toBe(false);
    await http(app).post('/__control/faults').set('X-Client-Id', 'acme').send({ status: 503 }).expect(201);
    await http(app).delete(`/__control/faults/${held[0]!.id}`).expect(204);
    await http(app).post('/__control/faults').send({ path: '/v1/accounts', status: 503 }).expect(201);
    // each fault is small too: a path of more than 2,048 characters is refused
    const long = await http(app)
      .post('/__control/faults')
      .set('X-Client-Id', 'acme')
      .send({ path: `/${'a'.repeat(2048)}`, status: 503 });
    expect(long.status).toBe(422);
    expect(long.body.errors[0].path).toBe('/path');
  });

  it('GET /v1/orders fails twice with 503 and then succeeds; the journal shows the client tried three times', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const fault = await http(app)
      .post('/__control/faults')
      .send({ method: 'GET', path: '/v1/orders', status: 503, count: 2, retry_after_seconds: 0 });
    expect(fault.status).toBe(201);
    expect(fault.body).toMatchObject({ id: expect.any(String), status: 503, remaining: 2, retry_after_seconds: 0 });

    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await http(app).get('/v1/orders').set(bearer(token));
      statuses.push(response.status);
      if (response.status === 200) break;
      expect(response.headers['retry-after']).toBe('0');
      expect(response.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
    expect(statuses).toEqual([503, 503, 200]);
    const calls = await journal(app, '?method=GET&path=/v1/orders&client_id=sandbox-client');
    expect(calls.map((c) => c.status)).toEqual([503, 503, 200]);
    expect(calls[0]!.fault_id).toBe(fault.body.id);
    expect((await http(app).get('/__control/faults')).body.data).toEqual([]);
  });

  it('429 answers rate_limited with Retry-After (1 s unless told)', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app).post('/__control/faults').send({ path: '/v1/assets', status: 429 }).expect(201);
    const response = await http(app).get('/v1/assets').set(bearer(token));
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body.code).toBe('rate_limited');
  });

  it('other statuses answer an injected_fault problem, and * matches a segment, trailing slash or not', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app)
      .post('/__control/faults')
      .send({ method: 'delete', path: '/v1/orders/*', status: 500, count: 1 })
      .expect(201);
    const response = await http(app).delete('/v1/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6/').set(bearer(token));
    expect(response.status).toBe(500);
    expect(response.body.code).toBe('injected_fault');
  });

  it('delays by latency_ms, then answers normally', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app)
      .post('/__control/faults')
      .send({ path: '/v1/share-classes', latency_ms: 300, count: 1 })
      .expect(201);
    const started = Date.now();
    const response = await http(app).get('/v1/share-classes').set(bearer(token));
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('drops the connection, and the journal records status 0', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app).post('/__control/faults').send({ path: '/v1/assets', drop: true, count: 1 }).expect(201);
    await expect(http(app).get('/v1/assets').set(bearer(token))).rejects.toThrow();
    await sleep(50);
    expect((await journal(app, '?path=/v1/assets')).map((e) => e.status)).toEqual([0]);
    expect((await http(app).get('/v1/assets').set(bearer(token))).status).toBe(200);
  });

  it('with a probability, repeats the same pattern for the same seed', async () => {
    const pattern = async () => {
      const app = testApp();
      const token = await tokenFor(app);
      await http(app)
        .post('/__control/faults')
        .send({ path: '/v1/assets', status: 503, probability: 0.5, seed: 42, retry_after_seconds: 0 })
        .expect(201);
      const statuses = [];
      for (let i = 0; i < 16; i++) statuses.push((await http(app).get('/v1/assets').set(bearer(token))).status);
      return statuses;
    };
    const first = await pattern();
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await pattern()).toEqual(first);
  });

  it('fault the token endpoint by the client_id of the form', async () => {
    const app = testApp();
    await http(app).post('/__control/faults').send({ path: '/oauth2/token', status: 503, count: 1 }).expect(201);
    expect((await requestToken(app)).status).toBe(503);
    expect((await requestToken(app)).status).toBe(200);
  });

  it('belong to one tenant: another client is not faulted', async () => {
    const app = testApp();
    await http(app).post('/__control/clients').send({ client_id: 'b', client_secret: 'b' }).expect(201);
    await http(app).post('/__control/faults').set('X-Client-Id', 'b').send({ status: 503 }).expect(201);
    expect(
      (
        await http(app)
          .get('/v1/assets')
          .set(bearer(await tokenFor(app)))
      ).status,
    ).toBe(200);
    expect((await requestToken(app, { client_id: 'b', client_secret: 'b' })).status).toBe(503);
  });

  it('never touch the control plane, are listed, removed one by one, cleared, and reset', async () => {
    const app = testApp();
    const a = (await http(app).post('/__control/faults').send({ status: 503 })).body;
    const b = (await http(app).post('/__control/faults').send({ path: '/v1/orders', latency_ms: 10 })).body;
    expect((await http(app).get('/__control/health')).status).toBe(200);
    expect((await http(app).get('/__control/faults')).body.data.map((f: { id: string }) => f.id)).toEqual([a.id, b.id]);
    await http(app).delete(`/__control/faults/${a.id}`).expect(204);
    expect((await http(app).delete(`/__control/faults/${a.id}`)).status).toBe(404);
    await http(app).delete('/__control/faults').expect(204);
    expect((await http(app).get('/__control/faults')).body.data).toEqual([]);
    await http(app).post('/__control/faults').send({ status: 503 }).expect(201);
    await http(app).post('/__control/reset').expect(204);
    expect((await http(app).get('/__control/faults')).body.data).toEqual([]);
  });

  it('refuse a fault without effect', async () => {
    const response = await http(testApp()).post('/__control/faults').send({ path: '/v1/orders' });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('fault_without_effect');
  });
});

describe('the request journal', () => {
  it('records method, path, query, status, duration, client and time, with the X-Request-Id as its id', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const response = await http(app).get('/v1/orders?limit=2&side=BUY').set(bearer(token));
    const [, entry] = await journal(app);
    expect(entry).toMatchObject({
      id: response.headers['x-request-id'],
      method: 'GET',
      path: '/v1/orders',
      query: { limit: '2', side: 'BUY' },
      status: 200,
      client_id: 'sandbox-client',
      operation_id: 'listOrders',
    });
    expect(new Date((entry as unknown as { time: string }).time).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('never stores secrets or tokens', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app).get(`/v1/assets?access_token=${token}`).set(bearer(token));
    const raw = JSON.stringify(await journal(app));
    expect(raw).not.toContain('sandbox-secret');
    expect(raw).not.toContain(token);
    expect(raw).not.toContain(token.split('.')[2]);
    expect(raw).toContain('[redacted]');
  });

  it('filters by method, path with wildcards and client; leaves the control plane out', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const state = (await http(app).get('/__control/state')).body as World;
    await http(app).get(`/v1/accounts/${state.accounts[0]!.id}`).set(bearer(token));
    await http(app).get('/v1/accounts').set(bearer(token));
    expect((await journal(app, '?path=/v1/accounts/*')).map((e) => e.path)).toEqual([
      `/v1/accounts/${state.accounts[0]!.id}`,
    ]);
    expect((await journal(app, '?method=post')).map((e) => e.path)).toEqual(['/oauth2/token']);
    expect(await journal(app, '?client_id=nobody')).toEqual([]);
    expect((await journal(app)).some((e) => e.path.startsWith('/__control'))).toBe(false);
  });

  it('journals what fails before routing too, attributed to the claimed client', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app).post('/v1/accounts').set(bearer(token)).set('Content-Type', 'application/json').send('{"type":');
    const [entry] = await journal(app, '?method=POST&path=/v1/accounts');
    expect(entry).toMatchObject({ status: 400, code: 'malformed_body', client_id: 'sandbox-client' });
  });

  it('is a ring buffer: only the last journalSize entries stay', async () => {
    const app = testApp({ journalSize: 5 });
    const token = await tokenFor(app);
    const ids = [];
    for (let i = 0; i < 12; i++)
      ids.push((await http(app).get('/v1/assets').set(bearer(token))).headers['x-request-id']);
    expect((await journal(app)).map((e) => e.id)).toEqual(ids.slice(-5));
  });

  it('is kept by reset, which marks itself in it: listed since the last reset by default, all with since=start', async () => {
    const app = testApp();
    await http(app).post('/__control/clients').send({ client_id: 'b', client_secret: 'b' }).expect(201);
    await tokenFor(app);
    await tokenFor(app, { client_id: 'b', client_secret: 'b' });
    await http(app).post('/__control/reset').send({ client_id: 'b' }).expect(204);
    expect((await journal(app)).map((e) => e.client_id)).toEqual(['sandbox-client']);
    expect((await journal(app, '?client_id=b&since=start')).map((e) => e.client_id)).toEqual(['b']);
    const listed = (await http(app).get('/__control/requests?client_id=b')).body as {
      data: unknown[];
      since: string;
      last_reset: string;
    };
    expect(listed).toMatchObject({ data: [], since: 'reset', last_reset: expect.stringMatching(/^\d{4}-/) });
    await http(app).post('/__control/reset').expect(204);
    expect(await journal(app)).toEqual([]);
    expect(await journal(app, '?since=start')).toHaveLength(2);
  });

  it('is cleared by DELETE /__control/requests: one tenant, or every journal', async () => {
    const app = testApp();
    await http(app).post('/__control/clients').send({ client_id: 'b', client_secret: 'b' }).expect(201);
    await tokenFor(app);
    await tokenFor(app, { client_id: 'b', client_secret: 'b' });
    await http(app).get('/v1/assets').expect(401);
    await http(app).delete('/__control/requests').set('X-Client-Id', 'b').expect(204);
    expect((await journal(app, '?since=start')).map((e) => e.client_id)).toEqual(['sandbox-client', null]);
    await http(app).delete('/__control/requests').expect(204);
    expect(await journal(app, '?since=start')).toEqual([]);
  });
});

describe('the readiness report', () => {
  it('stays silent for a careful client: one token, retries after Retry-After, reads lists to the end', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app)
      .post('/__control/faults')
      .send({ path: '/v1/orders', status: 429, count: 1, retry_after_seconds: 1 })
      .expect(201);
    let page = await http(app).get('/v1/orders?limit=10').set(bearer(token));
    expect(page.status).toBe(429);
    // the wait Retry-After asks, on the clock the journal reads (Date), not in real time
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(Date.now() + Number(page.headers['retry-after']) * 1000 + 50);
      for (let skip = 0; ; skip += 10) {
        page = await http(app).get(`/v1/orders?limit=10&skip=${skip}`).set(bearer(token));
        expect(page.status).toBe(200);
        if (page.body.data.length < 10) break;
      }
      await http(app).get('/v1/assets').set(bearer(token));
      expect((await report(app)).findings).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('flags a client that fetches a token for every call', async () => {
    const app = testApp();
    for (let i = 0; i < 4; i++)
      await http(app)
        .get('/v1/assets')
        .set(bearer(await tokenFor(app)));
    const findings = (await report(app)).findings;
    expect(findings.map((f) => f.code)).toEqual(['token_per_call']);
    expect(findings[0]!.requests).toHaveLength(3);
  });

  it('flags a client that ignores 429: no retry at all, or a retry before Retry-After', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app)
      .post('/__control/faults')
      .send({ path: '/v1/assets', status: 429, count: 1, retry_after_seconds: 5 })
      .expect(201);
    const throttled = await http(app).get('/v1/assets').set(bearer(token));
    const retry = await http(app).get('/v1/assets').set(bearer(token));
    await http(app).post('/__control/faults').send({ path: '/v1/share-classes', status: 503, count: 1 }).expect(201);
    const abandoned = await http(app).get('/v1/share-classes').set(bearer(token));
    const findings = (await report(app)).findings;
    expect(findings).toEqual(
      expect.arrayContaining([
        finding('retry_ignored_retry_after', [throttled.headers['x-request-id'], retry.headers['x-request-id']]),
        finding('no_retry_after_throttling', [abandoned.headers['x-request-id']]),
      ]),
    );
  });

  it('flags a list read only to its full first page', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const first = await http(app).get('/v1/orders?limit=5').set(bearer(token));
    expect((await report(app)).findings).toEqual([finding('first_page_only', [first.headers['x-request-id']])]);
  });

  it('flags the same request answered the same 4xx three times', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await http(app).post('/v1/accounts').set(bearer(token)).send({ type: 'individual', business_name: 'X' }))
          .headers['x-request-id'],
      );
    expect((await report(app)).findings).toEqual([finding('repeated_client_error', ids)]);
  });

  it('flags cancels of orders that cannot be cancelled', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const state = (await http(app).get('/__control/state')).body as World;
    const completed = state.orders.find((o) => o.status === 'COMPLETED')!;
    const refused = await http(app).delete(`/v1/orders/${completed.id}/`).set(bearer(token));
    expect(refused.status).toBe(409);
    expect((await report(app)).findings).toEqual([
      finding('cancel_not_cancellable', [refused.headers['x-request-id']]),
    ]);
  });

  it('is per client', async () => {
    const app = testApp();
    await http(app).post('/__control/clients').send({ client_id: 'b', client_secret: 'b' }).expect(201);
    for (let i = 0; i < 4; i++)
      await http(app)
        .get('/v1/assets')
        .set(bearer(await tokenFor(app, { client_id: 'b', client_secret: 'b' })));
    expect((await report(app)).findings).toEqual([]);
    expect((await report(app, 'b')).findings.map((f) => f.code)).toEqual(['token_per_call']);
  });
});
