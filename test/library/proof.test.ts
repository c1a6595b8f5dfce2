import { AssertionError } from 'node:assert';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, VerificationError, type FakeServer } from '../../src/index.js';
import { matchers } from '../../src/vitest.js';

expect.extend(matchers);

let fake: FakeServer;
let token: string;
const get = (path: string) => fetch(`${fake.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  fake = await startServer({ seed: 1 });
});
afterAll(() => fake.stop());
beforeEach(async () => {
  // a reset keeps the journal (the report covers a whole suite): each test here starts from an empty one
  fake.reset();
  fake.clearRequests();
  token = await fake.token(undefined, { fresh: true }); // a token request in each test's journal, as the near misses show
});

describe('fake.verify', () => {
  it('answers the matching requests in this process, at once', async () => {
    await get('/v1/orders?order_status=PLACED');
    expect(fake.verify({ operation: 'listOrders', query: { order_status: 'PLACED' } })).toEqual({
      matched: 1,
      requests: [expect.any(String)],
    });
    expect(fake.verify({ method: 'POST', path: '/oauth2/token' }, { exactly: 1 }).matched).toBe(1);
  });

  it('throws an AssertionError whose message shows what was sent instead', async () => {
    await get('/v1/orders?order_status=COMPLETED&limit=5');
    let thrown: unknown;
    try {
      fake.verify({ operation: 'listOrders', query: { order_status: 'PLACED' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AssertionError);
    expect(thrown).toBeInstanceOf(VerificationError);
    const message = (thrown as Error).message;
    expect(message).toContain(
      'Expected at least 1 request(s) matching operation listOrders, query order_status=PLACED; 0 matched.',
    );
    expect(message).toMatch(
      /Near misses, closest first:\n {2}request \d+: GET \/v1\/orders\?order_status=COMPLETED&limit=5 → 200 \(listOrders\)\n {6}query\.order_status: expected "PLACED", got "COMPLETED"/,
    );
    expect((thrown as VerificationError).failure.near_misses).toHaveLength(2);
  });

  it('shows the body sent when the body differs', async () => {
    await fetch(`${fake.url}/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'business', business_name: 'Acme' }),
    });
    expect(() => fake.verify({ operation: 'createAccount', body: { type: 'individual' } })).toThrow(
      /body\.type: expected "individual", got "business"\n {6}body sent: \{"type":"business","business_name":"Acme"\}/,
    );
  });
});

