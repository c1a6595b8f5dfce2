import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetchToken, startServer, type FakeServer } from '../../src/index.js';
import type { Schemas } from '../../src/api/types.js';
import { MAX_MCP_SESSIONS, MAX_MCP_SESSIONS_PER_OWNER } from '../../src/mcp/sessions.js';
import { call, exerciseEveryTool, expectSchemaRefusals, expectTheTools, ok, refused } from '../support/mcp.js';

// The MCP tools over Streamable HTTP at /__control/mcp (docs/mcp.md): the SDK's own client, behind the control
// plane's guard (operator token, or a partner's token with the scope `control`, confined to its tenant).
const OPERATOR = 'mcp-operator';
const PARTNER_SCOPES: Schemas['ApiScope'][] = ['read:accounts', 'read:orders', 'control'];
let fake: FakeServer;
let endpoint: URL;
const open: Client[] = [];

beforeAll(async () => {
  fake = await startServer({
    controlToken: OPERATOR,
    fixtureScale: { accounts: 4, orders: 6 },
    clients: [
      { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
      { client_id: 'acme', client_secret: 'acme-secret', scopes: PARTNER_SCOPES },
      { client_id: 'globex', client_secret: 'globex-secret', scopes: PARTNER_SCOPES },
    ],
  });
  endpoint = new URL(`${fake.url}/__control/mcp`);
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close().catch(() => undefined)));
  await fake.stop();
});

async function connect(token: string | undefined, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { ...headers, ...(token && { Authorization: `Bearer ${token}` }) } },
  });
  await client.connect(transport);
  open.push(client);
  return client;
}

const partnerToken = (clientId: string) =>
  fetchToken(fake.url, clientId, `${clientId}-secret`, { scope: 'openid offline control' });

