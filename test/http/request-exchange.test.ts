import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';
import { startServer } from '../../src/index.js';

type Entry = { id: string; method: string; path: string; status: number; client_id: string | null };
const entries = async (app: Express, headers: Record<string, string> = {}) =>
  (await http(app).get('/__control/requests').set(headers).expect(200)).body.data as Entry[];
const exchange = (app: Express, id: string, headers: Record<string, string> = {}) =>
  http(app).get(`/__control/requests/${id}`).set(headers);

describe('GET /__control/requests/{request_id}', () => {
  it('shows one request with the body it sent and the answer it got: a 422 with its field errors', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const sent = { type: 'individual', business_name: 'X', first_name: 'Ada' };
    const refused = await http(app).post('/v1/accounts').set(bearer(token)).send(sent).expect(422);
    const id = refused.headers['x-request-id'] as string;
    const answer = await exchange(app, id).expect(200);
    expect(answer.body.entry).toEqual((await entries(app)).find((e) => e.id === id));
    expect(answer.body.request).toMatchObject({
      content_type: expect.stringMatching(/^application\/json/),
      truncated: false,
      size: JSON.stringify(sent).length,
    });
    expect(JSON.parse(answer.body.request.text)).toEqual(sent);
    expect(answer.body.response.content_type).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer.body.response.text)).toEqual(refused.body);
    expect(refused.body.errors.length).toBeGreaterThan(0);
  });

  it('redacts as the exports do: the token request keeps no secret, its answer no token', async () => {
    const app = testApp();
    await tokenFor(app);
    const [grant] = await entries(app);
    const { body } = await exchange(app, grant!.id).expect(200);
    expect(body.entry).toMatchObject({ method: 'POST', path: '/oauth2/token', status: 200 });
    expect(body.request.text).toContain('client_secret=%5Bredacted%5D');
    expect(body.request.text).not.toContain('sandbox-secret');
    expect(JSON.parse(body.response.text)).toMatchObject({ access_token: '[redacted]', token_type: 'Bearer' });
  });

  it('a request without a body has null; a large answer is cut at 8 KiB with its whole size; a PDF by its size only', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const list = await http(app).get('/v1/orders?limit=1000').set(bearer(token)).expect(200);
    const { body } = await exchange(app, list.headers['x-request-id'] as string).expect(200);
    expect(body.request).toBeNull();
    expect(body.response).toMatchObject({ truncated: true, size: Buffer.byteLength(list.text) });
    expect(Buffer.byteLength(body.response.text)).toBeLessThanOrEqual(8 * 1024);

    const world = (await http(app).get('/__control/state')).body as { feeder_funds: { abbreviation: string }[] };
    const documents = await http(app)
      .get(`/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`)
      .set(bearer(token))
      .expect(200);
    const link = new URL(documents.body.data[0].url as string);
    const pdf = await http(app).get(`${link.pathname}${link.search}`).expect(200);
    const download = (await exchange(app, pdf.headers['x-request-id'] as string).expect(200)).body;
    expect(download.entry.query.signature).toBe('[redacted]');
    expect(download.response).toEqual({
      content_type: 'application/pdf',
      size: pdf.body.length,
      truncated: false,
      text: null,
    });
    const links = (await exchange(app, documents.headers['x-request-id'] as string).expect(200)).body.response
      .text as string;
    expect(links).toContain('signature=[redacted]');
  });

  it('an id the journal does not hold is 404 request_not_found; a partner sees its own requests only', async () => {
    const app = testApp({
      clients: [
        { client_id: 'acme', client_secret: 'acme-secret', scopes: ['read:assets', 'control'] },
        { client_id: 'globex', client_secret: 'globex-secret', scopes: ['read:assets', 'control'] },
      ],
    });
    expect((await exchange(app, '999999').expect(404)).body.code).toBe('request_not_found');
    expect((await exchange(app, 'x'.repeat(41)).expect(422)).body.code).toBe('validation_error');
    const acme = await tokenFor(app, {
      client_id: 'acme',
      client_secret: 'acme-secret',
      scope: 'openid offline control',
    });
    const globex = await tokenFor(app, {
      client_id: 'globex',
      client_secret: 'globex-secret',
      scope: 'openid offline control',
    });
    const own = (await http(app).get('/v1/assets').set(bearer(acme)).expect(200)).headers['x-request-id'] as string;
    const theirs = (await http(app).get('/v1/assets').set(bearer(globex)).expect(200)).headers[
      'x-request-id'
    ] as string;
    expect((await exchange(app, own, bearer(acme)).expect(200)).body.entry.client_id).toBe('acme');
    expect((await exchange(app, theirs, bearer(acme)).expect(404)).body.code).toBe('request_not_found');
    // the operator sees every client's
    expect((await exchange(app, theirs).expect(200)).body.entry.client_id).toBe('globex');
  });

  it('the control client reads it: fake.control.request(id)', async () => {
    const fake = await startServer();
    try {
      const answer = await fetch(`${fake.url}/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await fake.token()}`, 'content-type': 'application/json' },
        body: '{"type":"individual","business_name":"X"}',
      });
      expect(answer.status).toBe(422);
      const { entry, request, response } = await fake.control.request(answer.headers.get('x-request-id')!);
      expect(entry).toMatchObject({ method: 'POST', path: '/v1/accounts', status: 422 });
      expect(request?.text).toBe('{"type":"individual","business_name":"X"}');
      expect(JSON.parse(response!.text!)).toMatchObject({ status: 422, errors: expect.any(Array) });
    } finally {
      await fake.stop();
    }
  });
});
