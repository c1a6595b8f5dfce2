// Readiness 2.0: each new rule against a careless client and a careful one; what the report counts and never reads.
import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { World } from '../../src/api/types.js';
import { HOST, bearer, http, requestToken, testApp, tokenFor } from '../support/test-app.js';

interface Finding {
  code: string;
  severity: string;
  message: string;
  hint: string;
  docs: string;
  requests: string[];
}
interface Report {
  client_id: string;
  requests_seen: number;
  findings: Finding[];
}

const report = async (app: Express, clientId?: string): Promise<Report> => {
  const call = http(app).get('/__control/report');
  return (await (clientId ? call.set('X-Client-Id', clientId) : call)).body as Report;
};
const codes = async (app: Express) => (await report(app)).findings.map((f) => f.code);
const advance = (app: Express, seconds: number) =>
  http(app).post('/__control/clock').send({ advance_seconds: seconds }).expect(200);
const idOf = (response: { headers: Record<string, string | undefined> }) => response.headers['x-request-id']!;

async function fundDocuments(app: Express, token: string) {
  const world = (await http(app).get('/__control/state')).body as World;
  const path = `/v1/funds/${world.feeder_funds[0]!.abbreviation}/documents`;
  const list = async () => {
    const response = await http(app).get(path).set(bearer(token)).expect(200);
    const link = new URL((response.body.data as { url: string }[])[0]!.url);
    return { response, download: () => http(app).get(`${link.pathname}${link.search}`) };
  };
  return { list };
}

describe('stale_document_link', () => {
  it('flags a download through a link that expired, naming it, as an error', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const { download } = await (await fundDocuments(app, token)).list();
    await advance(app, 16 * 60);
    const stale = await download();
    expect(stale.status).toBe(403);
    const [finding] = (await report(app)).findings;
    expect(finding).toMatchObject({
      code: 'stale_document_link',
      severity: 'error',
      requests: [idOf(stale)],
      docs: 'docs/readiness.md#stale_document_link',
    });
    expect(finding!.hint).toMatch(/valid 15 minutes.*list the documents again/);
  });

  it('flags a documents list fetched again and again while its links were valid', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const documents = await fundDocuments(app, token);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(idOf((await documents.list()).response));
    expect((await report(app)).findings).toEqual([
      expect.objectContaining({ code: 'stale_document_link', severity: 'error', requests: ids }),
    ]);
  });

  it('stays silent for a client that downloads while links are valid and lists again only after they expired', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const documents = await fundDocuments(app, token);
    const first = await documents.list();
    expect((await first.download()).status).toBe(200);
    await advance(app, 16 * 60);
    expect((await (await documents.list()).download()).status).toBe(200);
    expect(await codes(app)).toEqual([]);
  });

  it('never reads a download through a link it did not sign', async () => {
    const app = testApp();
    for (let i = 0; i < 3; i++)
      await http(app)
        .get(`/files/sandbox-client/x.pdf?expires=1&signature=${'0'.repeat(64)}`)
        .expect(403);
    expect(await report(app)).toMatchObject({ requests_seen: 0, findings: [] });
  });
});

describe('over_polling', () => {
  const poll = async (app: Express, token: string, times: number, everySeconds: number) => {
    const ids = [];
    for (let i = 0; i < times; i++) {
      if (i > 0) await advance(app, everySeconds);
      ids.push(idOf(await http(app).get('/v1/orders?order_status=PLACED').set(bearer(token)).expect(200)));
    }
    return ids;
  };

  it('flags the same list asked every 4 s of the tenant clock for a minute', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const ids = await poll(app, token, 16, 4);
    const [finding] = (await report(app)).findings;
    expect(finding).toMatchObject({ code: 'over_polling', severity: 'warning', requests: ids });
    expect(finding!.message).toMatch(
      /^\/v1\/orders\?order_status=PLACED was asked 16 times in 6\d s of the tenant's clock/,
    );
    expect(finding!.hint).toMatch(/at most every 5 s/);
  });

  it('stays silent for a client that polls every 5 s, and for a quick burst shorter than a minute', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await poll(app, token, 16, 5);
    expect(await codes(app)).toEqual([]);
    const burst = testApp();
    await poll(burst, await tokenFor(burst), 30, 0);
    expect(await codes(burst)).toEqual([]);
  });
});

describe('wrong_path', () => {
  it("flags the same route_not_found three times, its hint naming the cancel's trailing slash", async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const order = ((await http(app).get('/__control/state')).body as World).orders.find((o) => o.status === 'PLACED')!;
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(idOf(await http(app).delete(`/v1/orders/${order.id}`).set(bearer(token)).expect(404)));
    const { findings } = await report(app);
    expect(findings).toEqual([expect.objectContaining({ code: 'wrong_path', severity: 'error', requests: ids })]);
    expect(findings[0]!.hint).toBe(
      'Send DELETE /v1/orders/{order_id}/, the path the document has: with the trailing slash.',
    );
  });

  it('names the documented path of any operation, and the document where no path is close', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    for (let i = 0; i < 3; i++) await http(app).get('/v1/accounts/').set(bearer(token)).expect(404);
    for (let i = 0; i < 3; i++) await http(app).get('/v1/portfolio').set(bearer(token)).expect(404);
    const hints = (await report(app)).findings.map((f) => f.hint);
    expect(hints).toEqual([
      expect.stringMatching(/^Send GET \/v1\/accounts, the path the document has/),
      expect.stringMatching(/OpenAPI document \(GET \/openapi\.json\)/),
    ]);
  });

  it('stays silent for a client that corrects its path after the first 404, and for requests without a verified token', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    await http(app).get('/v1/accounts/').set(bearer(token)).expect(404);
    await http(app).get('/v1/accounts').set(bearer(token)).expect(200);
    expect(await codes(app)).toEqual([]);
    for (let i = 0; i < 3; i++) await http(app).get('/v1/accounts/').set(bearer('not-a-token')).expect(404);
    expect(await report(app)).toMatchObject({ requests_seen: 3, findings: [] });
  });
});