describe('the control client', () => {
  it('verifies over HTTP, rejecting with the same AssertionError', async () => {
    await get('/v1/assets');
    await expect(fake.control.verify({ operation: 'listAssets' }, { exactly: 1 })).resolves.toMatchObject({
      matched: 1,
    });
    const failure = await fake.control
      .verify({ operation: 'listAssets' }, { exactly: 2 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AssertionError);
    expect((failure as Error).message).toContain(
      'Expected exactly 2 request(s) matching operation listAssets; 1 matched.',
    );
  });

  it('reports bad patterns as a ControlError, not as an assertion', async () => {
    // a compile error in TypeScript (operation is typed as the document's ids); a plain JavaScript caller gets a 422
    // @ts-expect-error: not an operation of the document
    await expect(fake.control.verify({ operation: 'listPizzas' })).rejects.toMatchObject({
      name: 'ControlError',
      status: 422,
    });
  });

  it('reads the report as JUnit and the journal as HAR and .http', async () => {
    await get('/v1/assets');
    expect(await fake.control.reportJunit()).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    expect(JSON.parse(await fake.control.exportRequests()).log.version).toBe('1.2');
    expect(await fake.control.exportRequests('http')).toContain(
      `GET {{base}}/v1/assets\nAuthorization: Bearer {{token}}`,
    );
    const contract = JSON.parse(await fake.control.exportRequests('pact', { consumer: 'my-app' })) as {
      consumer: { name: string };
      interactions: { description: string }[];
    };
    expect(contract.consumer).toEqual({ name: 'my-app' });
    expect(contract.interactions.map((i) => i.description)).toContain('GET /v1/assets answers 200');
    expect(await fake.control.providerState({ state: 'an asset exists', action: 'setup' })).toEqual({
      isin: expect.any(String),
    });
  });
});

describe('the vitest matchers', () => {
  it('toHaveReceived passes, fails with the near misses, and negates, on a FakeServer at once', async () => {
    await get('/v1/orders?order_status=PLACED');
    expect(fake).toHaveReceived({ operation: 'listOrders', query: { order_status: 'PLACED' } }, { at_least: 1 });
    expect(fake).not.toHaveReceived({ operation: 'cancelOrder' });
    expect(() =>
      expect(fake).toHaveReceived({ operation: 'listOrders', query: { order_status: 'COMPLETED' } }),
    ).toThrow(/query\.order_status: expected "COMPLETED", got "PLACED"/);
    expect(() => expect(fake).not.toHaveReceived({ operation: 'listOrders' })).toThrow(/but 1 matched/);
  });

  it('toHaveReceived on a control client is awaited', async () => {
    await get('/v1/assets');
    await expect(fake.control).toHaveReceived({ operation: 'listAssets' }, { exactly: 1 });
    await expect(expect(fake.control).toHaveReceived({ operation: 'listAssets' }, { exactly: 3 })).rejects.toThrow(
      /Expected exactly 3 request/,
    );
  });

  it('toHaveNoReadinessFindings passes for a careful client and lists findings for a careless one', async () => {
    await get('/v1/assets');
    expect(fake).toHaveNoReadinessFindings();
    await expect(fake.control).toHaveNoReadinessFindings();
    for (let i = 0; i < 3; i++) await get('/v1/orders/');
    expect(() => expect(fake).toHaveNoReadinessFindings()).toThrow(
      /\[error\] wrong_path: GET \/v1\/orders\/ was sent 3 times[^\n]*\n {6}hint: Send GET \/v1\/orders, the path the document has[^\n]*\n {6}requests: \d+, \d+, \d+\n {6}docs: docs\/readiness\.md#wrong_path/,
    );
    expect(fake).toHaveNoReadinessFindings({ allow: ['wrong_path'] });
  });

  it("toHaveNoReadinessFindings states its span: an earlier test's findings fail it over the whole journal, not since the reset", async () => {
    for (let i = 0; i < 3; i++) await get('/v1/orders/');
    fake.reset();
    await get('/v1/assets');
    expect(() => expect(fake).toHaveNoReadinessFindings()).toThrow(
      /^The readiness report of sandbox-client over its whole journal \(\d+ request\(s\) seen, across 1 reset\) has 1 finding\(s\):\n/,
    );
    expect(() => expect(fake).toHaveNoReadinessFindings()).toThrow(
      /\nFindings before the last reset count too: \{ since: 'reset' \} reads since the last reset only\.$/,
    );
    await expect(expect(fake.control).toHaveNoReadinessFindings()).rejects.toThrow(
      /over its whole journal .* across 1 reset/,
    );
    expect(fake).toHaveNoReadinessFindings({ since: 'reset' });
    await expect(fake.control).toHaveNoReadinessFindings({ since: 'reset' });

    for (let i = 0; i < 3; i++) await get('/v1/orders/');
    expect(() => expect(fake).toHaveNoReadinessFindings({ since: 'reset' })).toThrow(
      /^The readiness report of sandbox-client since its last reset \(4 request\(s\) seen\) has 1 finding\(s\):\n/,
    );
    expect(() => expect(fake).toHaveNoReadinessFindings({ since: 'reset' })).not.toThrow(
      /Findings before the last reset/,
    );
    expect(() => expect(fake).not.toHaveNoReadinessFindings({ since: 'reset', allow: ['wrong_path'] })).toThrow(
      /^Expected readiness findings for sandbox-client since its last reset, but its 4 request\(s\) raised none\.$/,
    );
  });

  it('toHaveNoReadinessFindings fails when no request was seen: an empty report proves nothing', () => {
    fake.reset();
    expect(() => expect(fake).toHaveNoReadinessFindings({ since: 'reset' })).toThrow(
      /No requests yet: the readiness report of sandbox-client since its last reset saw no request/,
    );
    fake.clearRequests();
    expect(() => expect(fake).toHaveNoReadinessFindings()).toThrow(
      /No requests yet: the readiness report of sandbox-client over its whole journal saw no request/,
    );
  });

  it('across resets: verify counts since the last one, the report and the exports cover the whole journal', async () => {
    await get('/v1/assets');
    fake.reset();
    await get('/v1/assets');
    expect(fake.verify({ operation: 'listAssets' }, { exactly: 1 }).matched).toBe(1);
    expect(fake.verify({ operation: 'listAssets' }, { exactly: 2 }, { since: 'start' }).matched).toBe(2);
    expect(fake).toHaveReceived({ operation: 'listAssets' }, { exactly: 2 }, { since: 'start' });
    await expect(fake.control).toHaveReceived({ operation: 'listAssets' }, { exactly: 1 });
    await expect(fake.control).toHaveReceived({ operation: 'listAssets' }, { exactly: 2 }, { since: 'start' });
    expect(fake.report()).toMatchObject({ requests_seen: 3, since: 'start', resets: 1 });
    expect(fake.report({ since: 'reset' })).toMatchObject({ requests_seen: 1, since: 'reset', resets: 0 });
    expect(await fake.control.report({ since: 'reset' })).toMatchObject({ requests_seen: 1 });
    const har = JSON.parse(fake.exportRequests('har')) as {
      log: { pages: { title: string }[]; entries: { pageref: string }[] };
    };
    expect(har.log.entries.map((e) => e.pageref)).toEqual(['stretch_1', 'stretch_1', 'stretch_2']);
    expect(har.log.pages[1]!.title).toMatch(/^Requests after the reset at \d{4}-/);
    expect(JSON.parse(fake.exportRequests('har', { since: 'reset' })).log.entries).toHaveLength(1);
    expect(fake.exportRequests('http')).toMatch(
      /\n# ----- after the reset at [^\n]+ -----\n\n### \d+: GET \/v1\/assets/,
    );
    expect((await fake.control.requests()).map((r) => r.path)).toEqual(['/v1/assets']);
    expect((await fake.control.requests({ since: 'start' })).map((r) => r.path)).toEqual([
      '/oauth2/token',
      '/v1/assets',
      '/v1/assets',
    ]);
  });

  it('refuses a subject that is neither a fake nor a control client', () => {
    expect(() => expect({}).toHaveReceived({})).toThrow(/expects a FakeServer/);
  });
});
