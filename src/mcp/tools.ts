import { componentPointer, type ApiDocument } from '../api/document.js';
import type { Schemas } from '../api/types.js';
import {
  DESTROY,
  operationTool,
  outputOf,
  ownInput,
  READ,
  WRITE,
  type OperationToolSpec,
  type ToolDefinition,
} from './operation-tool.js';
import * as render from './render.js';
import { jsonSchemaOf, schemaAt, type JsonSchema } from './schemas.js';

/**
 * The 22 tools of the MCP server (docs/mcp.md), in its order: each one control-plane operation (operation-tool.ts),
 * but get_state and get_token, which read a few. Adding one: an entry here, with its name, description, hints,
 * operationId and a text of its answer (its structured output is the operation's answer component, from the document).
 */

function buildTools(document: ApiDocument): ToolDefinition[] {
  const tool = <T>(spec: OperationToolSpec<T>) => operationTool<T>(document, spec);
  return [
    tool<Schemas['ClientList']>({
      name: 'list_clients',
      description:
        'List the registered OAuth clients (each is a tenant) with their secrets, scopes, token auth method and settings; use it first to see which client_id to act on.',
      annotations: READ('List clients'),
      operationId: 'listClients',
      // with client_id, that client only
      select: (list, args) =>
        args.client_id === undefined ? list : { data: list.data.filter((c) => c.client_id === args.client_id) },
      text: render.clientsText,
    }),
    tool<Schemas['Client']>({
      name: 'create_client',
      description:
        'Register a new OAuth client with its own seeded world (a new tenant), e.g. {"client_id":"acme","client_secret":"s3cret","scopes":["read:accounts"]}; operator only.',
      annotations: WRITE('Create a client'),
      operationId: 'createClient',
      text: render.clientText,
    }),
    tool<Schemas['Client']>({
      name: 'update_client',
      description:
        'Change a client\'s scopes, token_endpoint_auth_method or settings, e.g. {"settings":{"order_progression":"clock"}} to let orders move with the clock.',
      annotations: WRITE('Update a client', true),
      operationId: 'updateClient',
      text: render.clientText,
    }),
    getStateTool(document),
    tool<undefined>({
      name: 'reset',
      description:
        'Put one tenant back to its fixtures (world, clock back to real time, faults cleared; its client stays); use it before reproducing a scenario from a clean start.',
      annotations: DESTROY('Reset a tenant'),
      operationId: 'resetWorld',
      text: () =>
        'The tenant is back to its fixtures: its world, its clock (real time again) and its faults are reset; its client, secret, scopes and settings stay.',
    }),
    tool<Schemas['World']>({
      name: 'snapshot',
      description:
        "Take the tenant's whole world as JSON (the FIXTURES file shape), to inspect every record or to restore it later with restore.",
      annotations: READ('Snapshot the world'),
      operationId: 'getState',
      text: (world) =>
        `The world holds ${render.countsText(render.worldCounts(world))}; structuredContent has it whole (pass it to restore to load it back).`,
    }),
    tool<undefined>({
      name: 'restore',
      description:
        "Replace the tenant's world with a snapshot (the snapshot tool's output, or a FIXTURES file); a snapshot that breaks the schema or its links is refused and nothing changes.",
      annotations: DESTROY('Restore a snapshot'),
      operationId: 'replaceState',
      text: () => "The tenant's world is now the snapshot given.",
    }),
    tool<Schemas['Clock']>({
      name: 'get_clock',
      description:
        "Read the tenant's clock (it drives token expiry, created times, order progression and investor activity).",
      annotations: READ('Read the clock'),
      operationId: 'getClock',
      text: (clock) => `The tenant's clock: ${render.clockText(clock)}.`,
    }),
    tool<Schemas['Clock']>({
      name: 'set_clock',
      description:
        'Move the tenant\'s clock: {"advance_seconds":86400} for a day later (every order step and investor order due in it happens), or {"at":"2030-01-01T00:00:00Z"}; "frozen" stops it there.',
      annotations: WRITE('Move the clock'),
      operationId: 'setClock',
      renames: { now: 'at' },
      text: (clock) => `The tenant's clock is now ${render.clockText(clock)}.`,
    }),
    tool<Schemas['ControlOrderList']>({
      name: 'list_orders',
      description:
        "List the tenant's orders with their status, history and next step as its clock has them now, filtered as GET /v1/orders is (order_status, side, market, account_id, isin), 20 from skip unless limit says more; total counts every match.",
      annotations: READ('List orders'),
      operationId: 'listControlOrders',
      defaults: { limit: 20 },
      text: render.orderListText,
    }),
    tool<Schemas['ControlOrder']>({
      name: 'get_order',
      description:
        'Show one order with its status_history (who moved it when) and its next step; use it to explain why an order is or is not COMPLETED.',
      annotations: READ('Get an order'),
      operationId: 'getControlOrder',
      text: render.controlOrderText,
    }),
    tool<Schemas['OrderDetails']>({
      name: 'place_order',
      description:
        'Place an order for an account under the market rules (a refusal names the rule), e.g. {"account_id":"3f2c8a4e-9b1d-4c6a-8e2f-5a7b9c0d1e2f","isin":"DE000A0D9PT0","side":"BUY","market":"PRIMARY","amount_of_units":10,"value":100000}.',
      annotations: WRITE('Place an order'),
      operationId: 'placeOrder',
      text: render.orderLine,
    }),
    tool<Schemas['OrderDetails']>({
      name: 'force_order_status',
      description:
        'Force an order into any status with consistent side-effect fields, e.g. {"order_id":"3f2c8a4e-9b1d-4c6a-8e2f-5a7b9c0d1e2f","status":"COMPLETED"}, to test how the client sees an order it did not move.',
      annotations: WRITE('Force an order status', true),
      operationId: 'setOrderStatus',
      text: render.orderLine,
    }),
    tool<Schemas['OrderDetails']>({
      name: 'advance_order',
      description:
        'Move an order one lifecycle step (PLACED → AWAITING_PAYMENT → …); refused at COMPLETED or CANCELLED.',
      annotations: WRITE('Advance an order'),
      operationId: 'advanceOrder',
      text: render.orderLine,
    }),
    tool<Schemas['Fault']>({
      name: 'add_fault',
      description:
        'Inject a fault into the tenant\'s API requests, e.g. {"method":"POST","path":"/v1/accounts","status":503,"count":1} or {"path":"/v1/accounts","drop":true,"phase":"after"} to lose an answer after the write.',
      annotations: WRITE('Add a fault'),
      operationId: 'addFault',
      text: (fault) => `Added ${render.faultText(fault)}.`,
    }),
    tool<Schemas['FaultList']>({
      name: 'list_faults',
      description: "List the tenant's active faults (what will still be injected, and how many times).",
      annotations: READ('List faults'),
      operationId: 'listFaults',
      text: render.faultsText,
    }),
    tool<undefined>({
      name: 'clear_faults',
      description: 'Remove every fault of the tenant, so its requests are answered normally again.',
      annotations: DESTROY('Clear faults'),
      operationId: 'clearFaults',
      text: () => 'The tenant has no faults any more.',
    }),
    tool<Schemas['JournalEntryList']>({
      name: 'list_requests',
      description:
        'List what the tenant\'s client sent (the request journal, oldest first), filtered e.g. by {"method":"GET","path":"/v1/orders"} (* matches one path segment); use it to see what a client really did.',
      annotations: READ('List requests'),
      operationId: 'listRequests',
      text: render.requestsText,
    }),
    tool<Schemas['VerificationResult']>({
      name: 'verify',
      description:
        'Prove what the client sent, e.g. {"request":{"method":"POST","path":"/v1/accounts"},"count":{"exactly":2}}; a failure lists the near misses (the closest requests and how they differ).',
      annotations: READ('Verify requests'),
      operationId: 'verifyRequests',
      text: render.verifiedText,
    }),
    tool<Schemas['ReadinessReport']>({
      name: 'readiness_report',
      description:
        "Explain what the tenant's client does that would hurt in production (token per call, no retry after 429/503, first page only, duplicate after a lost answer, …), each finding with a hint.",
      annotations: READ('Readiness report'),
      operationId: 'getReadinessReport',
      exclude: ['format'],
      text: render.reportText,
    }),
    tool<unknown>({
      name: 'export_session',
      description:
        'Export the tenant\'s journal as HAR 1.2 ({"format":"har"}), a .http file ({"format":"http"}), or its span since the last reset as a Pact V4 contract ({"format":"pact","consumer":"my-app"}) or a runnable vitest file ({"format":"vitest"}); credentials redacted.',
      annotations: READ('Export the session'),
      operationId: 'exportRequests',
      text: (exported) => (typeof exported === 'string' ? exported : JSON.stringify(exported, null, 2)),
    }),
    getTokenTool(document),
  ];
}

