import type { ApiDocument } from '../api/document.js';
import type { FieldError } from '../api/errors.js';
import type { OperationId, Schemas } from '../api/types.js';
import type { ControlCall, ControlPort } from './port.js';
import { documentCheck, jsonSchemaOf, resolvePointer, type JsonSchema } from './schemas.js';
import * as render from './render.js';

/**
 * The 21 tools of the MCP server (CONTRACT 14), each a thin layer over one control-plane operation (two small ones
 * read a few): its input is the operation's parameters and request body as the document has them, flattened, plus
 * `client_id` (the tenant; the default client when absent); its output is the operation's answer as the document
 * has it. No rule of the platform lives here: the control plane decides and refuses.
 */

type Args = Record<string, unknown>;

export interface ToolResult {
  structured?: Record<string, unknown>;
  text: string;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: false;
}

export interface ToolDefinition {
  name: string;
  description: string;
  annotations: ToolAnnotations;
  /** The JSON Schema `tools/list` shows, and the check of a call's arguments (the document's, by Ajv). */
  input: { schema: JsonSchema; check: (args: Args) => FieldError[] };
  output?: JsonSchema;
  run(args: Args, port: ControlPort): Promise<ToolResult>;
}

const TENANT: JsonSchema = {
  type: 'string',
  description: "The tenant to act on (a client's client_id); the default client when absent. A partner's token acts on its own tenant only.",
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

interface OperationShape {
  operationId: OperationId;
  params: Parameter[];
  /** The request body's schema as the document has it (a component `$ref`), and that schema resolved. */
  body?: { schema: JsonSchema; resolved: JsonSchema };
}

function operationShape(document: ApiDocument, operationId: OperationId): OperationShape {
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, unknown>)) {
      const op = operation as { operationId?: string; parameters?: unknown[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } };
      if (method === 'parameters' || op.operationId !== operationId) continue;
      const declared = [...(((item as { parameters?: unknown[] }).parameters ?? []) as JsonSchema[]), ...((op.parameters ?? []) as JsonSchema[])];
      const params = declared
        .map((p) => (typeof p.$ref === 'string' ? resolvePointer(document, p.$ref) : p) as unknown as Parameter)
        // the tenant's naming (`X-Client-Id`, `?client_id=`) is the tool's own `client_id`
        .filter((p) => p.in === 'path' || (p.in === 'query' && p.name !== 'client_id'));
      const schema = op.requestBody?.content['application/json']?.schema;
      const resolved = schema && (typeof schema.$ref === 'string' ? resolvePointer(document, schema.$ref) : schema);
      return { operationId, params, ...(schema && resolved && { body: { schema, resolved } }) };
    }
  }
  throw new Error(`The document has no operation ${operationId}`);
}

const propertiesOf = (schema: JsonSchema | undefined): Record<string, JsonSchema> => (schema?.properties ?? {}) as Record<string, JsonSchema>;

/** How a tool's arguments become the operation's call: where `client_id` goes, what is renamed or left out. */
interface InputOptions {
  /** Query parameters the tool does not offer (a format its structured answer cannot be). */
  exclude?: string[];
  /** A body member shown under another name (`now` → `at`). */
  renames?: Record<string, string>;
}

interface OperationInput {
  schema: JsonSchema;
  check: (args: Args) => FieldError[];
  /** The call, for the tenant the arguments name (or the default one). */
  callOf: (args: Args, tenant: () => Promise<string>) => Promise<ControlCall>;
}