/** A raw JSON-RPC POST to the endpoint, for what the SDK's client would not send. */
async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${OPERATOR}`,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('MCP over Streamable HTTP at /__control/mcp', () => {
  it('lists the 22 tools with their hints and schemas from the document, and names the fake in its instructions', async () => {
    const client = await connect(OPERATOR);
    await expectTheTools(client);
    expect(client.getServerVersion()?.name).toBe('investment-api-fake');
    expect(client.getInstructions()).toContain(fake.url);
  });

  it("calls itself by the package's version in initialize, not the API document's", async () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const client = await connect(OPERATOR);
    expect(client.getServerVersion()?.version).toBe(manifest.version);
  });

  it('runs every tool over the control plane handlers', async () => {
    await exerciseEveryTool(await connect(OPERATOR), fake.url, 'mcp-http-tenant');
  });

  it('answers arguments that break a schema and unknown tools as the SDK does', async () => {
    await expectSchemaRefusals(await connect(OPERATOR));
  });

  it('acts on the default client when a tool names no tenant', async () => {
    const client = await connect(OPERATOR);
    const state = await ok<{ client: { client_id: string; default: boolean } }>(client, 'get_state');
    expect(state.value.client).toMatchObject({ client_id: 'sandbox-client', default: true });
    await ok(client, 'set_clock', { advance_seconds: 3600 });
    await ok(client, 'reset');
    // reset without client_id is the default tenant's, never every tenant's
    const acme = await ok<Schemas['Clock']>(client, 'set_clock', {
      client_id: 'acme',
      at: '2031-05-05T00:00:00Z',
      frozen: true,
    });
    await ok(client, 'reset');
    expect((await ok<Schemas['Clock']>(client, 'get_clock', { client_id: 'acme' })).value).toEqual(acme.value);
    await ok(client, 'reset', { client_id: 'acme' });
  });
});

describe('place_order', () => {
  it('places an order as the control plane does, and a market rule it breaks is a refusal naming the rule', async () => {
    const client = await connect(OPERATOR);
    await ok(client, 'reset', { client_id: 'acme' });
    const world = (await ok<Schemas['World']>(client, 'snapshot', { client_id: 'acme' })).value;
    const account = world.accounts.find(
      (a) =>
        world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
        world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
    )!;
    const asset = world.assets.find((a) => a.subscribeable)!;
    const value = world.share_classes.find((c) => c.id === asset.share_class_id)!.min_investment ?? 100_000;
    const placed = await ok<Schemas['OrderDetails']>(client, 'place_order', {
      client_id: 'acme',
      account_id: account.id,
      isin: asset.isin,
      side: 'BUY',
      market: 'PRIMARY',
      amount_of_units: 2,
      value,
    });
    expect(placed.value).toMatchObject({ status: 'PLACED', account_id: account.id, isin: asset.isin });
    expect(
      (await ok<Schemas['ControlOrder']>(client, 'get_order', { client_id: 'acme', order_id: placed.value.id })).value
        .order.id,
    ).toBe(placed.value.id);
    const closed = world.assets.find((a) => !a.subscribeable);
    if (closed) {
      await refused(
        client,
        'place_order',
        {
          client_id: 'acme',
          account_id: account.id,
          isin: closed.isin,
          side: 'BUY',
          market: 'PRIMARY',
          amount_of_units: 2,
          value,
        },
        /^asset_not_subscribeable \(422\): /,
      );
    }
    await refused(
      client,
      'place_order',
      {
        client_id: 'acme',
        account_id: account.id,
        isin: 'XX0000000000',
        side: 'BUY',
        market: 'PRIMARY',
        amount_of_units: 2,
        value,
      },
      /^\w+ \(404\): .*XX0000000000/,
    );
    await ok(client, 'reset', { client_id: 'acme' });
  });
});

describe('list_orders', () => {
  it('answers a short page by default, filtered as GET /v1/orders, with the total of every match', async () => {
    const client = await connect(OPERATOR);
    const seeded = (await ok<Schemas['World']>(client, 'snapshot', { client_id: 'sandbox-client' })).value;
    const account = seeded.accounts.find(
      (a) =>
        seeded.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
        seeded.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
    )!;
    const asset = seeded.assets.find((a) => a.subscribeable)!;
    const value = seeded.share_classes.find((c) => c.id === asset.share_class_id)!.min_investment ?? 100_000;
    // more orders than a page holds
    for (let i = seeded.orders.length; i <= 25; i++)
      await ok(client, 'place_order', {
        client_id: 'sandbox-client',
        account_id: account.id,
        isin: asset.isin,
        side: 'BUY',
        market: 'PRIMARY',
        amount_of_units: 1,
        value,
      });
    const world = (await ok<Schemas['World']>(client, 'snapshot', { client_id: 'sandbox-client' })).value;
    expect(world.orders.length).toBeGreaterThan(25);
    const page = await ok<Schemas['ControlOrderList']>(client, 'list_orders', { client_id: 'sandbox-client' });
    expect(page.value.data).toHaveLength(20);
    expect(page.value.total).toBe(world.orders.length);
    expect(page.text).toMatch(new RegExp(`^20 of ${world.orders.length} matching order\\(s\\)`));
    const placed = world.orders.filter((o) => o.status === 'PLACED');
    const filtered = await ok<Schemas['ControlOrderList']>(client, 'list_orders', {
      client_id: 'sandbox-client',
      order_status: 'PLACED',
      limit: 1000,
    });
    expect(filtered.value.data.map((o) => o.order.id)).toEqual(placed.map((o) => o.id));
    expect(
      (
        await ok<Schemas['ControlOrderList']>(client, 'list_orders', {
          client_id: 'sandbox-client',
          skip: 20,
          limit: 5,
        })
      ).value.data.map((o) => o.order.id),
    ).toEqual(world.orders.slice(20, 25).map((o) => o.id));
    await ok(client, 'reset', { client_id: 'sandbox-client' });
  });
});

describe('the guard of /__control/mcp', () => {
  it('refuses a call without the control token, or with a wrong one, as every control call (401)', async () => {
    await expect(connect(undefined)).rejects.toThrow(/401/);
    await expect(connect('wrong')).rejects.toThrow(/401/);
    const refusedRaw = await post(initialize, { authorization: 'Bearer wrong' });
    expect(refusedRaw.status).toBe(401);
    expect(await refusedRaw.json()).toMatchObject({ code: 'invalid_control_token' });
  });

  it('refuses another web origin and a Host the fake does not answer to (DNS rebinding), as the control plane does', async () => {
    const foreign = await post(initialize, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: 'cross_origin_refused' });
    const crossSite = await post(initialize, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        endpoint,
        {
          method: 'POST',
          headers: {
            host: 'attacker.example.com',
            'content-type': 'application/json',
            authorization: `Bearer ${OPERATOR}`,
          },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(initialize));
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ code: 'host_not_allowed' });
    const form = await post(initialize, { 'content-type': 'text/plain' });
    expect(form.status).toBe(415);
  });

  it('follows the transport session rules: no session → 400, an unknown one → 404, DELETE ends it', async () => {
    const listWithout = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(listWithout.status).toBe(400);
    const unknown = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': 'no-such-session' },
    );
    expect(unknown.status).toBe(404);
    // an initialize the transport refuses (it must accept both JSON and an event stream) opens no session
    const refusedInit = await post(initialize, { accept: 'application/json' });
    expect(refusedInit.status).toBe(406);
    expect(refusedInit.headers.get('mcp-session-id')).toBeNull();
    const init = await post(initialize);
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    const ended = await fetch(endpoint, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${OPERATOR}`, 'mcp-session-id': session },
    });
    expect(ended.status).toBe(200);
    const gone = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': session });
    expect(gone.status).toBe(404);
  });
});

