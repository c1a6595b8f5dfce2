import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, HOST, http, testApp, tokenFor } from '../support/test-app.js';

// RFC 3986's sub-delimiters that encodeURIComponent leaves as they are (`!`, `'`, `(`, `)`, `*`) are taken in a query
// as Node's parsers take them, the characters themselves: a query holding them answers as the same query with them
// percent-encoded, never "must be url encoded". Sent byte for byte (node:http): a URL parser would encode `'`.
const SUB_DELIMITERS = ['!', "'", '(', ')', '*'];
const encoded = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;

const app = testApp();
const server = createServer(app);
let token = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  token = await tokenFor(app);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A GET whose path and query go on the request line as written. */
function get(target: string): Promise<{ status: number; body: { detail?: string; errors?: unknown[] } }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: '127.0.0.1', port, path: target, headers: { host: HOST, ...bearer(token) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

describe('a query with sub-delimiters unencoded', () => {
  it.each(SUB_DELIMITERS)(
    '%s in a value answers as its percent-encoding does: a filter that matches nothing',
    async (c) => {
      for (const path of ['/v1/orders', '/v1/assets']) {
        const raw = await get(`${path}?isin=a${c}b`);
        expect(raw.status, `${path} ${c}`).toBe(200);
        expect(raw.body).toEqual((await get(`${path}?isin=a${encoded(c)}b`)).body);
      }
    },
  );

  it('is checked as the value it is: `(PLACED)` is no order status, as `%28PLACED%29` is not', async () => {
    const raw = await get('/v1/orders?order_status=(PLACED)');
    expect(raw.status).toBe(422);
    expect(raw.body).toEqual((await get('/v1/orders?order_status=%28PLACED%29')).body);
    expect(raw.body.detail).not.toMatch(/url encoded|reserved/);
  });

  it('is journaled as sent and read as the characters themselves', async () => {
    expect((await get("/v1/orders?isin=(a)!*'b")).status).toBe(200);
    const entries = (await http(app).get('/__control/requests?path=/v1/orders').expect(200)).body.data as {
      query: Record<string, string>;
    }[];
    expect(entries.at(-1)!.query).toEqual({ isin: "(a)!*'b" });
  });

  it('other reserved characters unencoded are still refused, naming the parameter', async () => {
    const refused = await get('/v1/orders?isin=a$b');
    expect(refused.status).toBe(422);
    expect(refused.body.errors![0]).toMatchObject({ location: 'query', path: '/isin' });
  });
});
