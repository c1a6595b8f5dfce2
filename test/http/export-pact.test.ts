// biome-ignore-all lint/suspicious/noExplicitAny: the test reads deep into a Pact contract's JSON, as written
import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { INSTANT_PATTERN, UUID_PATTERN } from '../../src/proof/pact/matching.js';
import { TOKEN_PLACEHOLDER } from '../../src/proof/pact/interaction.js';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';

/** A session after a reset: an account made, read twice, changed; an order cancelled twice; a fault; a request without token. */
async function session() {
  const app = testApp();
  const token = await tokenFor(app);
  await http(app).get('/v1/assets?limit=1').set(bearer(token)).expect(200);
  await http(app).post('/__control/reset').expect(204);
  const account = await http(app)
    .post('/v1/accounts')
    .set(bearer(token))
    .send({ type: 'individual', first_name: 'Ada', external_id: 'ada-1' })
    .expect(201);
  const accountId = account.body.id as string;
  await http(app).get(`/v1/accounts/${accountId}`).set(bearer(token)).expect(200);
  await http(app).get(`/v1/accounts/${accountId}`).set(bearer(token)).expect(200);
  await http(app).patch(`/v1/accounts/${accountId}`).set(bearer(token)).send({ city: 'London' }).expect(200);
  const placed = await http(app).get('/v1/orders?order_status=PLACED&limit=1').set(bearer(token)).expect(200);
  const orderId = placed.body.data[0].id as string;
  await http(app).delete(`/v1/orders/${orderId}/`).set(bearer(token)).expect(200);
  await http(app).delete(`/v1/orders/${orderId}/`).set(bearer(token)).expect(409);
  await http(app).post('/__control/faults').send({ path: '/v1/share-classes', status: 503, count: 1 }).expect(201);
  await http(app).get('/v1/share-classes').set(bearer(token)).expect(503);
  await http(app).get('/v1/orders').expect(401);
  return { app, token, accountId, orderId };
}

const contractOf = async (app: Express, query = '') => {
  const response = await http(app)
    .get(`/__control/export?format=pact${query}`)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(null, text));
    });
  return {
    response,
    text: response.body as string,
    contract: JSON.parse(response.body as string) as Record<string, any>,
  };
};