describe('sessions of /__control/mcp', () => {
  const list = (session: string, token = OPERATOR) =>
    post(
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      { 'mcp-session-id': session, authorization: `Bearer ${token}` },
    );

  it('are capped per owner: a partner opening one past its cap closes its own oldest, never another owner’s', async () => {
    const globex = await connect(await partnerToken('globex'));
    const operatorSession = (await post(initialize)).headers.get('mcp-session-id')!;
    const acme = await partnerToken('acme');
    const opened: string[] = [];
    for (let i = 0; i <= MAX_MCP_SESSIONS_PER_OWNER; i++) {
      const response = await post(initialize, { authorization: `Bearer ${acme}` });
      expect(response.status).toBe(200);
      opened.push(response.headers.get('mcp-session-id')!);
    }
    expect((await list(opened[0]!, acme)).status).toBe(404);
    expect((await list(opened[1]!, acme)).status).toBe(200);
    expect((await list(opened.at(-1)!, acme)).status).toBe(200);
    // the other owners' sessions go on
    expect((await ok<Schemas['Clock']>(globex, 'get_clock')).value).toHaveProperty('now');
    expect((await list(operatorSession)).status).toBe(200);
  });

  it('are bounded in total: when the instance is full, an owner gives up its own oldest, and one holding none gets 409 limit_reached', async () => {
    const owners = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const full = await startServer({
      controlToken: OPERATOR,
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        ...owners.map((id) => ({ client_id: id, client_secret: `${id}-secret`, scopes: PARTNER_SCOPES })),
      ],
    });
    try {
      const tokens = Object.fromEntries(
        await Promise.all(
          owners.map(
            async (id) =>
              [id, await fetchToken(full.url, id, `${id}-secret`, { scope: 'openid offline control' })] as const,
          ),
        ),
      );
      const at = (id: string, body: unknown, session?: string) =>
        fetch(`${full.url}/__control/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${tokens[id]}`,
            ...(session && { 'mcp-session-id': session }),
          },
          body: JSON.stringify(body),
        });
      const first: Record<string, string> = {};
      const perOwner = MAX_MCP_SESSIONS / MAX_MCP_SESSIONS_PER_OWNER;
      for (const id of owners.slice(0, perOwner)) {
        for (let i = 0; i < MAX_MCP_SESSIONS_PER_OWNER; i++) {
          const opened = await at(id, initialize);
          await opened.text();
          first[id] ??= opened.headers.get('mcp-session-id')!;
        }
      }
      const refused = await at('p6', initialize);
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/^limit_reached: /);
      // p1 holds sessions: its new one takes the place of its own oldest, and p2's first session goes on
      expect((await at('p1', initialize)).status).toBe(200);
      expect((await at('p1', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, first.p1)).status).toBe(404);
      expect((await at('p2', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, first.p2)).status).toBe(200);
    } finally {
      await full.stop();
    }
  }, 60_000);

  it('are their owner’s least recently used that goes: a session in use stays', async () => {
    const acme = await partnerToken('acme');
    const opened: string[] = [];
    for (let i = 0; i < MAX_MCP_SESSIONS_PER_OWNER; i++)
      opened.push((await post(initialize, { authorization: `Bearer ${acme}` })).headers.get('mcp-session-id')!);
    // the oldest, used now, is the most recently used: the next opening closes the second instead
    expect((await list(opened[0]!, acme)).status).toBe(200);
    await post(initialize, { authorization: `Bearer ${acme}` });
    expect((await list(opened[0]!, acme)).status).toBe(200);
    expect((await list(opened[1]!, acme)).status).toBe(404);
  });
});

