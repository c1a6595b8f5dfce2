import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Ajv as AjvClass, ErrorObject } from 'ajv';
import type addFormatsPlugin from 'ajv-formats';
import { createRequire } from 'node:module';
import type { FieldError } from './errors.js';
import { pointerOf, valueAt } from './json-pointer.js';

const OPENAPI_YAML_PATH = fileURLToPath(new URL('./openapi.yaml', import.meta.url));
// Written by the build beside the YAML: parsing JSON is an order of magnitude faster at startup.
const OPENAPI_JSON_PATH = fileURLToPath(new URL('./openapi.json', import.meta.url));

export type ApiDocument = {
  paths: Record<string, Record<string, { operationId?: string } | unknown>>;
  components: { schemas: Record<string, unknown> };
} & Record<string, unknown>;

export interface LoadedDocument {
  yaml: string;
  /** The document as JSON text, as served at /openapi.json. */
  json: string;
  document: ApiDocument;
}

/**
 * The YAML's JSON text, for the text it was made from: without the built JSON (tests running from source) the YAML is
 * parsed once per process and text, not once per app (~150 ms each). Never changed: shared like a compiled validator.
 */
let parsedYaml: { yaml: string; json: string } | undefined;

/** Reads THE contract. Callers get their own copy: the validator annotates the document it is given. */
export function loadApiDocument(): LoadedDocument {
  const yaml = readFileSync(OPENAPI_YAML_PATH, 'utf8');
  // yaml is loaded only without the built JSON (tests running from source): it is slow to load at startup.
  const fromYaml = (): string => {
    if (parsedYaml?.yaml !== yaml)
      parsedYaml = {
        yaml,
        json: JSON.stringify((createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(yaml)),
      };
    return parsedYaml.json;
  };
  const json = existsSync(OPENAPI_JSON_PATH) ? readFileSync(OPENAPI_JSON_PATH, 'utf8') : fromYaml();
  return { yaml, json, document: withFlatAccountCreate(JSON.parse(json) as ApiDocument) };
}

/** Where a text's `servers` starts and ends: the YAML's top-level block, the JSON's member (a string-aware scan). */
function serversSpan(text: string, kind: 'yaml' | 'json'): [number, number] | undefined {
  if (kind === 'yaml') {
    const start = text.indexOf('\nservers:\n');
    if (start < 0) return undefined;
    const next = /\n\S/.exec(text.slice(start + 1));
    return next ? [start + 1, start + 1 + next.index + 1] : undefined;
  }
  const start = text.indexOf('"servers":[');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start + '"servers":'.length; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if ((c === ']' || c === '}') && --depth === 0) return [start, i + 1];
  }
  return undefined;
}

const SERVED_SERVER = 'This fake, which serves this document.';

/**
 * The document as a running fake serves it: `servers` names the fake's own base URL, so that a client generated from
 * the served document (or /docs' "Try it out") calls the fake that served it; the file's `servers` names the
 * CLI's default port. One base URL remembered, the last asked (a Host header chooses it: never more than one kept).
 */
export function servedDocument(api: Pick<LoadedDocument, 'yaml' | 'json'>): (baseUrl: string) => {
  yaml: string;
  json: string;
} {
  let spans: { yaml: [number, number] | undefined; json: [number, number] | undefined } | undefined;
  let last: { baseUrl: string; yaml: string; json: string } | undefined;
  const replaced = (text: string, span: [number, number] | undefined, servers: string): string =>
    span ? `${text.slice(0, span[0])}${servers}${text.slice(span[1])}` : text;
  return (baseUrl) => {
    spans ??= { yaml: serversSpan(api.yaml, 'yaml'), json: serversSpan(api.json, 'json') };
    if (last?.baseUrl !== baseUrl) {
      const server = { url: baseUrl, description: SERVED_SERVER };
      last = {
        baseUrl,
        yaml: replaced(
          api.yaml,
          spans.yaml,
          `servers:\n  - url: ${JSON.stringify(server.url)}\n    description: ${server.description}\n`,
        ),
        json: replaced(api.json, spans.json, `"servers":${JSON.stringify([server])}`),
      };
    }
    return last;
  };
}

type ObjectSchema = { properties?: Record<string, unknown>; required?: string[] } & Record<string, unknown>;