describe('unused_scopes', () => {
  it('flags tokens asked with API scopes no request needed, naming the ones to keep', async () => {
    const app = testApp();
    const token = await tokenFor(app, { scope: 'openid offline read:orders write:accounts read:documents' });
    await http(app).get('/v1/orders').set(bearer(token)).expect(200);
    const [finding] = (await report(app)).findings;
    expect(finding).toMatchObject({ code: 'unused_scopes', severity: 'warning', requests: ['1'] });
    expect(finding!.message).toBe(
      'Tokens were asked with read:documents, write:accounts, which no request of this client needed.',
    );
    expect(finding!.hint).toContain('scope=openid offline read:orders, without read:documents write:accounts');
  });

  it('stays silent for a client that asks only what it uses, or only openid offline', async () => {
    const app = testApp();
    const token = await tokenFor(app, { scope: 'openid offline read:orders' });
    await http(app).get('/v1/orders').set(bearer(token)).expect(200);
    expect(await codes(app)).toEqual([]);
    const plain = testApp();
    await http(plain)
      .get('/v1/orders')
      .set(bearer(await tokenFor(plain)))
      .expect(200);
    expect(await codes(plain)).toEqual([]);
  });
});

describe('token_auth_method_mismatch', () => {
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const form = { grant_type: 'client_credentials', scope: 'openid offline', audience: HOST };

  it('flags a right secret sent the other way than the client is registered for, naming what to configure', async () => {
    const app = testApp();
    const refused = await http(app)
      .post('/oauth2/token')
      .type('form')
      .set('Authorization', basic('sandbox-client', 'sandbox-secret'))
      .send(form);
    expect(refused.status).toBe(401);
    const [finding] = (await report(app)).findings;
    expect(finding).toMatchObject({
      code: 'token_auth_method_mismatch',
      severity: 'error',
      requests: [idOf(refused)],
      docs: 'docs/readiness.md#token_auth_method_mismatch',
    });
    expect(finding!.message).toContain(
      'authenticated with client_secret_basic, but the client is registered for client_secret_post',
    );
    expect(finding!.hint).toMatch(/client_id and client_secret in the form body/);
  });

  it('names Basic for a client_secret_basic client that sent its credentials in the form', async () => {
    const app = testApp({
      clients: [
        {
          client_id: 'sandbox-client',
          client_secret: 'sandbox-secret',
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
    });
    await requestToken(app).expect(401);
    const [finding] = (await report(app)).findings;
    expect(finding).toMatchObject({ code: 'token_auth_method_mismatch' });
    expect(finding!.hint).toMatch(/as HTTP Basic credentials only/);
  });

  it('a client refused both ways (its registration changed between them) gets one finding per method it used', async () => {
    const app = testApp();
    const viaBasic = await http(app)
      .post('/oauth2/token')
      .type('form')
      .set('Authorization', basic('sandbox-client', 'sandbox-secret'))
      .send(form);
    await http(app)
      .patch('/__control/clients/sandbox-client')
      .send({ token_endpoint_auth_method: 'client_secret_basic' })
      .expect(200);
    const viaForm = await requestToken(app).expect(401);
    const findings = (await report(app)).findings;
    expect(findings.map((f) => [f.requests, f.message.match(/authenticated with (\w+)/)![1]])).toEqual([
      [[idOf(viaBasic)], 'client_secret_basic'],
      [[idOf(viaForm)], 'client_secret_post'],
    ]);
  });

  it('stays silent for a client that authenticates its registered way, and for a wrong secret (no client proven)', async () => {
    const app = testApp();
    await requestToken(app).expect(200);
    await requestToken(app, { client_secret: 'wrong' }).expect(401);
    expect(await codes(app)).toEqual([]);
  });
});

describe('the report as a whole', () => {
  it('counts the verified requests it read: never control calls, never unverified requests', async () => {
    const app = testApp();
    expect(await report(app)).toEqual({
      client_id: 'sandbox-client',
      requests_seen: 0,
      findings: [],
      since: 'start',
      resets: 0,
    });
    await requestToken(app, { client_secret: 'wrong' }).expect(401);
    await http(app).get('/v1/orders').expect(401);
    await http(app).get('/__control/state').expect(200);
    expect((await report(app)).requests_seen).toBe(0);
    await http(app)
      .get('/v1/orders')
      .set(bearer(await tokenFor(app)))
      .expect(200);
    expect((await report(app)).requests_seen).toBe(2);
  });

  it('never reads another tenant, nor a storm of unverified requests', async () => {
    const app = testApp();
    await http(app).post('/__control/clients').send({ client_id: 'careless', client_secret: 'c' }).expect(201);
    const careless = await tokenFor(app, { client_id: 'careless', client_secret: 'c' });
    for (let i = 0; i < 3; i++) await http(app).get('/v1/nothing').set(bearer(careless)).expect(404);
    for (let i = 0; i < 5; i++) await http(app).get('/v1/nothing').expect(404);
    expect(await codes(app)).toEqual([]);
    expect((await report(app, 'careless')).findings.map((f) => f.code)).toEqual(['wrong_path']);
  });
});
