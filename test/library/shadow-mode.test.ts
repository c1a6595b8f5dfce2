import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import type { Schemas } from '../../src/api/types.js';
import { compileDocumentValidator, loadApiDocument } from '../../src/api/document.js';
import { scriptedSession } from '../support/shadow-session.js';
import { shadowOfDeviatingUpstream } from '../support/deviating-upstream.js';

type Report = Schemas['FidelityReport'];
const fidelityOf = async (fake: FakeServer): Promise<Report> =>
  (await (await fetch(`${fake.url}/__control/fidelity`)).json()) as Report;

describe('shadow mode in front of another fake with the same seed', () => {
  let upstream: FakeServer;
  let shadow: FakeServer;
  beforeAll(async () => {
    upstream = await startServer({ seed: 7 });
    shadow = await startServer({ seed: 7, upstream: upstream.url });
  });
  afterAll(async () => {
    await shadow?.stop();
    await upstream?.stop();
  });

  it('answers with the upstream and reports differences: [] over a session touching every public operation', async () => {
    const steps = await scriptedSession(shadow.url, upstream.state());
    expect(steps.find((s) => s.status >= 500)).toBeUndefined();
    // the client works against the upstream: what it created is there, not in the fake's own world
    const created = steps.find((s) => s.method === 'POST' && s.path === '/v1/accounts')!.body as { id: string };
    expect(upstream.state().accounts.some((a) => a.id === created.id)).toBe(true);
    const report = await fidelityOf(shadow);
    expect(report).toMatchObject({
      upstream: upstream.url,
      exchanges: steps.length,
      compared: steps.length,
      agreed: steps.length,
      not_comparable: 0,
    });
    expect(report.differences).toEqual([]);
    expect(report.document_violations).toEqual([]);
    const operations = new Set((await shadow.control.requests()).map((r) => r.operation_id));
    for (const operation of [
      'createToken',
      'createAccount',
      'updateAccount',
      'getAccount',
      'listAccounts',
      'registerWallet',
      'updateWallet',
      'listWallets',
      'getPaymentMethodDetails',
      'updatePaymentMethodDetails',
      'listOrders',
      'cancelOrder',
      'listShareClasses',
      'getShareClass',
      'listAssets',
      'listCustomOfferingDocuments',
      'listFundDocuments',
    ]) {
      expect(operations, operation).toContain(operation);
    }
  });

  it('journals each exchange as any request, attributed to the twin of its client, and never shows a secret or a token', async () => {
    const steps = await scriptedSession(shadow.url, upstream.state());
    const token = (steps[0]!.body as { access_token: string }).access_token;
    const entries = await shadow.control.requests({ path: '/v1/accounts' });
    expect(entries.at(-1)).toMatchObject({ client_id: 'sandbox-client', operation_id: 'listAccounts' });
    const everything =
      JSON.stringify(await fidelityOf(shadow)) +
      (await (await fetch(`${shadow.url}/__control/fidelity?format=junit`)).text());
    expect(everything).not.toContain('sandbox-secret');
    expect(everything).not.toContain(token);
  });

  it('hands the client the upstream answer byte for byte, its headers but hop-by-hop ones included', async () => {
    const direct = await fetch(`${upstream.url}/.well-known/openid-configuration`);
    expect(direct.status).toBe(200);
    const token = await upstream.token();
    const ask = (base: string) =>
      fetch(`${base}/v1/share-classes?limit=2`, { headers: { authorization: `Bearer ${token}` } });
    const [viaShadow, viaUpstream] = [await ask(shadow.url), await ask(upstream.url)];
    expect(await viaShadow.text()).toBe(await viaUpstream.text());
    expect(viaShadow.headers.get('content-type')).toBe(viaUpstream.headers.get('content-type'));
  });

  it('DELETE /__control/fidelity clears the report; JUnit has a case per operation seen', async () => {
    await scriptedSession(shadow.url, upstream.state());
    const junit = await (await fetch(`${shadow.url}/__control/fidelity?format=junit`)).text();
    expect(junit).toContain('<testcase classname="fidelity" name="createAccount"');
    expect(junit).not.toContain('<failure');
    expect((await shadow.control.fidelity()).exchanges).toBeGreaterThan(0);
    expect((await fetch(`${shadow.url}/__control/fidelity`, { method: 'DELETE' })).status).toBe(204);
    expect(await shadow.control.fidelity()).toMatchObject({ exchanges: 0, compared: 0, differences: [] });
    expect(await (await fetch(`${shadow.url}/__control/fidelity?format=junit`)).text()).toContain(
      '<skipped message="no exchange yet',
    );
  });
  it('replays a token request the upstream refused as refused: a wrong secret, an unknown client', async () => {
    await shadow.control.clearFidelity();
    const ask = (fields: Record<string, string>) =>
      fetch(`${shadow.url}/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'openid offline',
          audience: new URL(shadow.url).host,
          ...fields,
        }),
      });
    expect((await ask({ client_id: 'sandbox-client', client_secret: 'wrong' })).status).toBe(401);
    expect((await ask({ client_id: 'nobody', client_secret: 'x' })).status).toBe(401);
    expect(await fidelityOf(shadow)).toMatchObject({ exchanges: 2, compared: 2, agreed: 2, differences: [] });
    // the refused client got no twin
    expect((await shadow.control.clients()).map((c) => c.client_id)).not.toContain('nobody');
  });

  it('replays the letter of a request: two authentication methods and a misspelled path are refused on both sides alike', async () => {
    await shadow.control.clearFidelity();
    const basic = `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`;
    const both = await fetch(`${shadow.url}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: basic },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'openid offline',
        audience: new URL(shadow.url).host,
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
      }),
    });
    expect(both.status).toBe(400);
    const token = await upstream.token();
    for (const path of ['/v1/Accounts', '/v1//accounts', '/v1/accounts/']) {
      expect(
        (await fetch(`${shadow.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status,
        path,
      ).toBe(404);
    }
    const report = await fidelityOf(shadow);
    expect(report).toMatchObject({ exchanges: 4, differences: [] });
  });
});

describe('shadow mode in front of an upstream that deviates', () => {
  let behind: FakeServer;
  let stop: () => Promise<void>;
  let shadow: FakeServer;
  beforeAll(async () => {
    ({ behind, shadow, stop } = await shadowOfDeviatingUpstream(({ method, path }, answer) => {
      const body = answer.body as Record<string, unknown>;
      if (method === 'POST' && path === '/v1/accounts' && answer.status === 201) {
        // a field the fake lacks, one it has that the upstream dropped, another type, another value
        const { first_name: _, ...rest } = body;
        return { status: 201, body: { ...rest, nickname: 'ada', dob_year: String(body.dob_year), last_name: 'Byron' } };
      }
      if (method === 'GET' && path === '/v1/orders') {
        const [first, ...others] = body.data as Record<string, unknown>[];
        return { status: 200, body: { data: [{ ...first, status: 'SETTLED' }, ...others] } };
      }
      if (method === 'DELETE' && path.startsWith('/v1/orders/') && answer.status === 200) {
        return {
          status: 409,
          body: { type: 'about:blank', title: 'Conflict', status: 409, detail: 'no', code: 'order_not_cancellable' },
        };
      }
      if (method === 'POST' && path.endsWith('/wallets') && answer.status === 422)
        return { status: 422, body: { ...body, code: 'validation_error' } };
      if (method === 'GET' && path === '/v1/assets')
        return {
          status: 200,
          body,
          raw: JSON.stringify(body, null, 3),
          headers: { 'X-Upstream-Trace': 'abc-123', 'Keep-Alive': 'timeout=9' },
        };
      if (path.startsWith('/v1/funds/'))
        return { status: 503, body: undefined, raw: '<html>maintenance</html>', contentType: 'text/html' };
      return undefined;
    }));
  });
  afterAll(() => stop?.());

  it('reports every kind of difference, each with both values and its request', async () => {
    const world = behind.state();
    const steps = await scriptedSession(shadow.url, world);
    // the upstream's 5xx reaches the client as it was
    const maintenance = steps.find((s) => s.path.startsWith('/v1/funds/'))!;
    expect(maintenance.status).toBe(503);
    const report = await fidelityOf(shadow);
    // the report is the document's FidelityReport
    expect(
      compileDocumentValidator(loadApiDocument().document, { $ref: 'openapi#/components/schemas/FidelityReport' })(
        report,
      ),
    ).toEqual([]);
    const kinds = new Set(report.differences.map((d) => d.kind));
    expect([...kinds].sort()).toEqual([
      'enum_value',
      'error_code',
      'extra_field',
      'missing_field',
      'status',
      'type',
      'value',
    ]);
    const created = steps.find((s) => s.method === 'POST' && s.path === '/v1/accounts')!;
    const createRequest = report.differences.filter((d) => d.operation === 'createAccount');
    expect(createRequest).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'missing_field',
          pointer: '/nickname',
          upstream: 'ada',
          fake: null,
          method: 'POST',
          path: '/v1/accounts',
          request_id: expect.any(String),
        }),
        expect.objectContaining({ kind: 'extra_field', pointer: '/first_name', upstream: null, fake: 'Ada' }),
        expect.objectContaining({ kind: 'type', pointer: '/dob_year', upstream: '1985', fake: 1985 }),
        expect.objectContaining({ kind: 'value', pointer: '/last_name', upstream: 'Byron', fake: 'Lovelace' }),
      ]),
    );
    expect(created.status).toBe(201);
    expect(report.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          operation: 'listOrders',
          kind: 'enum_value',
          pointer: '/data/0/status',
          upstream: 'SETTLED',
        }),
        expect.objectContaining({
          operation: 'registerWallet',
          kind: 'error_code',
          upstream: 'validation_error',
          fake: 'invalid_wallet_address',
        }),
        expect.objectContaining({ operation: 'cancelOrder', kind: 'status', upstream: 409, fake: 200 }),
        expect.objectContaining({ operation: 'listFundDocuments', kind: 'status', upstream: 503, fake: 200 }),
      ]),
    );
    expect(report.document_violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ side: 'upstream_answer', operation: 'listOrders', pointer: '/data/0/status' }),
      ]),
    );
    const junit = await (await fetch(`${shadow.url}/__control/fidelity?format=junit`)).text();
    expect(junit).toContain('<testcase classname="fidelity" name="createAccount" time="0">');
    expect(junit).toContain(
      '<failure message="Field `/nickname` is in the upstream&apos;s answer (`&quot;ada&quot;`) but not in the fake&apos;s" type="missing_field">POST /v1/accounts (request ',
    );
    expect(junit).toContain(
      'upstream problem: 409 order_not_cancellable: no\nfake problem:     (a success, no problem)',
    );
  });

  // the report of the session above (each session moves the upstream's world on: its orders are cancelled)
  it('heads every kind of difference with a sentence, the same in the report and its JUnit form', async () => {
    const report = await fidelityOf(shadow);
    const headingOf = (kind: string, operation: string) =>
      report.differences.find((d) => d.kind === kind && d.operation === operation)!.heading;
    expect(headingOf('missing_field', 'createAccount')).toBe(
      'Field `/nickname` is in the upstream\'s answer (`"ada"`) but not in the fake\'s',
    );
    expect(headingOf('extra_field', 'createAccount')).toBe(
      'Field `/first_name` is in the fake\'s answer (`"Ada"`) but not in the upstream\'s',
    );
    expect(headingOf('type', 'createAccount')).toBe('Field `/dob_year` is a string upstream, a number in the fake');
    expect(headingOf('value', 'createAccount')).toBe(
      'Field `/last_name` is `"Byron"` upstream, `"Lovelace"` in the fake',
    );
    expect(headingOf('enum_value', 'listOrders')).toBe(
      'Field `/data/0/status` is `"SETTLED"` upstream, outside the document\'s enum, `"AWAITING_PAYMENT"` in the fake',
    );
    expect(headingOf('error_code', 'registerWallet')).toBe(
      "Both answered 422, but the upstream's problem code is `validation_error` where the fake's is `invalid_wallet_address`",
    );
    expect(headingOf('status', 'cancelOrder')).toBe(
      'The upstream answered 409 (order_not_cancellable) where the fake answered 200',
    );
    expect(headingOf('status', 'listFundDocuments')).toBe('The upstream answered 503 where the fake answered 200');
    for (const d of report.differences) expect(d.heading, d.kind).not.toMatch(/another|\(the status\)/);
    const junit = await (await fetch(`${shadow.url}/__control/fidelity?format=junit`)).text();
    expect(junit).toContain('message="The upstream answered 409 (order_not_cancellable) where the fake answered 200"');
    expect(junit).toContain('message="Field `/dob_year` is a string upstream, a number in the fake"');
  });

  it("shows each side's problem, its code and detail, on a status or error-code difference", async () => {
    const report = await fidelityOf(shadow);
    const cancel = report.differences.find((d) => d.operation === 'cancelOrder')!;
    expect(cancel).toMatchObject({
      upstream_problem: { status: 409, code: 'order_not_cancellable', detail: 'no' },
      fake_problem: null,
    });
    const wallet = report.differences.find((d) => d.operation === 'registerWallet')!;
    expect(wallet.upstream_problem).toMatchObject({
      status: 422,
      code: 'validation_error',
      detail: expect.any(String),
    });
    expect(wallet.fake_problem).toMatchObject({
      status: 422,
      code: 'invalid_wallet_address',
      detail: expect.stringMatching(/\S/),
    });
    // a field difference carries no problem
    expect(report.differences.find((d) => d.kind === 'type')).not.toHaveProperty('upstream_problem');
  });

  it("hands the client the upstream's bytes and end-to-end headers, and none of its hop-by-hop ones", async () => {
    const token = await behind.token();
    const answer = await fetch(`${shadow.url}/v1/assets?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    const text = await answer.text();
    expect(text).toBe(JSON.stringify(JSON.parse(text), null, 3));
    expect(answer.headers.get('x-upstream-trace')).toBe('abc-123');
    expect(answer.headers.get('keep-alive')).not.toBe('timeout=9');
  });

  it('leaves the twin unchanged when the upstream refused the request, though the twin would have accepted it', async () => {
    const placed = behind.state().orders.find((o) => o.status === 'PLACED')!;
    const token = (
      (await (
        await fetch(`${shadow.url}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            scope: 'openid offline write:orders',
            client_id: 'sandbox-client',
            client_secret: 'sandbox-secret',
            audience: new URL(shadow.url).host,
          }),
        })
      ).json()) as { access_token: string }
    ).access_token;
    const answer = await fetch(`${shadow.url}/v1/orders/${placed.id}/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(409);
    await fidelityOf(shadow);
    expect(shadow.state().orders.find((o) => o.id === placed.id)!.status).toBe('PLACED');
  });
});

describe('a client the fake does not know', () => {
  it('gets a twin on its first token, with the scopes the upstream granted, and its session compares', async () => {
    const upstream = await startServer({
      clients: [
        { client_id: 'acme', client_secret: 's3cret', scopes: ['read:assets', 'read:accounts', 'write:accounts'] },
      ],
    });
    const shadow = await startServer({ upstream: upstream.url });
    try {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'openid offline write:accounts read:assets read:accounts',
        client_id: 'acme',
        client_secret: 's3cret',
        audience: new URL(shadow.url).host,
      });
      const granted = (await (await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: form })).json()) as {
        access_token: string;
        scope: string;
      };
      expect(granted.scope).toBe('openid offline read:accounts write:accounts read:assets');
      const headers = { authorization: `Bearer ${granted.access_token}`, 'content-type': 'application/json' };
      expect((await fetch(`${shadow.url}/v1/assets?limit=3`, { headers })).status).toBe(200);
      expect(
        (
          await fetch(`${shadow.url}/v1/accounts`, {
            method: 'POST',
            headers,
            body: '{"type":"individual","first_name":"Ada"}',
          })
        ).status,
      ).toBe(201);
      const report = await fidelityOf(shadow);
      expect(report).toMatchObject({ exchanges: 3, compared: 3, agreed: 3, differences: [] });
      const twin = (await shadow.control.clients()).find((c) => c.client_id === 'acme')!;
      expect(twin.scopes).toEqual(['read:accounts', 'write:accounts', 'read:assets']);
      // its secret is the fake's own: the partner's never reaches the fake's records
      expect(JSON.stringify(await shadow.control.clients())).not.toContain('s3cret');
      expect(shadow.state('acme').accounts.some((a) => a.first_name === 'Ada')).toBe(true);
    } finally {
      await shadow.stop();
      await upstream.stop();
    }
  });
});

