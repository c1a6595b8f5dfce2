import type { Express } from 'express';
import type { Response } from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { buildApp, createContext, requestListener } from '../../src/app.js';
import type { FakeOptions } from '../../src/config.js';
import { http, tokenFor } from '../support/harness.js';

// The kept-answer lane (src/http/kept-answer-lane.ts) answers a hit of the read cache before Express, as Express
// would have; anything else goes to Express untouched. Whether Express saw a request shows on its app.handle.
async function laned(options: FakeOptions = {}) {
  const app = buildApp(createContext({ allowedHosts: ['.test'], ...options }));
  const token = await tokenFor(app);
  const handle = vi.spyOn(app as Express & { handle: () => void }, 'handle');
  const get = (path: string) => http(app).get(path).set('Authorization', `Bearer ${token}`);
  /** Whether Express answered the call (else the lane did). */
  const byExpress = async (call: () => PromiseLike<Response>): Promise<{ response: Response; express: boolean }> => {
    const before = handle.mock.calls.length;
    const response = await call();
    return { response, express: handle.mock.calls.length > before };
  };
  return { app, token, get, byExpress };
}

const comparable = (response: Response) => {
  const { date: _date, 'x-request-id': _id, ...headers } = response.headers;
  return { status: response.status, headers, text: response.text };
};

describe('the kept-answer lane', () => {
  it('answers a kept answer without Express, byte for byte as Express answers it, and journals it alike', async () => {
    const { app, get, byExpress } = await laned();
    for (const path of ['/v1/orders?limit=100', '/v1/share-classes', '/v1/accounts?limit=5&skip=1']) {
      const first = await byExpress(() => get(path));
      expect(first.express, path).toBe(true);
      const second = await byExpress(() => get(path));
      expect(second.express, path).toBe(false);
      expect(comparable(second.response)).toEqual(comparable(first.response));
      expect(Number(second.response.headers['x-request-id'])).toBe(Number(first.response.headers['x-request-id']) + 1);
    }
    const journal = (await http(app).get('/__control/requests')).body.data as Record<string, unknown>[];
    const entries = journal.filter((e) => e.path !== '/oauth2/token').map(({ id: _id, time: _time, duration_ms: _d, ...rest }) => rest);
    // each pair (Express's answer, then the lane's) journaled alike
    expect(entries).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) expect(entries[i]).toEqual(entries[i + 1]);
    expect(entries.at(-1)).toMatchObject({ method: 'GET', path: '/v1/accounts', status: 200, operation_id: 'listAccounts', applied: true });
  });

  it('leaves to Express whatever would not reach a kept answer there, and Express answers it as ever', async () => {
    const { get, byExpress, app, token } = await laned();
    await get('/v1/orders?limit=100').expect(200);
    const cases: [string, () => PromiseLike<Response>, number][] = [
      ['a body', () => get('/v1/orders?limit=100').set('Content-Length', '0'), 200],
      ['HEAD', () => http(app).head('/v1/orders?limit=100').set('Authorization', `Bearer ${token}`), 405],
      ['a conditional request', () => get('/v1/orders?limit=100').set('If-None-Match', '"x"'), 200],
      ['no token', () => http(app).get('/v1/orders?limit=100'), 401],
      ['a forged token', () => http(app).get('/v1/orders?limit=100').set('Authorization', 'Bearer a.b.c'), 401],
      ['an unknown parameter', () => get('/v1/orders?limit=100&colour=red'), 422],
      ['a value out of range', () => get('/v1/orders?limit=100000'), 422],
      ['a path unknown to the document', () => get('/v1/orders/'), 404],
      ['a Host the fake does not answer to', () => http(app, 'elsewhere.example.com').get('/v1/orders?limit=100'), 403],
      ['a write', () => http(app).post('/v1/accounts'), 401],
    ];
    for (const [what, call, status] of cases) {
      const { response, express } = await byExpress(call);
      expect(express, what).toBe(true);
      expect(response.status, what).toBe(status);
    }
  });

  it('leaves a tenant with an injected fault to Express, so the fault strikes', async () => {
    const { get, byExpress, app } = await laned();
    await get('/v1/orders?limit=100').expect(200);
    await http(app).post('/__control/faults').send({ method: 'GET', path: '/v1/orders', status: 503, count: 1 }).expect(201);
    const faulted = await byExpress(() => get('/v1/orders?limit=100'));
    expect([faulted.express, faulted.response.status]).toEqual([true, 503]);
    await http(app).delete('/__control/faults').expect(204);
    await get('/v1/orders?limit=100').expect(200);
    expect((await byExpress(() => get('/v1/orders?limit=100'))).express).toBe(false);
  });

  it('leaves a token short of the operation\'s scope to Express (403), though its tenant has the answer kept', async () => {
    const app = buildApp(createContext({ allowedHosts: ['.test'] }));
    await http(app).post('/__control/clients').send({ client_id: 'narrow', client_secret: 's3cret', scopes: ['read:assets'] }).expect(201);
    const narrow = await tokenFor(app, { client_id: 'narrow', client_secret: 's3cret' });
    await http(app).patch('/__control/clients/narrow').send({ scopes: ['read:assets', 'read:orders'] }).expect(200);
    const wide = await tokenFor(app, { client_id: 'narrow', client_secret: 's3cret' });
    const handle = vi.spyOn(app as Express & { handle: () => void }, 'handle');
    for (let i = 0; i < 2; i++) await http(app).get('/v1/orders?limit=100').set('Authorization', `Bearer ${wide}`).expect(200);
    expect(handle).toHaveBeenCalledTimes(1);
    const refused = await http(app).get('/v1/orders?limit=100').set('Authorization', `Bearer ${narrow}`);
    expect([refused.status, refused.body.code, handle.mock.calls.length]).toEqual([403, 'insufficient_scope', 2]);
  });

  it('is not there behind a trusted proxy, where answers are checked against the document, or without the cache', async () => {
    for (const [options, pipeline] of [[{ trustProxy: true }, {}], [{ validateResponses: true }, {}], [{}, { readCache: false }]] as const) {
      const app = buildApp(createContext({ allowedHosts: ['.test'], ...options }), undefined, pipeline);
      expect(requestListener(app), JSON.stringify([options, pipeline])).toBe(app);
    }
  });
});