describe('GET /__control/export?format=pact', () => {
  it('is a Pact V4 contract of the span since the last reset, between the client and investment-platform, one interaction per distinct /v1 exchange', async () => {
    const { app } = await session();
    const { response, contract } = await contractOf(app);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-disposition']).toBe('attachment; filename="sandbox-client-requests.pact.json"');
    expect(contract.consumer).toEqual({ name: 'sandbox-client' });
    expect(contract.provider).toEqual({ name: 'investment-platform' });
    expect(contract.metadata.pactSpecification).toEqual({ version: '4.0' });
    const described = contract.interactions.map((i: any) => i.description);
    expect(described).toEqual([
      'POST /v1/accounts answers 201',
      'GET /v1/accounts/{account_id} answers 200',
      'PATCH /v1/accounts/{account_id} answers 200',
      'GET /v1/orders answers 200',
      'DELETE /v1/orders/{order_id}/ answers 200',
      'DELETE /v1/orders/{order_id}/ answers 409 order_not_cancellable',
    ]);
    expect(contract.interactions.every((i: any) => i.type === 'Synchronous/HTTP')).toBe(true);
    // the fault's answer: left out, and counted (the request without a token is no client's)
    expect(contract.metadata['investment-api-fake'].leftOut).toEqual({ 'answered by an injected fault': 1 });
    expect((await contractOf(app, '&consumer=partner-app')).contract.consumer).toEqual({ name: 'partner-app' });
  });

  it('holds no token nor secret: Authorization is a placeholder matched by regex', async () => {
    const { app, token } = await session();
    const { text, contract } = await contractOf(app);
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.split('.')[1]);
    expect(text).not.toContain('sandbox-secret');
    expect(text).not.toMatch(/eyJ[\w-]+\./);
    for (const interaction of contract.interactions) {
      expect(interaction.request.headers.Authorization).toEqual([TOKEN_PLACEHOLDER]);
      expect(interaction.request.matchingRules.header.Authorization.matchers[0].match).toBe('regex');
      expect(TOKEN_PLACEHOLDER).toMatch(
        new RegExp(interaction.request.matchingRules.header.Authorization.matchers[0].regex),
      );
    }
  });

  it("keeps the client's secret and tokens out wherever a request put them: bodies, and the states made of them", async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const account = await http(app)
      .post('/v1/accounts')
      .set(bearer(token))
      .send({ type: 'individual', external_id: 'sandbox-secret', first_name: token })
      .expect(201);
    await http(app)
      .get(`/v1/accounts/${account.body.id as string}`)
      .set(bearer(token))
      .expect(200);
    const { text, contract } = await contractOf(app);
    expect(text).not.toContain('sandbox-secret');
    expect(text).not.toContain(token);
    expect(contract.interactions[1].providerStates[0]).toMatchObject({
      name: 'an account exists',
      params: { external_id: '[redacted]', first_name: '[redacted]' },
    });
  });

  it('names the states each request relied on, with the record as the request found it, and injects their identifiers into the path', async () => {
    const { app, accountId, orderId } = await session();
    const { contract } = await contractOf(app);
    const [created, read, changed, , cancelled, refused] = contract.interactions;
    expect(created.providerStates).toBeUndefined();
    expect(read.providerStates).toEqual([
      { name: 'an account exists', params: { type: 'individual', first_name: 'Ada', external_id: 'ada-1' } },
    ]);
    expect(read.request.path).toBe(`/v1/accounts/${accountId}`);
    expect(read.request.generators.path).toEqual({
      type: 'ProviderState',
      expression: '/v1/accounts/${accountId}',
      dataType: 'STRING',
    });
    expect(read.request.matchingRules.path.matchers[0]).toEqual({ match: 'regex', regex: '^/v1/accounts/[^/]+$' });
    expect(changed.request.body.content).toEqual({ city: 'London' });
    expect(cancelled.providerStates[0].name).toBe('an order exists in status PLACED');
    expect(cancelled.providerStates[0].params).toMatchObject({ side: expect.any(String), isin: expect.any(String) });
    expect(cancelled.request.generators.path.expression).toBe('/v1/orders/${orderId}/');
    expect(cancelled.request.path).toBe(`/v1/orders/${orderId}/`);
    expect(refused.providerStates[0].name).toBe('an order exists in status CANCELLED');
  });

  it('matches identifiers and instants by regex, the rest of an answer by type, an error code and a cancelled status by equality', async () => {
    const { app } = await session();
    const { contract } = await contractOf(app);
    const [, read, , list, cancelled, refused] = contract.interactions;
    const rules = read.response.matchingRules.body;
    expect(rules.$.matchers).toEqual([{ match: 'type' }]);
    expect(rules['$.id'].matchers).toEqual([{ match: 'regex', regex: UUID_PATTERN }]);
    expect(rules['$.created'].matchers).toEqual([{ match: 'regex', regex: INSTANT_PATTERN }]);
    expect(read.response.body.content.id).toMatch(new RegExp(UUID_PATTERN));
    // a list: any length, each item like the first, cut to the fields the document promises
    expect(list.response.matchingRules.body['$.data'].matchers).toEqual([{ match: 'type', min: 0 }]);
    expect(list.response.matchingRules.body['$.data[*].id'].matchers[0].match).toBe('regex');
    expect(list.response.body.content.data).toHaveLength(1);
    expect(list.response.body.content.data[0]).not.toHaveProperty('settlement_transaction_hash');
    expect(cancelled.response.matchingRules.body['$.status'].matchers).toEqual([{ match: 'equality' }]);
    expect(cancelled.response.body.content.status).toBe('CANCELLED');
    expect(refused.response.status).toBe(409);
    expect(refused.response.matchingRules.body['$.code'].matchers).toEqual([{ match: 'equality' }]);
    expect(refused.response.headers['Content-Type']).toEqual(['application/problem+json']);
  });

  it('refuses a consumer name that is empty or too long (422), as the document bounds it', async () => {
    const app = testApp();
    expect((await http(app).get('/__control/export?format=pact&consumer=')).status).toBe(422);
    expect((await http(app).get(`/__control/export?format=pact&consumer=${'a'.repeat(101)}`)).status).toBe(422);
    const empty = await contractOf(app);
    expect(empty.contract.interactions).toEqual([]);
  });
});

describe("the Pact export of a client whose secret reads as the contract's own words", () => {
  it('keeps every member of the contract: the last guard replaces credentials in values, never in the structure', async () => {
    // a secret an operator may pick that is also a member name of a Pact file
    const client = { client_id: 'wordy', client_secret: 'interactions', scopes: ['read:accounts' as const] };
    const app = testApp({ clients: [client] });
    const token = await tokenFor(app, client);
    await http(app).get('/v1/accounts?limit=1').set(bearer(token)).set('X-Client-Id', 'wordy').expect(200);
    const { contract, text } = await http(app)
      .get('/__control/export?format=pact')
      .set('X-Client-Id', 'wordy')
      .then((r) => ({ text: r.text, contract: JSON.parse(r.text) as Record<string, any> }));
    expect(Object.keys(contract)).toEqual(['consumer', 'provider', 'interactions', 'metadata']);
    expect(contract.interactions).toHaveLength(1);
    expect(contract.interactions[0].request.path).toBe('/v1/accounts');
    expect(text).not.toContain('[redacted]');
  });
});