describe("a fault on the twin's tenant", () => {
  it('makes the exchange not comparable, with its reason, and the comparisons after it go on', async () => {
    const upstream = await startServer();
    const shadow = await startServer({ upstream: upstream.url });
    try {
      await shadow.control.addFault({ path: '/v1/assets', drop: true, count: 1 });
      const token = await shadow.token();
      for (const path of ['/v1/assets', '/v1/orders']) {
        expect((await fetch(`${shadow.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
          200,
        );
      }
      const report = await fidelityOf(shadow);
      expect(report).toMatchObject({ exchanges: 3, compared: 2, agreed: 2, not_comparable: 1, differences: [] });
      expect(report.not_comparable_exchanges).toEqual([
        expect.objectContaining({
          operation: 'listAssets',
          reason: expect.stringContaining("the twin's answer was dropped"),
        }),
      ]);
    } finally {
      await shadow.stop();
      await upstream.stop();
    }
  });
});

describe('an upstream that cannot be used', () => {
  const started: { stop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const s of started) await s.stop();
  });
  const shadowIn = async (upstream: string, timeoutMs = 10_000) => {
    const fake = await startServer({ upstream, upstreamTimeoutMs: timeoutMs });
    started.push(fake);
    return fake;
  };
  const listening = async (handler: http.RequestListener) => {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    started.push({
      stop: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it.each([
    [
      'down',
      async () => {
        const url = await listening(() => undefined);
        await started.pop()!.stop();
        return { url, cause: /cannot be reached \(ECONNREFUSED\)/ };
      },
    ],
    [
      'slow past the timeout',
      async () => ({ url: await listening(() => undefined), cause: /did not answer within 300 ms/ }),
    ],
    [
      'answering HTML',
      async () => ({
        url: await listening((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>')),
        cause: /answered 200 with a body that is not JSON \(text\/html\)/,
      }),
    ],
  ])(
    '%s: the client gets a 502 upstream_unreachable problem, journaled, and nothing is compared',
    async (_name, make) => {
      const { url, cause } = await make();
      const fake = await shadowIn(url, 300);
      const answer = await fetch(`${fake.url}/v1/assets`, { headers: { authorization: 'Bearer x' } });
      expect(answer.status).toBe(502);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await answer.json()) as { detail: string };
      expect(problem).toMatchObject({ status: 502, code: 'upstream_unreachable' });
      expect(problem.detail).toMatch(cause);
      expect(await fake.control.requests()).toEqual([expect.objectContaining({ path: '/v1/assets', status: 502 })]);
      expect(await fidelityOf(fake)).toMatchObject({ exchanges: 0 });
    },
  );

  it('outside shadow mode, the report answers 409 shadow_mode_off, and health says nothing of shadow mode', async () => {
    const fake = await startServer();
    started.push(fake);
    const answer = await fetch(`${fake.url}/__control/fidelity`);
    expect(answer.status).toBe(409);
    expect(await answer.json()).toMatchObject({ code: 'shadow_mode_off' });
    expect(await (await fetch(`${fake.url}/__control/health`)).json()).toEqual({ status: 'ok' });
  });

  it('in shadow mode, health says so (the console asks it before the report), and names no upstream', async () => {
    const upstream = await startServer();
    const shadow = await startServer({ upstream: upstream.url });
    started.push(shadow, upstream);
    expect(await (await fetch(`${shadow.url}/__control/health`)).json()).toEqual({ status: 'ok', shadow_mode: true });
  });

  it('refuses an upstream URL with credentials in it before starting', async () => {
    await expect(startServer({ upstream: 'https://user:pw@sandbox.example.com' })).rejects.toThrow(
      /must not carry credentials/,
    );
  });
});

describe('a forwarded query whose names are those of an object’s prototype', () => {
  it('is replayed and checked against the document as sent: the report names each unknown parameter, the journal keeps each', async () => {
    const upstream = await startServer({ seed: 7 });
    const shadow = await startServer({ seed: 7, upstream: upstream.url });
    try {
      const form = {
        grant_type: 'client_credentials',
        scope: 'read:accounts',
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
        audience: new URL(shadow.url).host,
      };
      const granted = await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: new URLSearchParams(form) });
      const token = ((await granted.json()) as { access_token: string }).access_token;
      expect(
        (
          await fetch(`${shadow.url}/v1/accounts?constructor=3&__proto__=4`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).status,
      ).toBe(422);
      const report = JSON.parse(await (await fetch(`${shadow.url}/__control/fidelity`)).text()) as Report;
      // compared (the twin replayed it as sent), and the first name is an unknown parameter of the document, as the
      // fake's own check refuses it
      expect(report).toMatchObject({ exchanges: 2, compared: 2, not_comparable: 0 });
      expect(report.document_violations.filter((v) => v.side === 'request').map((v) => v.pointer)).toEqual([
        '/query/constructor',
      ]);
      const entry = JSON.parse(
        await (await fetch(`${shadow.url}/__control/requests?client_id=sandbox-client&path=/v1/accounts`)).text(),
      ) as { data: { query: Record<string, string> }[] };
      expect(Object.entries(entry.data[0]!.query)).toEqual([
        ['constructor', '3'],
        ['__proto__', '4'],
      ]);
    } finally {
      await shadow.stop();
      await upstream.stop();
    }
  });
});