describe('a partner through /__control/mcp (its own token with the scope control)', () => {
  it('acts on its own tenant only, through every tool that names one', async () => {
    const acme = await connect(await partnerToken('acme'));
    const clients = await ok<Schemas['ClientList']>(acme, 'list_clients');
    expect(clients.value.data.map((c) => c.client_id)).toEqual(['acme']);
    // no client_id: its own tenant, not the default client's
    const state = await ok<{ client: { client_id: string } }>(acme, 'get_state');
    expect(state.value.client.client_id).toBe('acme');
    // (its own token's expiry is on that clock: a move within the hour keeps it valid)
    const moved = await ok<Schemas['Clock']>(acme, 'set_clock', { advance_seconds: 600, frozen: true });
    const operator = await connect(OPERATOR);
    expect((await ok<Schemas['Clock']>(operator, 'get_clock', { client_id: 'acme' })).value).toEqual(moved.value);
    expect((await ok<Schemas['Clock']>(operator, 'get_clock')).value).toMatchObject({ frozen: false });
    const globexBefore = (await ok<Schemas['World']>(operator, 'snapshot', { client_id: 'globex' })).value;

    // naming another tenant is refused by every tool that acts on one
    const forbidden = /^forbidden_tenant \(403\): /;
    for (const [name, args] of [
      ['get_state', {}],
      ['reset', {}],
      ['snapshot', {}],
      ['restore', globexBefore],
      ['get_clock', {}],
      ['set_clock', { advance_seconds: 60 }],
      ['list_orders', {}],
      ['get_order', { order_id: globexBefore.orders[0]!.id }],
      [
        'place_order',
        {
          account_id: globexBefore.accounts[0]!.id,
          isin: globexBefore.assets[0]!.isin,
          side: 'BUY',
          market: 'PRIMARY',
          amount_of_units: 1,
          value: 100_000,
        },
      ],
      ['force_order_status', { order_id: globexBefore.orders[0]!.id, status: 'CANCELLED' }],
      ['advance_order', { order_id: globexBefore.orders[0]!.id }],
      ['add_fault', { status: 503 }],
      ['list_faults', {}],
      ['clear_faults', {}],
      ['list_requests', {}],
      ['verify', { request: {} }],
      ['readiness_report', {}],
      ['export_session', { format: 'har' }],
      ['get_token', {}],
      ['list_clients', {}],
      ['update_client', { settings: { order_progression: 'clock' } }],
    ] as const) {
      await refused(acme, name, { client_id: 'globex', ...args }, forbidden);
    }
    // what only the operator may do
    await refused(acme, 'create_client', { client_id: 'acme-2', client_secret: 'x' }, /^operator_only \(403\): /);
    await refused(acme, 'update_client', { scopes: ['read:accounts'] }, /^operator_only \(403\): /);
    // its own: allowed, and globex is untouched
    expect(
      (await ok<Schemas['Client']>(acme, 'update_client', { settings: { order_polls_per_step: 7 } })).value.client_id,
    ).toBe('acme');
    await ok(acme, 'reset');
    expect((await ok<Schemas['World']>(operator, 'snapshot', { client_id: 'globex' })).value).toEqual(globexBefore);
    const token = await ok<Schemas['TokenResponse']>(acme, 'get_token');
    expect(token.value.scope).toContain('read:accounts');
    // it says where the token is valid: the fake as the session addressed it, and no other host
    const { host } = new URL(fake.url);
    expect(token.text).toContain(
      `for requests to ${fake.url.replace(/\/$/, '')} only (its issuer; audience "${host}")`,
    );
    expect(
      (await fetch(`${fake.url}/v1/accounts`, { headers: { authorization: `Bearer ${token.value.access_token}` } }))
        .status,
    ).toBe(200);
    const elsewhere = fake.url.replace('127.0.0.1', 'localhost');
    expect(
      (await fetch(`${elsewhere}/v1/accounts`, { headers: { authorization: `Bearer ${token.value.access_token}` } }))
        .status,
    ).toBe(401);
  });

  it("cannot use another caller's session", async () => {
    const acmeToken = await partnerToken('acme');
    const init = await post(initialize, { authorization: `Bearer ${acmeToken}` });
    const session = init.headers.get('mcp-session-id')!;
    const globexToken = await partnerToken('globex');
    const hijack = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { authorization: `Bearer ${globexToken}`, 'mcp-session-id': session },
    );
    expect(hijack.status).toBe(404);
    const operatorHijack = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session });
    expect(operatorHijack.status).toBe(404);
  });

  it('is refused without the scope control (403 insufficient_scope)', async () => {
    const plain = await fetchToken(fake.url, 'acme', 'acme-secret');
    await expect(connect(plain)).rejects.toThrow(/403/);
    const result = await call(await connect(OPERATOR), 'list_clients', { client_id: 'acme' });
    expect((result.structuredContent as Schemas['ClientList']).data.map((c) => c.client_id)).toEqual(['acme']);
  });
});

