import { operationAt, type ApiDocument, type DocumentOperation } from './document.js';

// The slice of the document for one operation: what express-openapi-validator is given per operation
// (src/http/validator.ts), so that its router matches one route and its start walks one operation's components.

type Responses = Record<string, { content?: unknown }>;
const withoutContent = (responses: Responses = {}): Responses =>
  Object.fromEntries(Object.entries(responses).map(([status, { content: _, ...response }]) => [status, response]));

const COMPONENT_REF = /^#\/components\/([^/]+)\/([^/]+)$/;

/**
 * The components an operation reaches through `$ref` (and discriminator mappings), transitively, and every security
 * scheme: the validator's preprocessor walks every component it is given (the whole document per instance), so
 * each operation's instance is given only its own.
 */
function reachableComponents(
  components: Record<string, Record<string, unknown> | undefined>,
  roots: unknown[],
): Record<string, Record<string, unknown>> {
  const reached: Record<string, Record<string, unknown>> = {
    ...(components.securitySchemes && { securitySchemes: components.securitySchemes }),
  };
  const queue = [...roots];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const match = COMPONENT_REF.exec(value);
      if (!match) return;
      const [, kind, name] = match as unknown as [string, string, string];
      const target = components[kind]?.[name];
      if (target === undefined || reached[kind]?.[name] !== undefined) return;
      (reached[kind] ??= {})[name] = target;
      queue.push(target);
    } else if (Array.isArray(value)) {
      for (const item of value) queue.push(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) queue.push(item);
    }
  };
  while (queue.length > 0) visit(queue.pop());
  return reached;
}

const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

/**
 * A schema with the component schemas it names written in place (those that name themselves again stay references).
 * Ajv compiles a referenced schema that holds references of its own as a function of its own, and with allErrors
 * merges each call's errors by copying all those gathered so far: 10,000 wrong items of an array of such a
 * component took ~10 s (bench/invalid-bodies.mjs --shape=at-bound); written in place, they are one loop.
 */
export function inlineSchemaRefs(
  value: unknown,
  schemas: Readonly<Record<string, unknown>>,
  open: ReadonlySet<string> = new Set(),
): unknown {
  if (Array.isArray(value)) return value.map((item) => inlineSchemaRefs(item, schemas, open));
  if (typeof value !== 'object' || value === null) return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = SCHEMA_REF.exec(ref)?.[1];
    // a reference with siblings is left as it is (OpenAPI 3.0 ignores them; Ajv would not)
    if (name === undefined || open.has(name) || schemas[name] === undefined || Object.keys(value).length > 1)
      return value;
    return inlineSchemaRefs(schemas[name], schemas, new Set([...open, name]));
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inlineSchemaRefs(item, schemas, open)]));
}

/**
 * The document with just one operation and the components it reaches, its request body's schemas written in place.
 * Its answers lose their bodies: the validator checks requests only, and would still compile every response schema
 * (answers are checked after they are sent, in tests: src/http/answer-check.ts).
 */
export function oneOperationDocument(document: ApiDocument, { method, path }: DocumentOperation): ApiDocument {
  const item = document.paths[path] as { parameters?: unknown };
  const operation = operationAt(document, { method, path }) as { responses?: Responses; requestBody?: unknown };
  const schemas = (document.components as { schemas?: Record<string, unknown> }).schemas ?? {};
  const inlined =
    operation.requestBody === undefined
      ? operation
      : { ...operation, requestBody: inlineSchemaRefs(operation.requestBody, schemas) };
  const kept = { ...inlined, responses: withoutContent(operation.responses) };
  const pathItem = { ...(item.parameters !== undefined && { parameters: item.parameters }), [method]: kept };
  const components = document.components as Record<string, Record<string, unknown> | undefined>;
  const all = !components.responses
    ? components
    : { ...components, responses: withoutContent(components.responses as Responses) };
  return {
    ...document,
    paths: { [path]: pathItem },
    components: reachableComponents(all, [pathItem, document.security]) as ApiDocument['components'],
  };
}
