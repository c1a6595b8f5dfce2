// GET /__control/export?format=vitest as text: what the file holds (the run itself: test/e2e/vitest-export.test.ts),
// and the control changes the journal now keeps beside the requests, which no reader of the partner's traffic sees.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { driveSession } from '../support/replayed-session.js';
import { codeShape, foreignCode, literalsOf } from '../support/generated-code.js';

let fake: FakeServer;

beforeAll(async () => {
  fake = await startServer({
    seed: 1,
    clients: [
      {
        client_id: 'acme',
        client_secret: 'acme-secret-0123456789',
        scopes: ['read:accounts', 'write:accounts', 'read:orders', 'write:orders', 'read:assets', 'control'],
      },
    ],
  });
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

/** The names of the file's `it`s, in order. */
const steps = (file: string): string[] =>
  [...file.matchAll(/^ {2}it(?:\.skip)?\("([^"]+)"/gm)].map(([, title]) => title!);

describe('a session exported as a vitest file', () => {
  it('imports only node:http, vitest and the package, and holds no secret nor token of the session', async () => {
    const token = await fake.token('acme', { fresh: true });
    await driveSession(fake, 'acme');
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect([...file.matchAll(/^import .* from '([^']+)';$/gm)].map(([, from]) => from)).toEqual([
      'node:http',
      'vitest',
      'investment-api-fake',
    ]);
    expect(file).not.toContain('acme-secret-0123456789');
    expect(file).not.toContain(token);
    expect(file).not.toContain(token.split('.')[1]);
    expect(file).not.toMatch(/eyJ[\w-]{10,}/);
    // the replay's own secret is made up when it runs: no secret is written at all
    expect(file).toContain('const CLIENT_SECRET = `replay-${crypto.randomUUID()}`;');
    expect(file).not.toMatch(/secret\W{1,4}["'`][\w-]{8,}/i);
    // the same file over the control plane, as the console and MCP read it
    expect(await fake.control.forClient('acme').exportRequests('vitest')).toBe(file);
  });

  it('reads the identifiers the session created from the replayed answers, and writes those of the starting world as they are', async () => {
    const { startingAccountId } = await driveSession(fake, 'acme');
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    const state = fake.state('acme');
    const created = state.accounts.find((a) => a.external_id === 'replay-1')!;
    const order = state.orders.find((o) => o.account_id === created.id)!;
    const wallet = state.wallets.find((w) => w.account_id === created.id && !w.is_primary)!;
    for (const issued of [created.id, order.id, wallet.id]) expect(file).not.toContain(issued);
    expect(file).toContain('account1 = issued(answer.body, "/id", STEP);');
    expect(file).toContain('wallet1 = issued(answer.body, "/id", STEP);');
    expect(file).toContain('order1 = answer.id;');
    expect(file).toContain('send("POST", `/v1/accounts/${account1}/wallets`');
    expect(file).toContain('send("DELETE", `/v1/orders/${order1}/`');
    expect(file).toContain(`send("GET", "/v1/accounts/${startingAccountId}"`);
    expect(file).toContain(`id: "${startingAccountId}",`);
    // in a query too, the rest of it byte for byte
    expect(file).toContain('send("GET", `/v1/orders?account_id=${account1}&order_status=CANCELLED`');
  });

  it("reads a record made inside another (an account's first wallet) from the list that shows it first", async () => {
    const token = await fake.token('acme');
    const send = async (method: string, path: string, body?: unknown) =>
      (await fetch(`${fake.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }).then((r) => r.json())) as { id: string; data: { id: string }[] };
    const account = await send('POST', '/v1/accounts', {
      type: 'individual',
      first_name: 'Ann',
      last_name: 'Example',
      dob_day: 14,
      dob_month: 7,
      dob_year: 1985,
      country: 'DE',
      wallets: [{ chain: 'polygon', wallet_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', is_primary: true }],
    });
    const wallet = (await send('GET', `/v1/accounts/${account.id}/wallets`)).data[0]!;
    await send('PATCH', `/v1/accounts/${account.id}/wallets/${wallet.id}`, { is_primary: true });
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(file).not.toContain(wallet.id);
    expect(file).toContain('wallet1 = issued(answer.body, "/data/0/id", STEP);');
    expect(file).toContain('send("PATCH", `/v1/accounts/${account1}/wallets/${wallet1}`');
  });

  it("replays a Pact provider state set up in the session, reading the records it made from the replay's answer", async () => {
    const control = fake.control.forClient('acme');
    const made = (await control.providerState({
      state: 'an account exists',
      params: { type: 'individual', first_name: 'Wile' },
      action: 'setup',
    })) as { accountId: string };
    await control.providerState({ state: 'an account exists', action: 'teardown' });
    const token = await fake.token('acme');
    await fetch(`${fake.url}/v1/accounts/${made.accountId}`, { headers: { authorization: `Bearer ${token}` } });
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(steps(file).slice(0, 1)).toEqual(['1. control: provider state: an account exists']);
    expect(file).toContain('account1 = answer["accountId"];');
    expect(file).toContain('send("GET", `/v1/accounts/${account1}`');
    expect(file).not.toContain(made.accountId);
  });

  it('writes one step per request and control change, in the order the tenant saw them, each asserted', async () => {
    await driveSession(fake, 'acme');
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(steps(file)).toEqual([
      '1. POST /oauth2/token → 200',
      '2. POST /v1/accounts → 201',
      '3. POST /v1/accounts/{account1}/wallets → 201',
      expect.stringMatching(/^4\. GET \/v1\/accounts\/\{account1\}\/wallets\/\{wallet1\} → 405/),
      expect.stringMatching(/^5\. GET \/v1\/accounts\/[\w-]+ → 200$/),
      '6. control: place an order',
      '7. control: clock advanced 90 s',
      '8. control: order {order1} forced to AWAITING_PAYMENT',
      '9. GET /v1/accounts/00000000-0000-4000-8000-000000000000 → 404 not_found',
      '10. GET /v1/orders → 200',
      '11. DELETE /v1/orders/{order1}/ → 200',
      '12. DELETE /v1/orders/{order1}/ → 409 order_not_cancellable',
      '13. GET /v1/orders → 200',
    ]);
    expect(file).toContain('expect(answer.body?.code, STEP).toBe("order_not_cancellable");');
    expect(file).toContain('const answer = await control.setOrderStatus(order1, "AWAITING_PAYMENT");');
    // the clock move is replayed as a move to the instant it reached, before the steps after it
    const clock = fake.state('acme').orders.length > 0 ? file.indexOf('7. control: clock advanced 90 s') : -1;
    expect(file.indexOf('await clockAt(', clock)).toBeGreaterThan(clock);
  });

  it('starts from the tenant as its span began: seed, settings and scopes, the clock then', async () => {
    await fake.control
      .forClient('acme')
      .updateClient('acme', { settings: { order_progression: 'polls', order_polls_per_step: 2 } });
    fake.reset('acme');
    const before = Date.now();
    await fake.control.forClient('acme').updateClient('acme', { settings: { order_progression: 'manual' } });
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(file).toContain('seed: 1,');
    expect(file).toContain('order_progression: "polls",');
    expect(file).toContain('"control",');
    const started = Date.parse(/const STARTED_AT = "([^"]+)";/.exec(file)![1]!);
    expect(Math.abs(started - before)).toBeLessThan(2000);
    // the settings changed within the span: a step of its own
    expect(steps(file)).toEqual(['1. control: change the client']);
    expect(file).toContain('await control.updateClient(CLIENT_ID, {');
  });

  it('says a step cannot be replayed when the journal cut its body, never sends it wrong', async () => {
    const token = await fake.token('acme');
    await fetch(`${fake.url}/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'individual', first_name: 'A'.repeat(20_000) }),
    });
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(file).toMatch(/\/\/ not replayed: its body \(\d+ bytes\) was cut by the journal/);
    expect(file).toContain('it.skip("1. POST /v1/accounts → ');
  });

  it("replays a token request sent by HTTP Basic with the made-up secret, and none of the session's credentials", async () => {
    const basic = Buffer.from('acme:acme-secret-0123456789').toString('base64');
    const answer = await fetch(`${fake.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: new URL(fake.url).host }).toString(),
    });
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(steps(file)).toEqual([
      `1. POST /oauth2/token → ${answer.status}${answer.status === 200 ? '' : ` ${((await answer.json()) as { error: string }).error}`}`,
    ]);
    expect(file).toMatch(/authorization: basic\(CLIENT_ID, (CLIENT_SECRET|WRONG_SECRET)\)/);
    expect(file).toContain('audience: new URL(fake.url).host,');
    expect(file).not.toContain(basic);
    expect(file).not.toContain('acme-secret-0123456789');
  });

  it('is written skipped, saying why, when the journal no longer holds the whole span; a reset starts a whole one', async () => {
    await fake.token('acme', { fresh: true });
    fake.clearRequests('acme');
    expect(fake.exportRequests('vitest', { clientId: 'acme' })).toMatch(
      /NOT REPLAYED: the journal no longer holds the whole span[\s\S]*describe\.skip\(/,
    );
    fake.reset('acme');
    fake.clearRequests('acme');
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(file).not.toContain('NOT REPLAYED');
    expect(file).toContain('describe("session of acme"');
  });
});

describe('outside values in the file (CONTRACT 16)', () => {
  it('a body member named __proto__ is replayed as a member, so the replay sends the bytes the session sent', async () => {
    const token = await fake.token('acme');
    const account = {
      type: 'individual',
      external_id: 'proto-1',
      first_name: 'Ann',
      last_name: 'Example',
      dob_day: 14,
      dob_month: 7,
      dob_year: 1985,
      country: 'DE',
    };
    const sent = `${JSON.stringify(account).slice(0, -1)},"__proto__":{"first_name":"Mallory"}}`;
    const answer = await fetch(`${fake.url}/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: sent,
    });
    // the fake refuses the member it does not know
    expect(answer.status).toBe(422);
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    expect(file).toContain('["__proto__"]: {');
    expect(literalsOf(file, 'json').map((value) => JSON.stringify(value))).toEqual([JSON.stringify(JSON.parse(sent))]);
    expect(foreignCode(file)).toEqual([]);
  });

  it('a client secret that reads as code (answer.status) is taken out of the values only: every step still reads its answer', async () => {
    const secret = 'answer.status';
    const scopes = ['read:accounts', 'write:accounts', 'read:orders', 'write:orders', 'read:assets'] as const;
    const own = await startServer({
      seed: 1,
      clients: [{ client_id: 'coder', client_secret: secret, scopes: [...scopes] }],
    });
    try {
      const form = {
        grant_type: 'client_credentials',
        scope: scopes.join(' '),
        audience: new URL(own.url).host,
        client_id: 'coder',
        client_secret: secret,
      };
      const issued = await fetch(`${own.url}/oauth2/token`, { method: 'POST', body: new URLSearchParams(form) });
      const token = ((await issued.json()) as { access_token: string }).access_token;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      await fetch(`${own.url}/v1/accounts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          type: 'individual',
          external_id: secret,
          first_name: 'Ann',
          last_name: 'Example',
          dob_day: 14,
          dob_month: 7,
          dob_year: 1985,
          country: 'DE',
        }),
      });
      await fetch(`${own.url}/v1/accounts?limit=5`, { headers });
      const file = own.exportRequests('vitest', { clientId: 'coder' });
      expect(file.match(/expect\(answer\.status, STEP\)\.toBe\(\d+\);/g)).toHaveLength(3);
      expect(codeShape(file).names).not.toContain('redacted');
      expect(foreignCode(file)).toEqual([]);
      // the values that held it
      expect(codeShape(file).strings.filter((value) => value.includes('[redacted]')).length).toBeGreaterThan(0);
      expect(codeShape(file).strings.join('\n')).not.toContain(secret);
    } finally {
      await own.stop();
    }
  });
});

describe('GET /__control/export?format=vitest', () => {
  it('answers text/plain as an attachment named for a test file, the same file as the library', async () => {
    await fake.token('acme', { fresh: true });
    const response = await fetch(`${fake.url}/__control/export?format=vitest`, { headers: { 'x-client-id': 'acme' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="acme-requests.test.ts"');
    expect(await response.text()).toBe(fake.exportRequests('vitest', { clientId: 'acme' }));
  });

  it("a partner's control token exports its own session, and no other tenant's", async () => {
    const form = {
      grant_type: 'client_credentials',
      scope: 'openid offline control',
      audience: new URL(fake.url).host,
      client_id: 'acme',
      client_secret: 'acme-secret-0123456789',
    };
    const issued = await fetch(`${fake.url}/oauth2/token`, { method: 'POST', body: new URLSearchParams(form) });
    const token = ((await issued.json()) as { access_token: string }).access_token;
    const own = await fetch(`${fake.url}/__control/export?format=vitest`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await own.text()).toContain('const CLIENT_ID = "acme";');
    const other = await fetch(`${fake.url}/__control/export?format=vitest&client_id=sandbox-client`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { code: string }).code).toBe('forbidden_tenant');
  });
});

describe('the control changes the journal keeps', () => {
  it('are not the partner traffic: not in GET /__control/requests, the HAR, the .http file, verify or the report', async () => {
    const control = fake.control.forClient('acme');
    await driveSession(fake, 'acme');
    await control.addFault({ method: 'GET', path: '/v1/assets', status: 503, count: 1 });
    await control.clearFaults();
    const requests = await control.requests();
    expect(requests.every((entry) => !entry.path.startsWith('/__control'))).toBe(true);
    expect(requests).toHaveLength(10);
    const har = JSON.parse(fake.exportRequests('har', { clientId: 'acme', since: 'reset' })) as {
      log: { entries: { request: { url: string } }[] };
    };
    expect(har.log.entries).toHaveLength(10);
    expect(fake.exportRequests('http', { clientId: 'acme', since: 'reset' })).not.toContain('__control');
    expect(fake.verify({ method: 'POST', path: '/__control*' }, { exactly: 0 }, 'acme').matched).toBe(0);
    expect(fake.report({ clientId: 'acme', since: 'reset' }).requests_seen).toBe(10);
    // and the replay has them in place
    const file = fake.exportRequests('vitest', { clientId: 'acme' });
    // no later step names the fault: it is added, and no variable holds it
    expect(file).toContain('await control.addFault({');
    expect(file).not.toContain('fault1');
    expect(file).toContain('await control.clearFaults();');
  });
});