/**
 * The document as the fake checks requests against it (the one served is unchanged). `AccountCreate` is one shape
 * per account type, a `oneOf` on `type`, so that a client generated from the document refuses a field of the other
 * type; the fake reads it as one object with every field of either type, in the order of `Account` (as answers show
 * them), so that such a field reaches the business rules, which answer it 422 `field_not_applicable` beside every
 * other broken rule, with the messages and error lists of one object.
 */
function withFlatAccountCreate(document: ApiDocument): ApiDocument {
  const schemas = document.components.schemas as Record<string, ObjectSchema>;
  const oneOf = schemas.AccountCreate?.oneOf as { $ref: string }[] | undefined;
  if (!oneOf) return document;
  const branches = oneOf.map((branch) => resolveRef(document, branch) as ObjectSchema);
  // `type` as one object has it: either account type
  const merged: Record<string, unknown> = { type: { $ref: componentPointer('AccountType') } };
  for (const branch of branches)
    for (const [name, schema] of Object.entries(branch.properties ?? {})) merged[name] ??= schema;
  const order = Object.keys(schemas.Account?.properties ?? {});
  const rank = (name: string): number => (order.includes(name) ? order.indexOf(name) : order.length);
  const properties = Object.fromEntries(
    Object.keys(merged)
      .sort((a, b) => rank(a) - rank(b))
      .map((name) => [name, merged[name]]),
  );
  schemas.AccountCreate = { type: 'object', required: ['type'], additionalProperties: false, properties };
  return document;
}

let shipped: ApiDocument | undefined;

/**
 * A number the shipped document states (a default, a maximum) by its pointer, for code with no instance at hand: the
 * document is read on first need, once per process, and never changed. Throws when the document no longer has it.
 */
export function documentNumber(pointer: string): number {
  const value = valueAt((shipped ??= loadApiDocument().document), pointer);
  if (typeof value !== 'number') throw new Error(`the document has no number at ${pointer}`);
  return value;
}

/** The methods a path item may hold an operation under (its other members are not operations). */
const HTTP_METHODS: ReadonlySet<string> = new Set([
  'get',
  'put',
  'post',
  'delete',
  'patch',
  'head',
  'options',
  'trace',
]);

/** One operation of the document: its id, its method (lower case, as the document writes it) and its OpenAPI path. */
export interface DocumentOperation {
  operationId: string;
  method: string;
  path: string;
}

export function operationsOf(document: ApiDocument): DocumentOperation[] {
  const operations = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      operations.push({ operationId: (operation as { operationId: string }).operationId, method, path });
    }
  }
  return operations;
}

/** The document's operations by their id: the one way an operation is found by its id. */
export const operationsById = (document: ApiDocument): Map<string, DocumentOperation> =>
  new Map(operationsOf(document).map((operation) => [operation.operationId, operation]));

/** What the document says of an operation, as the fake reads it. */
export interface OperationObject {
  operationId?: string;
  parameters?: unknown[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> };
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
  [key: string]: unknown;
}

/** The operation at a path and method (any case) of the document, or undefined. */
export function operationAt(
  document: ApiDocument,
  { method, path }: { method: string; path: string },
): OperationObject | undefined {
  const item = Object.hasOwn(document.paths, path)
    ? (document.paths[path] as Record<string, OperationObject>)
    : undefined;
  const key = method.toLowerCase();
  return item && HTTP_METHODS.has(key) && Object.hasOwn(item, key) ? item[key] : undefined;
}

/**
 * A path of the document to the letter (docs/api.md, "Errors": 404 `route_not_found`): its text around its parameters
 * (`/v1/orders/{order_id}/` → `/v1/orders/`, `/`), their names, and the expression that matches it as written (case,
 * every slash; a value per parameter, one segment): the route step's one reading of paths (shadow mode's too).
 */
export function letterOf(path: string): { literals: string[]; names: string[]; expression: RegExp } {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const literals = path.split(/\{[^}]+\}/);
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return { literals, names, expression: new RegExp(`^${literals.map(escaped).join('([^/]+)')}$`) };
}

/** Where the document keeps its component schemas: the one place a pointer to one is built. */
export const COMPONENT_SCHEMAS = '#/components/schemas/';

/** The pointer to a component schema of the document (`#/components/schemas/Order`). */
export const componentPointer = (name: string): string => `${COMPONENT_SCHEMAS}${name}`;

/** A `$ref` to a component schema as the document's compilers know it (`openapi#/…`: `documentValidators`). */
export const componentRef = (name: string): { $ref: string } => ({ $ref: `openapi${componentPointer(name)}` });