/** The tenant at a glance: its client, clock, faults and how many records its world holds. */
function getStateTool(document: ApiDocument): ToolDefinition {
  const statusCounts: JsonSchema = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } };
  const output = jsonSchemaOf(document, {
    type: 'object',
    required: ['client', 'clock', 'faults', 'records', 'orders_by_status'],
    additionalProperties: false,
    properties: {
      client: schemaAt(document, `${componentPointer('ClientList')}/properties/data/items`),
      clock: { $ref: componentPointer('Clock') },
      faults: schemaAt(document, `${componentPointer('FaultList')}/properties/data`),
      records: {
        ...statusCounts,
        description: "How many items each collection of the tenant's world (`World`) holds.",
      },
      orders_by_status: { ...statusCounts, description: 'How many orders are in each status (`OrderStatus`).' },
    },
  });
  return {
    name: 'get_state',
    description:
      'Overview of one tenant: its client (scopes, settings such as order_progression), clock, active faults and record counts; use it first to understand a sandbox.',
    annotations: READ('Tenant overview'),
    input: ownInput(document, {}),
    output,
    async run(args, port) {
      const clientId = (args.client_id as string | undefined) ?? (await port.defaultClientId());
      const [clients, clock, faults, world] = await Promise.all(
        (['listClients', 'getClock', 'listFaults', 'getState'] as const).map((operationId) =>
          port.call({ operationId, clientId }).then((a) => a.json),
        ),
      );
      const client = (clients as Schemas['ClientList']).data.find((c) => c.client_id === clientId)!;
      const orders = (world as Schemas['World']).orders;
      const byStatus: Record<string, number> = {};
      for (const order of orders) byStatus[order.status] = (byStatus[order.status] ?? 0) + 1;
      const records = render.worldCounts(world as Record<string, unknown>);
      const structured = {
        client,
        clock: clock as Schemas['Clock'],
        faults: (faults as Schemas['FaultList']).data,
        records,
        orders_by_status: byStatus,
      };
      const text = [
        `Tenant ${client.client_id}${client.default ? ' (the default client)' : ''}: ${client.token_endpoint_auth_method}, scopes ${client.scopes.join(' ') || 'none'}`,
        `Settings: ${JSON.stringify(client.settings)}`,
        `Clock: ${render.clockText(structured.clock)}`,
        `Faults: ${structured.faults.length === 0 ? 'none' : structured.faults.map(render.faultText).join('; ')}`,
        `World: ${render.countsText(records)}`,
        `Orders by status: ${render.countsText(byStatus) || 'none'}`,
      ].join('\n');
      return { structured, text };
    },
  };
}

