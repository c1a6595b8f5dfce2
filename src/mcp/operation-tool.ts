import {
  operationAt,
  operationsById,
  parametersOf,
  resolveRef,
  successComponentOf,
  type ApiDocument,
  type DocumentParameter,
} from '../api/document.js';
import type { FieldError } from '../api/errors.js';
import { pointerOf, tokensOf } from '../api/json-pointer.js';
import type { OperationId } from '../api/types.js';
import type { ControlCall, ControlPort } from './port.js';
import { documentCheck, jsonSchemaOf, schemaAt, type JsonSchema } from './schemas.js';

/**
 * An MCP tool as a thin layer over one control-plane operation: its input is the operation's parameters and request
 * body as the document has them, flattened, plus `client_id` (the tenant; the default client when absent); its
 * output is the operation's answer as the document has it. No rule of the platform lives here: the control plane
 * decides and refuses. The catalogue of tools is tools.ts.
 */

type Args = Record<string, unknown>;

interface ToolResult {
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

export const READ = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, openWorldHint: false });
export const WRITE = (title: string, idempotent = false): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: idempotent,
  openWorldHint: false,
});
export const DESTROY = (title: string): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
});

const TENANT: JsonSchema = {
  type: 'string',
  description:
    "The tenant to act on (a client's client_id); the default client when absent. A partner's token acts on its own tenant only.",
};

type Parameter = DocumentParameter & { name: string; in: 'path' | 'query'; schema: JsonSchema; description?: string };

interface OperationShape {
  params: Parameter[];
  /** The request body's schema as the document has it (a component `$ref`), and that schema resolved. */
  body?: { schema: JsonSchema; resolved: JsonSchema };
}

function operationShape(document: ApiDocument, operationId: OperationId): OperationShape {
  const operation = operationsById(document).get(operationId);
  if (!operation) throw new Error(`The document has no operation ${operationId}`);
  const params = parametersOf(document, operation)
    // the tenant's naming (`X-Client-Id`, `?client_id=`) is the tool's own `client_id`
    .filter((p): p is Parameter => p.in === 'path' || (p.in === 'query' && p.name !== 'client_id'));
  const requestBody = operationAt(document, operation)?.requestBody;
  const schema =
    requestBody && (resolveRef(document, requestBody).content?.['application/json']?.schema as JsonSchema | undefined);
  return { params, ...(schema && { body: { schema, resolved: resolveRef(document, schema) } }) };
}

const propertiesOf = (schema: JsonSchema | undefined): Record<string, JsonSchema> =>
  (schema?.properties ?? {}) as Record<string, JsonSchema>;

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
  const tenantIn =
    'client_id' in bodyProps
      ? 'body'
      : params.some((p) => p.in === 'path' && p.name === 'client_id')
        ? 'path'
        : 'header';

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
  // a body member's failure, named as the tool names the member
  const asTool = (error: FieldError): FieldError => {
    const [first, ...rest] = tokensOf(error.path);
    return first === undefined ? error : { ...error, path: [toTool(first), ...rest].reduce(pointerOf, '') };
  };
  const check = (args: Args): FieldError[] => {
    const parts = split(args);
    const errors = checkParams(parts.params);
    if (checkBody) {
      errors.push(...checkBody(parts.body).map(asTool));
    } else {
      for (const name of Object.keys(parts.body))
        errors.push({ location: 'body', path: pointerOf('', name), message: 'is not an argument of this tool' });
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

/** A part of the document (an operation's answer, a component), as a tool's self-contained output schema. */
export const outputOf = (document: ApiDocument, pointer: string): JsonSchema =>
  jsonSchemaOf(document, schemaAt(document, pointer));

type Render<T> = (answer: T) => string;

export type OperationToolSpec<T> = {
  name: string;
  description: string;
  annotations: ToolAnnotations;
  operationId: OperationId;
  text: Render<T>;
  /** The part of the answer the tool gives (a list narrowed to the tenant named). */
  select?: (answer: T, args: Args) => T;
  /** Arguments the tool takes when the agent gives none (a short page of a long list, to spare its context). */
  defaults?: Args;
} & InputOptions;

/** A tool that is one operation: its input from the operation, its output from the answer's schema, a text of it. */
export function operationTool<T>(document: ApiDocument, spec: OperationToolSpec<T>): ToolDefinition {
  const input = operationInput(document, spec.operationId, spec);
  // the tool's structured output: the component the operation answers with, as the document has it
  const output = successComponentOf(document, spec.operationId);
  return {
    name: spec.name,
    description: spec.description,
    annotations: spec.annotations,
    input: { schema: input.schema, check: input.check },
    ...(output && { output: outputOf(document, output) }),
    async run(given, port) {
      const args = { ...spec.defaults, ...given };
      const answer = await port.call(await input.callOf(args, () => port.defaultClientId()));
      const answered = (answer.json ?? answer.text) as T;
      const value = spec.select ? spec.select(answered, args) : answered;
      return { ...(output && { structured: value as Record<string, unknown> }), text: spec.text(value) };
    },
  };
}

/** A tool's own input of a few members, each a schema of the document (or the tenant). */
export function ownInput(document: ApiDocument, properties: Record<string, JsonSchema>): ToolDefinition['input'] {
  const schema: JsonSchema = {
    type: 'object',
    properties: { client_id: TENANT, ...properties },
    additionalProperties: false,
  };
  const check = documentCheck(document, schema);
  return { schema: jsonSchemaOf(document, schema), check: (args) => check(args) };
}