/** What a reference (`#/components/schemas/Order`) names in the document, or undefined: one step, never a chain. */
export const refTarget = (document: ApiDocument, ref: string): unknown => valueAt(document, ref.replace(/^#/, ''));

/** A value of the document with its `$ref` followed to what it names (a chain of at most 10). */
export function resolveRef<T extends object>(document: ApiDocument, value: T): T {
  let current: unknown = value;
  for (let depth = 0; typeof (current as { $ref?: unknown }).$ref === 'string' && depth < 10; depth++) {
    current = refTarget(document, (current as { $ref: string }).$ref);
    if (current === undefined) throw new Error(`Unresolved reference ${String((value as { $ref?: unknown }).$ref)}`);
  }
  return current as T;
}

/** A parameter of an operation, its reference followed. */
export interface DocumentParameter {
  in?: string;
  name?: string;
  required?: boolean;
  schema?: Record<string, unknown>;
  [key: string]: unknown;
}

/** An operation's parameters: its path item's, then its own, their references followed. */
export function parametersOf(
  document: ApiDocument,
  { method, path }: { method: string; path: string },
): DocumentParameter[] {
  const item = document.paths[path] as { parameters?: DocumentParameter[] } | undefined;
  const own = operationAt(document, { method, path })?.parameters as DocumentParameter[] | undefined;
  return [...(item?.parameters ?? []), ...(own ?? [])].map((p) => resolveRef(document, p));
}

/** Where and by what name an operation takes an integer parameter (`type: integer`): query, path or header. */
export function integerParametersOf(
  document: ApiDocument,
  operation: { method: string; path: string },
): { in: 'query' | 'path' | 'header'; name: string }[] {
  return parametersOf(document, operation).flatMap((parameter) => {
    const where = parameter.in;
    if (
      (where !== 'query' && where !== 'path' && where !== 'header') ||
      typeof parameter.name !== 'string' ||
      !parameter.schema
    )
      return [];
    return resolveRef(document, parameter.schema).type === 'integer' ? [{ in: where, name: parameter.name }] : [];
  });
}

type SecurityRequirements = Record<string, string[]>[];

/**
 * The OAuth scopes an operation needs: its `oauth2` security requirement, or the document's; undefined when it is not
 * secured by OAuth. The one reading of an operation's scopes (the bearer check, the validator's steps, the report).
 */
export function operationScopes(
  document: ApiDocument,
  operation: { security?: SecurityRequirements },
): string[] | undefined {
  const { security = (document as { security?: SecurityRequirements }).security ?? [] } = operation;
  return security.find((requirement) => 'oauth2' in requirement)?.oauth2;
}

/** The OAuth scopes each operation needs, by operationId (none for one not secured by OAuth). */
export function operationScopesOf(document: ApiDocument): Map<string, string[]> {
  return new Map(
    operationsOf(document).map(({ operationId, method, path }) => [
      operationId,
      operationScopes(document, operationAt(document, { method, path })!) ?? [],
    ]),
  );
}

/** The document's paged lists (a `skip` parameter), those of documents (tag `documents`: their links expire) apart. */
export interface PagedLists {
  records: ReadonlySet<string>;
  documents: ReadonlySet<string>;
}

/** The paged lists of the document, by operationId: what the readiness rules about pages and polls read. */
export function pagedListsOf(document: ApiDocument): PagedLists {
  const records = new Set<string>();
  const documents = new Set<string>();
  for (const operation of operationsOf(document)) {
    if (!parametersOf(document, operation).some((parameter) => parameter.name === 'skip' && parameter.in === 'query'))
      continue;
    const { tags = [] } = operationAt(document, operation) as { tags?: string[] };
    (tags.includes('documents') ? documents : records).add(operation.operationId);
  }
  return { records, documents };
}

/** Where an Ajv error points (at an unknown member itself) and what it says (an enum's values too). */
export function ajvErrorAt(e: ErrorObject): { pointer: string; message: string } {
  const extra =
    e.keyword === 'additionalProperties'
      ? pointerOf('', (e.params as { additionalProperty: string }).additionalProperty)
      : '';
  const allowed =
    e.keyword === 'enum'
      ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      : '';
  return { pointer: `${e.instancePath}${extra}`, message: `${e.message ?? 'is not valid'}${allowed}` };
}

const fieldErrorOf = (e: ErrorObject): FieldError => {
  const { pointer, message } = ajvErrorAt(e);
  return { location: 'body', path: pointer || '/', message };
};

/**
 * A validator of a JSON value against a schema that may `$ref` the document's components as
 * `openapi#/components/schemas/<Name>`: the document stays the one source of every shape it checks.
 */
export function compileDocumentValidator(document: ApiDocument, schema: object): (value: unknown) => FieldError[] {
  return documentValidators(document)(schema);
}

/**
 * An Ajv over the document, as the fake checks JSON against it: every error, ajv-formats' formats, the document's
 * components (with `paths`, its operations) addressable as `openapi#/…`.
 */
export function documentAjv(document: ApiDocument, { paths = false }: { paths?: boolean } = {}): AjvClass {
  // Ajv and its formats are loaded here, for a fixtures file, a state file or PUT /__control/state (and with the
  // request validator): not to start a process.
  const require = createRequire(import.meta.url);
  const { Ajv } = require('ajv') as { Ajv: typeof AjvClass };
  const addFormats = require('ajv-formats') as typeof addFormatsPlugin;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  ajv.addSchema({ components: document.components, ...(paths && { paths: document.paths }) }, 'openapi');
  return ajv;
}

/** Validators of several schemas over one document, sharing one Ajv instance (its components compiled once). */
export function documentValidators(document: ApiDocument): (schema: object) => (value: unknown) => FieldError[] {
  const ajv = documentAjv(document);
  return (schema) => {
    const validate = ajv.compile(schema);
    return (value) => (validate(value) ? [] : (validate.errors ?? []).map(fieldErrorOf));
  };
}

/** A schema taken out of the document, its `#/…` references pointed back into it as `openapi#/…` (documentAjv). */
export function rootedRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rootedRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `openapi${v}` : rootedRefs(v),
    ]),
  );
}

