import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { bearer, http, requestToken, testApp, tokenFor } from '../support/test-app.js';

const verify = (app: Express, body: unknown, clientId?: string) => {
  const call = http(app).post('/__control/verify');
  return (clientId ? call.set('X-Client-Id', clientId) : call).send(body as object);
};

async function clientWithOrders() {
  const app = testApp();
  const token = await tokenFor(app);
  const ids: Record<string, string> = {};
  for (const status of ['COMPLETED', 'CANCELLED', 'PLACED']) {
    ids[status] = (await http(app).get(`/v1/orders?order_status=${status}&limit=1000`).set(bearer(token))).headers[
      'x-request-id'
    ]!;
  }
  return { app, token, ids };
}

describe('POST /__control/verify', () => {
  it('answers the matching requests when the count holds: operation and a subset of the query', async () => {
    const { app, ids } = await clientWithOrders();
    const response = await verify(app, { request: { operation: 'listOrders', query: { order_status: 'PLACED' } } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ matched: 1, requests: [ids.PLACED] });
    expect(
      (
        await verify(app, {
          request: { method: 'get', path: '/v1/orders', query: { limit: 1000 } },
          count: { exactly: 3 },
        })
      ).body.matched,
    ).toBe(3);
    expect(
      (await verify(app, { request: { operation: 'listOrders', status: 200 }, count: { at_most: 3 } })).status,
    ).toBe(200);
  });

  it('answers 409 verification_failed with near misses naming the fields that differ, fewest first', async () => {
    const { app, ids } = await clientWithOrders();
    const response = await verify(app, {
      request: { method: 'GET', path: '/v1/orders', query: { order_status: 'AWAITING_PAYMENT' } },
    });
    expect(response.status).toBe(409);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ code: 'verification_failed', status: 409, matched: 0, requests: [] });
    expect(response.body.detail).toMatch(
      /at least 1 request\(s\) matching GET, \/v1\/orders, query order_status=AWAITING_PAYMENT; 0 matched/,
    );
    const misses = response.body.near_misses as {
      request: { id: string };
      differences: { field: string; expected: unknown; actual: unknown }[];
    }[];
    // the three list reads differ in the status alone, newest first; the token request differs in more
    expect(misses.map((m) => m.request.id)).toEqual([ids.PLACED, ids.CANCELLED, ids.COMPLETED, '1']);
    expect(misses[0]!.differences).toEqual([
      { field: 'query.order_status', expected: 'AWAITING_PAYMENT', actual: 'PLACED' },
    ]);
    expect(misses[3]!.differences.map((d) => d.field)).toEqual(['method', 'path', 'query.order_status']);
    expect(misses[3]!.differences[2]).toEqual({
      field: 'query.order_status',
      expected: 'AWAITING_PAYMENT',
      actual: null,
    });
  });

  it('fails a count exceeded, naming the requests that matched', async () => {
    const { app, ids } = await clientWithOrders();
    const response = await verify(app, { request: { operation: 'listOrders' }, count: { at_most: 2 } });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ matched: 3, requests: [ids.COMPLETED, ids.CANCELLED, ids.PLACED] });
    expect(response.body.detail).toMatch(
      /^Expected at most 2 request\(s\) matching operation listOrders; 3 matched\.$/,
    );
  });

  it('near misses are five at most', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    for (let i = 0; i < 8; i++)
      await http(app)
        .get(`/v1/assets?limit=${i + 1}`)
        .set(bearer(token));
    const response = await verify(app, { request: { operation: 'listAssets', query: { limit: 100 } } });
    expect(response.status).toBe(409);
    expect(response.body.near_misses).toHaveLength(5);
  });

  it('matches a subset of a JSON body, objects member by member and arrays element by element', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const wallet = `0x${'a'.repeat(40)}`;
    const created = await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .send({ type: 'individual', first_name: 'Ada', wallets: [{ wallet_address: wallet }] });
    expect(created.status).toBe(201);
    expect(
      (
        await verify(app, {
          request: {
            operation: 'createAccount',
            body: { first_name: 'Ada', wallets: [{ wallet_address: wallet }] },
            status: 201,
          },
        })
      ).body.matched,
    ).toBe(1);
    const miss = await verify(app, {
      request: { operation: 'createAccount', body: { first_name: 'Grace', wallets: [] } },
    });
    expect(miss.status).toBe(409);
    expect(miss.body.near_misses[0].differences).toEqual([
      { field: 'body.first_name', expected: 'Grace', actual: 'Ada' },
      { field: 'body.wallets', expected: [], actual: [{ wallet_address: wallet }] },
    ]);
    expect(miss.body.near_misses[0].body).toEqual({
      type: 'individual',
      first_name: 'Ada',
      wallets: [{ wallet_address: wallet }],
    });
  });

  it('matches form fields of a token request, whose secret the journal never kept', async () => {
    const app = testApp();
    await tokenFor(app);
    expect(
      (
        await verify(app, {
          request: { path: '/oauth2/token', body: { grant_type: 'client_credentials', scope: 'openid offline' } },
        })
      ).status,
    ).toBe(200);
    const miss = await verify(app, { request: { path: '/oauth2/token', body: { client_secret: 'sandbox-secret' } } });
    expect(miss.status).toBe(409);
    expect(miss.body.near_misses[0].differences).toEqual([
      { field: 'body.client_secret', expected: 'sandbox-secret', actual: '[redacted]' },
    ]);
    expect(JSON.stringify(miss.body.near_misses[0].request)).not.toContain('sandbox-secret');
  });

  it('takes the journal path patterns: * for a segment, the trailing slash making no difference', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app).delete('/v1/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6/').set(bearer(token)).expect(404);
    for (const path of ['/v1/orders/*', '/v1/orders/{order_id}/', '/v1/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6']) {
      expect(
        (await verify(app, { request: { method: 'DELETE', path, status: 404 }, count: { exactly: 1 } })).status,
        path,
      ).toBe(200);
    }
  });

  it("counts the tenant's verified requests only", async () => {
    const app = testApp();
    await http(app).post('/__control/clients').send({ client_id: 'other', client_secret: 'other-secret' }).expect(201);
    const other = await tokenFor(app, { client_id: 'other', client_secret: 'other-secret' });
    await http(app).get('/v1/assets').set(bearer(other)).expect(200);
    await http(app).get('/v1/assets').set(bearer('forged.token.value')).expect(401);
    await requestToken(app, { client_secret: 'wrong' }).expect(401);
    expect((await verify(app, { request: {}, count: { exactly: 0 } })).status).toBe(200);
    expect((await verify(app, { request: { operation: 'listAssets' }, count: { exactly: 1 } }, 'other')).status).toBe(
      200,
    );
  });

  it('is an empty count by default: at least one', async () => {
    const app = testApp();
    const response = await verify(app, { request: { operation: 'listAssets' } });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ matched: 0, near_misses: [] });
  });

  it.each([
    [{}, /request/],
    [{ request: { verb: 'GET' } }, /verb/],
    [{ request: { path: 'v1/orders' } }, /path/],
    [{ request: { status: 'ok' } }, /status/],
    [{ request: { query: { limit: { gt: 1 } } } }, /query/],
    [{ request: {}, count: { at_least: 1, at_most: 2 } }, /count/],
    [{ request: {}, count: { exactly: -1 } }, /exactly/],
    [{ request: {}, count: {} }, /count/],
  ])('refuses a bad pattern %j with 422 naming the field', async (body, field) => {
    const response = await verify(testApp(), body);
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('validation_error');
    expect(JSON.stringify(response.body.errors)).toMatch(field);
  });

  it('refuses an operation the document does not have, and a body that is not JSON', async () => {
    const app = testApp();
    const unknown = await verify(app, { request: { operation: 'listPizzas' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toContain('listPizzas');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ location: 'body', path: '/request/operation' })]);
    expect((await http(app).post('/__control/verify').type('form').send('request=x')).status).toBe(415);
  });
});

describe('the journal keeps bodies, bounded', () => {
  it('cuts a body at 8 KiB: a cut body matches no body pattern and says so in the export', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const long = 'x'.repeat(9000);
    await http(app).post('/v1/accounts').set(bearer(token)).send({ type: 'individual', first_name: long }).expect(201);
    expect((await verify(app, { request: { operation: 'createAccount' } })).status).toBe(200);
    const miss = await verify(app, { request: { operation: 'createAccount', body: { type: 'individual' } } });
    expect(miss.status).toBe(409);
    expect(miss.body.near_misses[0]).toMatchObject({
      body: null,
      differences: [{ field: 'body', expected: { type: 'individual' }, actual: null }],
    });
    const har = (await http(app).get('/__control/export?format=har')).body;
    const entry = har.log.entries.find(
      (e: { request: { method: string; url: string } }) =>
        e.request.method === 'POST' && e.request.url.endsWith('/v1/accounts'),
    );
    expect(entry.request.bodySize).toBeGreaterThan(9000);
    expect(entry.request.postData.text).toHaveLength(8192);
    expect(entry.request.postData.comment).toMatch(/cut at 8192 bytes/);
  });
});
