import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApiDocument, operationsOf } from '../../src/api/document.js';
import { startServer, type FakeServer } from '../../src/index.js';
import { HOST, http, testApp, tokenFor } from '../support/test-app.js';

const deepJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const examplePath = (path: string) => path.replace(/\{[^}]+\}/g, 'x');
const operations = operationsOf(loadApiDocument().document);

/** A raw HTTP/1.1 exchange, for what supertest cannot send (bad Host, oversized headers). */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('no request crashes the process', () => {
  let fake: FakeServer;
  beforeAll(async () => {
    fake = await startServer();
  });
  afterAll(() => fake.stop());

  it('JSON nested 5,000 levels deep, sent to every operation with and without a token, is refused and the server lives on', async () => {
    const token = await fake.token();
    const body = deepJson(5000);
    for (const op of operations) {
      for (const authorization of [undefined, `Bearer ${token}`]) {
        const response = await fetch(`${fake.url}${examplePath(op.path)}`, {
          method: op.method.toUpperCase(),
          headers: { 'Content-Type': 'application/json', ...(authorization && { Authorization: authorization }) },
          ...(op.method !== 'get' && { body }),
        });
        expect(response.status, `${op.method} ${op.path}`).toBeLessThan(500);
      }
    }
    const accounts = await fetch(`${fake.url}/v1/accounts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: `{"type":"individual","external_id":${deepJson(65)}}`,
    });
    expect(accounts.status).toBe(400);
    expect(await accounts.json()).toMatchObject({
      code: 'malformed_body',
      detail: expect.stringContaining('at most 64'),
    });
    expect((await fetch(`${fake.url}/__control/health`)).status).toBe(200);
  });

  it('JSON nested 64 levels deep is read (and judged by the schema)', async () => {
    const response = await fetch(`${fake.url}/v1/accounts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${await fake.token()}` },
      body: `{"type":"individual","external_id":${deepJson(63)}}`,
    });
    expect(response.status).toBe(422);
  });

  it('a Host that is no host answers 400, at the token endpoint (invalid_request, RFC 6749) and on /v1 (malformed_host)', async () => {
    const form =
      'grant_type=client_credentials&scope=openid&client_id=sandbox-client&client_secret=sandbox-secret&audience=a';
    for (const head of [
      `POST /oauth2/token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}`,
      'GET /v1/accounts HTTP/1.1\r\nAuthorization: Bearer x',
    ]) {
      const answer = await rawRequest(
        fake.port,
        `${head}\r\nHost: a b\r\nConnection: close\r\n\r\n${head.startsWith('POST') ? form : ''}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      expect(answer).toContain('The Host header is not a host name');
      expect(answer).toContain(head.startsWith('POST') ? '"error":"invalid_request"' : '"code":"malformed_host"');
    }
  });

  it("headers larger than Node's limit answer 431 with a problem body", async () => {
    const answer = await rawRequest(
      fake.port,
      `GET /v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431/);
    expect(answer).toContain('application/problem+json');
    expect(answer).toContain('"code":"headers_too_large"');
  });

  it('a request that is not HTTP answers 400 with a problem body', async () => {
    const answer = await rawRequest(fake.port, 'HELLO\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"code":"malformed_request"');
  });
});

describe('errors are bounded', () => {
  it('a 1 MiB body with 499,000 invalid items answers at most 50 field errors, in under 64 KB (test/http/body-bounds.test.ts: what it says)', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const items = Array(499_000).fill('1').join(',');
    const body = `{"type":"individual","wallets":[${items}]}`;
    expect(body.length).toBeLessThan(1024 * 1024);
    const response = await http(app)
      .post('/v1/accounts')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(body);
    expect(response.status).toBe(422);
    expect(response.text.length).toBeLessThan(64 * 1024);
    expect(response.body.errors.length).toBeGreaterThan(0);
    expect(response.body.errors.length).toBeLessThanOrEqual(50);
    expect(response.body.detail.length).toBeLessThan(1000);
  }, 60_000);
});

describe('only verified clients are attributed', () => {
  const forged = (sub: string) =>
    `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub, iss: `http://${HOST}`, aud: HOST, scope: 'read:orders', exp: 4_000_000_000 })).toString('base64url')}.`;

  it('a forged token naming a tenant neither takes its fault nor lands in its journal or report', async () => {
    const app = testApp();
    await http(app).post('/__control/faults').send({ path: '/v1/*', status: 503, count: 1 }).expect(201);
    for (let i = 0; i < 4; i++) {
      const response = await http(app)
        .get('/v1/orders')
        .set('Authorization', `Bearer ${forged('sandbox-client')}`);
      expect(response.status).toBe(401);
    }
    expect((await http(app).get('/__control/faults')).body.data[0]).toMatchObject({ remaining: 1 });
    const journal = (await http(app).get('/__control/requests')).body.data as { client_id: string | null }[];
    expect(journal.map((e) => e.client_id)).toEqual([null, null, null, null]);
    expect((await http(app).get('/__control/requests?client_id=sandbox-client')).body.data).toEqual([]);
    expect((await http(app).get('/__control/report')).body.findings).toEqual([]);
    // the real client takes its fault
    const token = await tokenFor(app);
    expect((await http(app).get('/v1/orders').set('Authorization', `Bearer ${token}`)).status).toBe(503);
  });

  it('a token request with a wrong secret is anonymous; with the right one it is the client’s', async () => {
    const app = testApp();
    await http(app).post('/__control/faults').send({ path: '/oauth2/token', status: 503, count: 1 }).expect(201);
    const wrong = await http(app).post('/oauth2/token').type('form').send({
      grant_type: 'client_credentials',
      scope: 'openid',
      client_id: 'sandbox-client',
      client_secret: 'guess',
      audience: HOST,
    });
    expect(wrong.status).toBe(401);
    expect(
      (
        await http(app).post('/oauth2/token').type('form').send({
          grant_type: 'client_credentials',
          scope: 'openid',
          client_id: 'sandbox-client',
          client_secret: 'sandbox-secret',
          audience: HOST,
        })
      ).status,
    ).toBe(503);
    const journal = (await http(app).get('/__control/requests')).body.data as {
      client_id: string | null;
      status: number;
    }[];
    expect(journal.map((e) => [e.status, e.client_id])).toEqual([
      [401, null],
      [503, 'sandbox-client'],
    ]);
  });
});

describe('one rule for trailing slashes', () => {
  it('a path that differs from the document by its trailing slash answers 404 route_not_found naming the documented one', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    for (const [method, path, documented] of [
      ['get', '/v1/orders/', '/v1/orders'],
      ['get', '/v1/accounts/', '/v1/accounts'],
      ['post', '/oauth2/token/', '/oauth2/token'],
    ] as const) {
      const response = await http(app)[method](path).set('Authorization', `Bearer ${token}`);
      expect(response.status, path).toBe(404);
      expect(response.body).toMatchObject({ code: 'route_not_found', detail: expect.stringContaining(documented) });
    }
  });
});