/** An access token for a client, through the token endpoint with its credentials, to try a call by hand. */
function getTokenTool(document: ApiDocument): ToolDefinition {
  return {
    name: 'get_token',
    description:
      'Get an access token for a client (its credentials as the control plane lists them), to try an API call by hand: send it as "Authorization: Bearer <access_token>" to this fake\'s base URL, which the answer names (a token is valid at the host it was issued for only).',
    annotations: WRITE('Get a token'),
    input: ownInput(document, { scope: schemaAt(document, `${componentPointer('TokenRequest')}/properties/scope`) }),
    output: outputOf(document, componentPointer('TokenResponse')),
    async run(args, port) {
      const clientId = (args.client_id as string | undefined) ?? (await port.defaultClientId());
      const token = await port.token(clientId, (args.scope as string | undefined) ?? 'openid offline');
      return {
        structured: token,
        text:
          `A ${token.token_type} token for ${clientId}, valid ${token.expires_in} s, scopes "${token.scope}", for requests to ${port.baseUrl} only ` +
          `(its issuer; audience "${new URL(port.baseUrl).host}"): another host or port answers 401 invalid_token.\n${token.access_token}`,
      };
    },
  };
}

const cache = new WeakMap<ApiDocument, ToolDefinition[]>();

/** The tools of a document, built once per document (schemas converted and their checks compiled). */
export function toolsOf(document: ApiDocument): ToolDefinition[] {
  let tools = cache.get(document);
  if (!tools) cache.set(document, (tools = buildTools(document)));
  return tools;
}