/** An answer that is not what the document says the operation answers. */
export interface AnswerMismatch {
  operationId: string;
  method: string;
  path: string;
  status: number;
  /** What differs, each `pointer: message`. */
  problems: string[];
}

type ResponseObject = { $ref?: string; content?: Record<string, { schema?: object }> };

/**
 * What the document says an operation (its OpenAPI path and method) answers with this status: the responses' key that
 * applies (the status, its class such as `4XX`, or `default`, in that order), and the content by media type, a
 * `#/components/responses/…` reference followed. Undefined for an operation or a status the document does not give.
 * One rule for both checks of answers (`api/answer-check.ts`): the fake's own in tests and an upstream's (shadow mode).
 */
export function documentedResponse(
  document: ApiDocument,
  path: string,
  method: string,
  status: number,
): { key: string; content: Record<string, { schema?: object }> } | undefined {
  const operation = operationAt(document, { method, path });
  if (!operation) return undefined;
  const responses = (operation.responses ?? {}) as Record<string, ResponseObject>;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  if (key === undefined) return undefined;
  let response = responses[key];
  if (response?.$ref) response = refTarget(document, response.$ref) as ResponseObject | undefined;
  return { key, content: response?.content ?? {} };
}

/**
 * The component an operation's success answer is as JSON (its first 2xx with `application/json` naming a component),
 * as a pointer; undefined when it answers no content, or JSON of no one component (an export: HAR or a Pact file).
 */
export function successComponentOf(document: ApiDocument, operationId: string): string | undefined {
  const found = operationsById(document).get(operationId);
  const responses = (found && operationAt(document, found)?.responses) ?? {};
  const status = Object.keys(responses).find((key) => /^2\d\d$/.test(key));
  const ref =
    status === undefined
      ? undefined
      : (
          responseContentOf(document, operationId, Number(status))?.['application/json']?.schema as
            | { $ref?: unknown }
            | undefined
        )?.$ref;
  return typeof ref === 'string' && ref.startsWith(COMPONENT_SCHEMAS) ? ref : undefined;
}

/** The content, by media type, of an operation's answer with this status (`documentedResponse`), by operationId. */
export function responseContentOf(
  document: ApiDocument,
  operationId: string,
  status: number,
): Record<string, { schema?: object }> | undefined {
  const found = operationsById(document).get(operationId);
  return found && documentedResponse(document, found.path, found.method, status)?.content;
}

/** A validator of fixtures files against the document's World schema (the same schema PUT /__control/state uses). */
export function compileWorldValidator(document: ApiDocument): (value: unknown) => FieldError[] {
  return compileDocumentValidator(document, componentRef('World'));
}