function operationInput(document: ApiDocument, operationId: OperationId, options: InputOptions = {}): OperationInput {
  const shape = operationShape(document, operationId);
  const exclude = new Set(options.exclude ?? []);
  const renames = options.renames ?? {};
  const toTool = (name: string): string => renames[name] ?? name;
  const fromTool = new Map(Object.entries(renames).map(([doc, tool]) => [tool, doc]));
  const params = shape.params.filter((p) => !exclude.has(p.name));
  const body = shape.body;
  const bodyProps = propertiesOf(body?.resolved);
  // where the tenant goes: a member of the body (reset, a new client), the path (a client), else `X-Client-Id`
  const tenantIn = 'client_id' in bodyProps ? 'body' : params.some((p) => p.in === 'path' && p.name === 'client_id') ? 'path' : 'header';

  const properties: Record<string, JsonSchema> = { client_id: TENANT };
  const required: string[] = [];
  for (const p of params) {
    if (p.name === 'client_id') continue;
    properties[p.name] = { ...p.schema, ...(p.description && { description: p.description }) };
    if (p.required) required.push(p.name);
  }
  const bodyRequired = (body?.resolved.required as string[] | undefined) ?? [];
  for (const [name, schema] of Object.entries(bodyProps)) {
    // a body's optional client_id names the tenant (reset); a required one is the body's own (a new client's id)
    const tenant = name === 'client_id' && !bodyRequired.includes(name);
    properties[toTool(name)] = tenant ? { ...schema, description: TENANT.description } : schema;
  }
  for (const name of bodyRequired) required.push(toTool(name));
  const presented: JsonSchema = { type: 'object', properties, ...(required.length > 0 && { required }) };
  if (!body || body.resolved.additionalProperties === false) presented.additionalProperties = false;
  const not = body?.resolved.not as { required?: string[] } | undefined;
  if (not?.required) presented.not = { required: not.required.map(toTool) };
  if (typeof body?.resolved.description === 'string') {
    const renamed = Object.entries(renames).map(([doc, tool]) => `\`${doc}\` is this tool's \`${tool}\``);
    presented.description = `${body.resolved.description}${renamed.length > 0 ? ` (${renamed.join('; ')}.)` : ''}`;
  }

  const paramNames = new Set(params.map((p) => p.name));
  const checkParams = documentCheck(document, {
    type: 'object',
    properties: Object.fromEntries([['client_id', TENANT], ...params.map((p) => [p.name, p.schema])]),
    // a client's path id is the tenant: the default client's when absent
    required: params.filter((p) => p.required && p.name !== 'client_id').map((p) => p.name),
  });
  const checkBody = body && documentCheck(document, body.schema);
  const split = (args: Args): { params: Args; body: Args } => {
    const own: Args = {};
    const rest: Args = {};
    for (const [name, value] of Object.entries(args)) {
      if (name === 'client_id' && tenantIn !== 'body') own[name] = value;
      else if (paramNames.has(name) && !(name in bodyProps)) own[name] = value;
      else rest[fromTool.get(name) ?? name] = value;
    }
    return { params: own, body: rest };
  };
  const check = (args: Args): FieldError[] => {
    const parts = split(args);
    const errors = checkParams(parts.params);
    if (checkBody) {
      errors.push(...checkBody(parts.body).map((e) => ({ ...e, path: e.path.replace(/^\/([^/]+)/, (_, first: string) => `/${toTool(first)}`) })));
    } else {
      for (const name of Object.keys(parts.body)) errors.push({ location: 'body', path: `/${name}`, message: 'is not an argument of this tool' });
    }
    return errors;
  };
  return {
    schema: jsonSchemaOf(document, presented),
    check,
    async callOf(args, tenant) {
      const parts = split(args);
      const named = args.client_id as string | undefined;
      const call: ControlCall = { operationId };
      const path: Record<string, string> = {};
      const query: Args = {};
      for (const p of params) {
        const value = p.name === 'client_id' ? (named ?? (await tenant())) : parts.params[p.name];
        if (value === undefined) continue;
        if (p.in === 'path') path[p.name] = String(value);
        else query[p.name] = value;
      }
      if (Object.keys(path).length > 0) call.path = path;
      if (Object.keys(query).length > 0) call.query = query;
      if (body) call.body = tenantIn === 'body' ? { ...parts.body, client_id: named ?? (await tenant()) } : parts.body;
      if (tenantIn === 'header') call.clientId = named ?? (await tenant());
      return call;
    },
  };
}

