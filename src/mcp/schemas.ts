import * as z from 'zod/v4';
import {
  COMPONENT_SCHEMAS,
  componentPointer,
  documentValidators,
  resolveRef,
  rootedRefs,
  type ApiDocument,
} from '../api/document.js';
import type { FieldError } from '../api/errors.js';
import { tokensOf } from '../api/json-pointer.js';

/**
 * The MCP tools' input and output schemas, from the OpenAPI document's control-plane components (never copied by
 * hand). An MCP client reads JSON Schema (2020-12), so OpenAPI 3.0's `nullable` becomes a `null` type, `example`
 * becomes `examples`, and a `$ref` to a component points into the tool schema's own `$defs` (only those reached).
 * The SDK's McpServer takes zod schemas: each tool's schema is a zod object that carries the document's JSON Schema
 * as its metadata (what `tools/list` shows) and checks a value with Ajv compiled from the document (the same
 * schemas, the same library as the control plane's validator), so the SDK's own refusal of arguments that break a
 * tool's schema names the document's rules, not a converter's approximation of them.
 */

export type JsonSchema = Record<string, unknown>;

/** The part of the document a pointer names (`#/components/schemas/Clock`, `…/properties/data/items`). */
export const schemaAt = (document: ApiDocument, pointer: string): JsonSchema =>
  resolveRef(document, { $ref: pointer }) as JsonSchema;

/** OpenAPI 3.0 schema → JSON Schema 2020-12, collecting the components it reaches. */
function convert(node: unknown, reached: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => convert(item, reached));
  if (node === null || typeof node !== 'object') return node;
  const source = node as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'nullable' || key === 'example' || key === 'discriminator' || key === 'xml' || key === 'externalDocs')
      continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_SCHEMAS)) {
      const name = value.slice(COMPONENT_SCHEMAS.length);
      reached.add(name);
      out.$ref = `#/$defs/${name}`;
    } else if (key === 'properties' || key === 'patternProperties') {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([name, schema]) => [name, convert(schema, reached)]),
      );
    } else {
      out[key] = convert(value, reached);
    }
  }
  if ('example' in source && !('examples' in source)) out.examples = [source.example];
  if (source.nullable === true) return nullable(out);
  return out;
}

/** `nullable: true` as `anyOf` with `null`, each branch of one type (the portable spelling), annotations outside. */
function nullable(schema: JsonSchema): JsonSchema {
  const { description, title, default: fallback, examples, ...rest } = schema;
  return {
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    anyOf: [rest, { type: 'null' }],
    ...(fallback !== undefined && { default: fallback }),
    ...(examples !== undefined && { examples }),
  };
}

/**
 * A self-contained JSON Schema of a part of the document: its `$ref`s to components point into `$defs`, which holds
 * every component it reaches (transitively).
 */
export function jsonSchemaOf(document: ApiDocument, schema: JsonSchema): JsonSchema {
  const reached = new Set<string>();
  const root = convert(schema, reached) as JsonSchema;
  const defs: JsonSchema = {};
  const pending = [...reached];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in defs) continue;
    const before = new Set(reached);
    defs[name] = convert(schemaAt(document, componentPointer(name)), reached);
    for (const added of reached) if (!before.has(added)) pending.push(added);
  }
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}

const validators = new WeakMap<ApiDocument, ReturnType<typeof documentValidators>>();

/** Ajv over the document (one instance per document), for a schema that `$ref`s its components. */
export function documentCheck(document: ApiDocument, schema: JsonSchema): (value: unknown) => FieldError[] {
  // compiled on first use: a server lists its tools at once, and compiles a tool's check when it is first called
  let check: ((value: unknown) => FieldError[]) | undefined;
  const compile = (): ((value: unknown) => FieldError[]) => {
    let of = validators.get(document);
    if (!of) validators.set(document, (of = documentValidators(document)));
    return of(rootedRefs(schema) as object);
  };
  return (value) => (check ??= compile())(value);
}

/**
 * The zod object McpServer registers: `tools/list` shows `jsonSchema` (zod emits an object's metadata over its own
 * keywords); a call's arguments are checked by `check` (an empty list: valid) and reach the tool as they were sent.
 */
export function carrier(
  jsonSchema: JsonSchema,
  check?: (value: Record<string, unknown>) => readonly FieldError[],
): z.ZodType<Record<string, unknown>> {
  const base = z.looseObject({});
  const checked = check
    ? base.check((payload) => {
        const errors = check(payload.value);
        for (const error of errors.slice(0, 20)) {
          // the whole value is written `/`: no token
          const path = tokensOf(error.path).filter((token) => token !== '');
          payload.issues.push({
            code: 'custom',
            message: `${error.path} ${error.message}`,
            input: payload.value,
            path,
          });
        }
      })
    : base;
  return checked.meta(jsonSchema) as unknown as z.ZodType<Record<string, unknown>>;
}
