import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Schemas } from '../../src/api/types.js';

/** The 22 tools: CONTRACT 14's 21, in its order, and place_order (issue 41). */
export const TOOL_NAMES = [
  'list_clients',
  'create_client',
  'update_client',
  'get_state',
  'reset',
  'snapshot',
  'restore',
  'get_clock',
  'set_clock',
  'list_orders',
  'get_order',
  'place_order',
  'force_order_status',
  'advance_order',
  'add_fault',
  'list_faults',
  'clear_faults',
  'list_requests',
  'verify',
  'readiness_report',
  'export_session',
  'get_token',
] as const;

const READ_ONLY = [
  'list_clients',
  'get_state',
  'snapshot',
  'get_clock',
  'list_orders',
  'get_order',
  'list_faults',
  'list_requests',
  'verify',
  'readiness_report',
  'export_session',
];
const DESTRUCTIVE = ['reset', 'restore', 'clear_faults'];

/** A tool's result (the SDK client has already checked its structuredContent against the tool's output schema). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { ...result, text };
}

/** A successful tool call's structured result. */
export async function ok<T>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ value: T; text: string }> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.text}`);
  return { value: result.structuredContent as T, text: result.text };
}

/** A refused call: a tool error whose text names the problem code. */
export async function refused(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  pattern: RegExp,
): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError, `${name} should be refused: ${result.text}`).toBe(true);
  expect(result.text).toMatch(pattern);
  return result.text;
}

/** tools/list: the 22 names, their hints, a one-line description each, `client_id` on every input. */
export async function expectTheTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
  for (const tool of tools) {
    expect(tool.description, tool.name).toMatch(/^[^\n]{20,300}$/);
    expect((tool.inputSchema.properties as Record<string, unknown>).client_id, tool.name).toMatchObject({
      type: 'string',
    });
    expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_ONLY.includes(tool.name));
    if (!READ_ONLY.includes(tool.name))
      expect(tool.annotations?.destructiveHint, tool.name).toBe(DESTRUCTIVE.includes(tool.name));
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  // schemas from the document: set_clock's `at` is ClockChange's `now`; verify's input is the Verification body
  expect(byName.get('set_clock')!.inputSchema.properties).toMatchObject({
    at: { type: 'string', format: 'date-time' },
    advance_seconds: { type: 'number' },
    frozen: { type: 'boolean' },
  });
  expect(byName.get('verify')!.inputSchema).toMatchObject({
    required: ['request'],
    properties: { request: { $ref: '#/$defs/RequestPattern' } },
  });
  expect(byName.get('get_order')!.outputSchema).toMatchObject({ required: ['order', 'status_history', 'next_step'] });
  expect(byName.get('export_session')!.inputSchema.properties).toMatchObject({
    format: { enum: expect.arrayContaining(['har', 'http', 'pact', 'vitest']) },
    consumer: { type: 'string' },
  });
}

/**
 * Every tool once (and several twice), on a tenant of its own made by create_client, against the fake at `url`:
 * the same scenario over stdio and over Streamable HTTP.
 */
export async function exerciseEveryTool(client: Client, url: string, tenant: string): Promise<void> {
  const clients = await ok<Schemas['ClientList']>(client, 'list_clients');
  expect(clients.value.data.some((c) => c.default)).toBe(true);
  expect(clients.text).toMatch(/\(default\)/);

  const made = await ok<Schemas['Client']>(client, 'create_client', {
    client_id: tenant,
    client_secret: `${tenant}-secret`,
    scopes: ['read:accounts', 'read:orders'],
  });
  expect(made.value).toMatchObject({ client_id: tenant, scopes: ['read:accounts', 'read:orders'] });
  await refused(client, 'create_client', { client_id: tenant, client_secret: 'again' }, /^client_exists \(409\): /);
  const updated = await ok<Schemas['Client']>(client, 'update_client', {
    client_id: tenant,
    settings: { order_progression: 'manual', order_polls_per_step: 5 },
  });
  expect(updated.value.settings).toMatchObject({ order_progression: 'manual', order_polls_per_step: 5 });

  const state = await ok<{
    client: { client_id: string };
    records: Record<string, number>;
    faults: unknown[];
    clock: Schemas['Clock'];
  }>(client, 'get_state', { client_id: tenant });
  expect(state.value.client.client_id).toBe(tenant);
  expect(state.value.records.orders).toBeGreaterThan(0);
  expect(state.text).toMatch(/^Tenant .*\nSettings: .*\nClock: /);

  // an order: forced back to PLACED, advanced one step, shown with its history
  const orders = await ok<Schemas['ControlOrderList']>(client, 'list_orders', { client_id: tenant });
  const orderId = orders.value.data[0]!.order.id;
  expect(orders.text).toContain(orderId);
  const placed = await ok<Schemas['OrderDetails']>(client, 'force_order_status', {
    client_id: tenant,
    order_id: orderId,
    status: 'PLACED',
  });
  expect(placed.value.status).toBe('PLACED');
  const advanced = await ok<Schemas['OrderDetails']>(client, 'advance_order', { client_id: tenant, order_id: orderId });
  expect(advanced.value.status).not.toBe('PLACED');
  const view = await ok<Schemas['ControlOrder']>(client, 'get_order', { client_id: tenant, order_id: orderId });
  expect(view.value.status_history.at(-1)).toMatchObject({ status: advanced.value.status, by: 'control' });
  expect(view.text).toMatch(
    new RegExp(`^Order ${orderId}: .*\\nHistory:\\n(  \\S+  [A-Z_]+ \\(by \\w+\\)\\n)+Next step: `),
  );
  await ok(client, 'force_order_status', { client_id: tenant, order_id: orderId, status: 'COMPLETED' });
  await refused(client, 'advance_order', { client_id: tenant, order_id: orderId }, /^order_not_advanceable \(409\): /);
  await refused(
    client,
    'get_order',
    { client_id: tenant, order_id: '00000000-0000-4000-8000-000000000000' },
    /^not_found \(404\): /,
  );

  // the clock: a day later, then an instant, frozen
  const before = await ok<Schemas['Clock']>(client, 'get_clock', { client_id: tenant });
  const later = await ok<Schemas['Clock']>(client, 'set_clock', { client_id: tenant, advance_seconds: 86_400 });
  expect(Date.parse(later.value.now) - Date.parse(before.value.now)).toBeGreaterThanOrEqual(86_400_000);
  const fixed = await ok<Schemas['Clock']>(client, 'set_clock', {
    client_id: tenant,
    at: '2030-01-01T00:00:00Z',
    frozen: true,
  });
  expect(fixed.value).toEqual({ now: '2030-01-01T00:00:00.000Z', frozen: true });

  // faults
  const fault = await ok<Schemas['Fault']>(client, 'add_fault', {
    client_id: tenant,
    method: 'POST',
    path: '/v1/accounts',
    status: 503,
    count: 1,
  });
  expect(fault.value).toMatchObject({ status: 503, remaining: 1 });
  expect((await ok<Schemas['FaultList']>(client, 'list_faults', { client_id: tenant })).value.data).toHaveLength(1);
  await ok(client, 'clear_faults', { client_id: tenant });
  expect((await ok<Schemas['FaultList']>(client, 'list_faults', { client_id: tenant })).text).toBe('No active faults.');

  // a token, one API call with it, then the journal, proof and the report
  const token = await ok<Schemas['TokenResponse']>(client, 'get_token', { client_id: tenant });
  expect(token.value.scope).toBe('openid offline read:accounts read:orders');
  const api = await fetch(`${url}/v1/accounts?limit=2`, {
    headers: { authorization: `Bearer ${token.value.access_token}` },
  });
  expect(api.status).toBe(200);
  const journal = await ok<Schemas['JournalEntryList']>(client, 'list_requests', {
    client_id: tenant,
    method: 'GET',
    path: '/v1/accounts',
  });
  expect(journal.value.data).toHaveLength(1);
  expect(journal.text).toMatch(/GET \/v1\/accounts\?limit=2 → 200/);
  const verified = await ok<Schemas['VerificationResult']>(client, 'verify', {
    client_id: tenant,
    request: { method: 'GET', path: '/v1/accounts', query: { limit: 2 } },
    count: { exactly: 1 },
  });
  expect(verified.value.matched).toBe(1);
  const failed = await refused(
    client,
    'verify',
    { client_id: tenant, request: { method: 'POST', path: '/v1/accounts' } },
    /^verification_failed \(409\): /,
  );
  expect(failed).toMatch(
    /Near misses \(closest first\):\n- \S+ .* GET \/v1\/accounts\?limit=2 → 200\n {4}method: expected "POST", was "GET"/,
  );
  const report = await ok<Schemas['ReadinessReport']>(client, 'readiness_report', { client_id: tenant });
  expect(report.value.requests_seen).toBeGreaterThanOrEqual(1);
  expect(report.text).toMatch(new RegExp(`^Readiness of ${tenant}: `));
  // the session as a runnable test: the control changes made through the tools in place, no secret
  const replay = await ok(client, 'export_session', { client_id: tenant, format: 'vitest' });
  expect(replay.text).toContain("import { startServer, type FakeServer } from 'investment-api-fake';");
  expect(replay.text).toMatch(/it\("\d+\. control: order [\w-]+ forced to PLACED"/);
  expect(replay.text).not.toContain(`${tenant}-secret`);
  const http = await ok(client, 'export_session', { client_id: tenant, format: 'http' });
  expect(http.text).toContain('GET {{base}}/v1/accounts?limit=2');
  const har = JSON.parse((await ok(client, 'export_session', { client_id: tenant, format: 'har' })).text) as {
    log: { entries: unknown[] };
  };
  expect(har.log.entries.length).toBeGreaterThanOrEqual(1);
  const pact = JSON.parse(
    (await ok(client, 'export_session', { client_id: tenant, format: 'pact', consumer: 'agent-app' })).text,
  ) as { consumer: { name: string }; interactions: { description: string }[] };
  expect(pact.consumer).toEqual({ name: 'agent-app' });
  expect(pact.interactions.map((i) => i.description)).toContain('GET /v1/accounts answers 200');

  // snapshot, restore a changed one, reset
  const world = (await ok<Schemas['World']>(client, 'snapshot', { client_id: tenant })).value;
  expect(world.orders.length).toBeGreaterThan(0);
  await ok(client, 'restore', { client_id: tenant, ...world, orders: [] });
  expect(
    (await ok<{ records: Record<string, number> }>(client, 'get_state', { client_id: tenant })).value.records.orders,
  ).toBe(0);
  await refused(
    client,
    'restore',
    {
      client_id: tenant,
      ...world,
      orders: [{ ...world.orders[0], account_id: '00000000-0000-4000-8000-000000000000' }],
    },
    /^\w+ \(4\d\d\): /,
  );
  await ok(client, 'reset', { client_id: tenant });
  const after = (
    await ok<{ records: Record<string, number>; clock: Schemas['Clock'] }>(client, 'get_state', { client_id: tenant })
  ).value;
  expect(after.records.orders).toBe(world.orders.length);
  expect(after.clock.frozen).toBe(false);
  expect(Math.abs(Date.parse(after.clock.now) - Date.now())).toBeLessThan(60_000);
}

/** Arguments that break a tool's schema, and unknown tools: answered as the SDK's McpServer answers them. */
export async function expectSchemaRefusals(client: Client): Promise<void> {
  await refused(
    client,
    'set_clock',
    { at: 'yesterday' },
    /Input validation error: .*\/at must match format "date-time"/,
  );
  await refused(
    client,
    'set_clock',
    { at: '2030-01-01T00:00:00Z', advance_seconds: 5 },
    /Input validation error: .*must NOT be valid/,
  );
  await refused(client, 'set_clock', {}, /Input validation error: .*fewer than 1 (items|properties)/);
  await refused(
    client,
    'get_order',
    { order_id: 'not-a-uuid' },
    /Input validation error: .*\/order_id must match format "uuid"/,
  );
  await refused(
    client,
    'list_faults',
    { bogus: 1 },
    /Input validation error: .*\/bogus is not an argument of this tool/,
  );
  await refused(client, 'add_fault', { status: 200 }, /Input validation error: .*\/status must be >= 400/);
  await refused(client, 'verify', {}, /Input validation error: .*must have required property 'request'/);
  await refused(client, 'get_state', { client_id: 42 }, /Input validation error: .*\/client_id must be string/);
  await refused(client, 'no_such_tool', {}, /Tool no_such_tool not found/);
}