/** The JSON Schema of an operation's success answer (or any part of the document), for a tool's output. */
const outputOf = (document: ApiDocument, pointer: string): JsonSchema => jsonSchemaOf(document, resolvePointer(document, pointer));
const component = (name: string): string => `#/components/schemas/${name}`;

const READ = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, openWorldHint: false });
const WRITE = (title: string, idempotent = false): ToolAnnotations => ({ title, readOnlyHint: false, destructiveHint: false, idempotentHint: idempotent, openWorldHint: false });
const DESTROY = (title: string): ToolAnnotations => ({ title, readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });

type Render<T> = (answer: T) => string;

/** A tool that is one operation: its input from the operation, its output from the answer's schema, a text of it. */
function operationTool<T>(
  document: ApiDocument,
  spec: { name: string; description: string; annotations: ToolAnnotations; operationId: OperationId; output?: string; text: Render<T>; select?: (answer: T, args: Args) => T } & InputOptions,
): ToolDefinition {
  const input = operationInput(document, spec.operationId, spec);
  return {
    name: spec.name,
    description: spec.description,
    annotations: spec.annotations,
    input: { schema: input.schema, check: input.check },
    ...(spec.output && { output: outputOf(document, spec.output) }),
    async run(args, port) {
      const answer = await port.call(await input.callOf(args, () => port.defaultClientId()));
      const answered = (answer.json ?? answer.text) as T;
      const value = spec.select ? spec.select(answered, args) : answered;
      return { ...(spec.output && { structured: value as Record<string, unknown> }), text: spec.text(value) };
    },
  };
}

/** A tool's own input of a few members, each a schema of the document (or the tenant). */
function ownInput(document: ApiDocument, properties: Record<string, JsonSchema>): ToolDefinition['input'] {
  const schema: JsonSchema = { type: 'object', properties: { client_id: TENANT, ...properties }, additionalProperties: false };
  const check = documentCheck(document, schema);
  return { schema: jsonSchemaOf(document, schema), check: (args) => check(args) };
}