describe('the tools of /__control/mcp go through the app, as any control call', () => {
  it("leave a tool's token request out of the tenant's journal: it is the agent's, not the client's", async () => {
    const client = await connect(OPERATOR);
    await ok(client, 'create_client', { client_id: 'mcp-journal', client_secret: 'mcp-journal-secret' });
    await ok<Schemas['TokenResponse']>(client, 'get_token', { client_id: 'mcp-journal' });
    const journal = await ok<Schemas['JournalEntryList']>(client, 'list_requests', {
      client_id: 'mcp-journal',
      since: 'start',
    });
    expect(journal.value.data).toEqual([]);
  });

  it("carry the caller's address: behind a TLS proxy, a partner's token issued for https:// works for its tools", async () => {
    const proxied = await startServer({
      trustProxy: true,
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'acme', client_secret: 'acme-secret', scopes: PARTNER_SCOPES },
      ],
    });
    try {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'openid offline control',
        audience: new URL(proxied.url).host,
        client_id: 'acme',
        client_secret: 'acme-secret',
      });
      const issued = await fetch(`${proxied.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'x-forwarded-proto': 'https' },
        body: form,
      });
      const { access_token } = (await issued.json()) as Schemas['TokenResponse'];
      const client = new Client({ name: 'behind-a-proxy', version: '1.0.0' });
      const headers = { authorization: `Bearer ${access_token}`, 'x-forwarded-proto': 'https' };
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${proxied.url}/__control/mcp`), { requestInit: { headers } }),
      );
      try {
        expect((await ok<{ client: { client_id: string } }>(client, 'get_state')).value.client.client_id).toBe('acme');
        expect(client.getInstructions()).toContain(`https://${new URL(proxied.url).host}`);
      } finally {
        // closed before its fake stops, which would otherwise wait out the session's open stream
        await client.close();
      }
    } finally {
      await proxied.stop();
    }
  });
});