function buildTools(document: ApiDocument): ToolDefinition[] {
  const tool = <T>(spec: Parameters<typeof operationTool<T>>[1]) => operationTool<T>(document, spec);
  return [
    tool<Schemas['ClientList']>({
      name: 'list_clients',
      description: 'List the registered OAuth clients (each is a tenant) with their secrets, scopes, token auth method and settings; use it first to see which client_id to act on.',
      annotations: READ('List clients'),
      operationId: 'listClients',
      output: component('ClientList'),
      // with client_id, that client only
      select: (list, args) => (args.client_id === undefined ? list : { data: list.data.filter((c) => c.client_id === args.client_id) }),
      text: render.clientsText,
    }),
    tool<Schemas['Client']>({
      name: 'create_client',
      description: 'Register a new OAuth client with its own seeded world (a new tenant), e.g. {"client_id":"acme","client_secret":"s3cret","scopes":["accounts:read"]}; operator only.',
      annotations: WRITE('Create a client'),
      operationId: 'createClient',
      output: component('Client'),
      text: render.clientText,
    }),
    tool<Schemas['Client']>({
      name: 'update_client',
      description: 'Change a client\'s scopes, token_endpoint_auth_method or settings, e.g. {"settings":{"order_progression":"clock"}} to let orders move with the clock.',
      annotations: WRITE('Update a client', true),
      operationId: 'updateClient',
      output: component('Client'),
      text: render.clientText,
    }),
    getStateTool(document),
    tool<undefined>({
      name: 'reset',
      description: "Put one tenant back to its fixtures (world, clock back to real time, faults cleared; its client stays); use it before reproducing a scenario from a clean start.",
      annotations: DESTROY('Reset a tenant'),
      operationId: 'resetWorld',
      text: () => 'The tenant is back to its fixtures: its world, its clock (real time again) and its faults are reset; its client, secret, scopes and settings stay.',
    }),
    tool<Schemas['World']>({
      name: 'snapshot',
      description: "Take the tenant's whole world as JSON (the FIXTURES file shape), to inspect every record or to restore it later with restore.",
      annotations: READ('Snapshot the world'),
      operationId: 'getState',
      output: component('World'),
      text: (world) => `The world holds ${render.countsText(render.worldCounts(world))}; structuredContent has it whole (pass it to restore to load it back).`,
    }),
    tool<undefined>({
      name: 'restore',
      description: "Replace the tenant's world with a snapshot (the snapshot tool's output, or a FIXTURES file); a snapshot that breaks the schema or its links is refused and nothing changes.",
      annotations: DESTROY('Restore a snapshot'),
      operationId: 'replaceState',
      text: () => "The tenant's world is now the snapshot given.",
    }),
    tool<Schemas['Clock']>({
      name: 'get_clock',
      description: "Read the tenant's clock (it drives token expiry, created times, order progression and investor activity).",
      annotations: READ('Read the clock'),
      operationId: 'getClock',
      output: component('Clock'),
      text: (clock) => `The tenant's clock: ${render.clockText(clock)}.`,
    }),
    tool<Schemas['Clock']>({
      name: 'set_clock',
      description: 'Move the tenant\'s clock: {"advance_seconds":86400} for a day later (every order step and investor order due in it happens), or {"at":"2030-01-01T00:00:00Z"}; "frozen" stops it there.',
      annotations: WRITE('Move the clock'),
      operationId: 'setClock',
      renames: { now: 'at' },
      output: component('Clock'),
      text: (clock) => `The tenant's clock is now ${render.clockText(clock)}.`,
    }),
    tool<Schemas['ControlOrderList']>({
      name: 'list_orders',
      description: "List every order of the tenant with its status, history and next step as the tenant's clock has them now; use it to find an order id.",
      annotations: READ('List orders'),
      operationId: 'listControlOrders',
      output: component('ControlOrderList'),
      text: render.orderListText,
    }),
    tool<Schemas['ControlOrder']>({
      name: 'get_order',
      description: 'Show one order with its status_history (who moved it when) and its next step; use it to explain why an order is or is not COMPLETED.',
      annotations: READ('Get an order'),
      operationId: 'getControlOrder',
      output: component('ControlOrder'),
      text: render.controlOrderText,
    }),
    tool<Schemas['OrderDetails']>({
      name: 'force_order_status',
      description: 'Force an order into any status with consistent side-effect fields, e.g. {"order_id":"…","status":"COMPLETED"}, to test how the client sees an order it did not move.',
      annotations: WRITE('Force an order status', true),
      operationId: 'setOrderStatus',
      output: component('OrderDetails'),
      text: render.orderLine,
    }),
    tool<Schemas['OrderDetails']>({
      name: 'advance_order',
      description: 'Move an order one lifecycle step (PLACED → AWAITING_PAYMENT → …); refused at COMPLETED or CANCELLED.',
      annotations: WRITE('Advance an order'),
      operationId: 'advanceOrder',
      output: component('OrderDetails'),
      text: render.orderLine,
    }),
    tool<Schemas['Fault']>({
      name: 'add_fault',
      description: 'Inject a fault into the tenant\'s API requests, e.g. {"method":"POST","path":"/v1/accounts","status":503,"count":1} or {"path":"/v1/accounts","drop":true,"phase":"after"} to lose an answer after the write.',
      annotations: WRITE('Add a fault'),
      operationId: 'addFault',
      output: component('Fault'),
      text: (fault) => `Added ${render.faultText(fault)}.`,
    }),
    tool<Schemas['FaultList']>({
      name: 'list_faults',
      description: "List the tenant's active faults (what will still be injected, and how many times).",
      annotations: READ('List faults'),
      operationId: 'listFaults',
      output: component('FaultList'),
      text: render.faultsText,
    }),
    tool<undefined>({
      name: 'clear_faults',
      description: "Remove every fault of the tenant, so its requests are answered normally again.",
      annotations: DESTROY('Clear faults'),
      operationId: 'clearFaults',
      text: () => 'The tenant has no faults any more.',
    }),
    tool<Schemas['JournalEntryList']>({
      name: 'list_requests',
      description: 'List what the tenant\'s client sent (the request journal, oldest first), filtered e.g. by {"method":"GET","path":"/v1/orders"} (* matches one path segment); use it to see what a client really did.',
      annotations: READ('List requests'),
      operationId: 'listRequests',
      output: component('JournalEntryList'),
      text: render.requestsText,
    }),
    tool<Schemas['VerificationResult']>({
      name: 'verify',
      description: 'Prove what the client sent, e.g. {"request":{"method":"POST","path":"/v1/accounts"},"count":{"exactly":2}}; a failure lists the near misses (the closest requests and how they differ).',
      annotations: READ('Verify requests'),
      operationId: 'verifyRequests',
      output: component('VerificationResult'),
      text: render.verifiedText,
    }),
    tool<Schemas['ReadinessReport']>({
      name: 'readiness_report',
      description: "Explain what the tenant's client does that would hurt in production (token per call, no retry after 429/503, first page only, duplicate after a lost answer, …), each finding with a hint.",
      annotations: READ('Readiness report'),
      operationId: 'getReadinessReport',
      exclude: ['format'],
      output: component('ReadinessReport'),
      text: render.reportText,
    }),
    tool<unknown>({
      name: 'export_session',
      description: 'Export the tenant\'s journal as HAR 1.2 ({"format":"har"}) or as a .http file for REST clients ({"format":"http"}), credentials redacted.',
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
      client: resolvePointer(document, '#/components/schemas/ClientList/properties/data/items'),
      clock: { $ref: component('Clock') },
      faults: resolvePointer(document, '#/components/schemas/FaultList/properties/data'),
      records: { ...statusCounts, description: "How many items each collection of the tenant's world (`World`) holds." },
      orders_by_status: { ...statusCounts, description: 'How many orders are in each status (`OrderStatus`).' },
    },
  });
  return {
    name: 'get_state',
    description: "Overview of one tenant: its client (scopes, settings such as order_progression), clock, active faults and record counts; use it first to understand a sandbox.",
    annotations: READ('Tenant overview'),
    input: ownInput(document, {}),
    output,
    async run(args, port) {
      const clientId = (args.client_id as string | undefined) ?? (await port.defaultClientId());
      const [clients, clock, faults, world] = await Promise.all(
        (['listClients', 'getClock', 'listFaults', 'getState'] as const).map((operationId) => port.call({ operationId, clientId }).then((a) => a.json)),
      );
      const client = (clients as Schemas['ClientList']).data.find((c) => c.client_id === clientId)!;
      const orders = (world as Schemas['World']).orders;
      const byStatus: Record<string, number> = {};
      for (const order of orders) byStatus[order.status] = (byStatus[order.status] ?? 0) + 1;
      const records = render.worldCounts(world as Record<string, unknown>);
      const structured = { client, clock: clock as Schemas['Clock'], faults: (faults as Schemas['FaultList']).data, records, orders_by_status: byStatus };
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
    description: 'Get an access token for a client (its credentials as the control plane lists them), to try an API call by hand: send it as "Authorization: Bearer <access_token>".',
    annotations: { title: 'Get a token', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: ownInput(document, { scope: resolvePointer(document, '#/components/schemas/TokenRequest/properties/scope') }),
    output: outputOf(document, component('TokenResponse')),
    async run(args, port) {
      const clientId = (args.client_id as string | undefined) ?? (await port.defaultClientId());
      const token = await port.token(clientId, (args.scope as string | undefined) ?? 'openid offline');
      return {
        structured: token,
        text: `A ${token.token_type} token for ${clientId}, valid ${token.expires_in} s, scopes "${token.scope}":\n${token.access_token}`,
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


