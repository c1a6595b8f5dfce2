import { parametersOf, resolveRef, type ApiDocument, type DocumentOperation } from '../api/document.js';
import { DECIMAL_INTEGER } from './decimal-integers.js';
import { calendarFormats } from './validator.js';
import { loadInternal, loadValidatorInternal, messageOf, type LoadValidatorInternal } from './validator-internals.js';

/**
 * A request's query, checked and coerced as express-openapi-validator would, or `undefined`: "not sure, ask the
 * validator" (which then accepts or refuses it with its own wording). Never a refusal of its own.
 */
export type FastParameters = (
  rawQuery: string,
  pathParams: Record<string, string>,
) => Record<string, unknown> | undefined;

type Schema = Record<string, unknown>;
interface Parameter {
  in?: string;
  name?: string;
  required?: boolean;
  schema?: Schema;
  $ref?: string;
  [key: string]: unknown;
}

// What a parameter may say for the fast path to take it: anything else (style, content, allowEmptyValue, nullable,
// arrays, objects…) goes to the validator, whose handling of it the fast path would have to copy.
const PARAMETER_KEYS = new Set([
  'in',
  'name',
  'required',
  'schema',
  'description',
  'example',
  'examples',
  'deprecated',
]);
const SCHEMA_KEYS = new Set([
  'type',
  'enum',
  'format',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'description',
  'example',
  'examples',
  'title',
]);
const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);
// Formats as the validator checks them: ajv-formats' "fast" mode, its "full" date-time (calendarFormats), its own int32/int64.
const FORMATS = new Set(['uuid', 'date', 'date-time', 'int32', 'int64']);

/**
 * A raw value of unreserved characters and %XX escapes only: no `+` (the query parser's space), no reserved character
 * (the validator refuses those unencoded), nothing a parser could read two ways. Empty values go to the validator.
 */
const PLAIN_VALUE = /^(?:[A-Za-z0-9._~-]|%[0-9A-Fa-f]{2})+$/;

const versionOf = (document: ApiDocument): string => String((document as unknown as { openapi?: unknown }).openapi);

function simpleSchema(document: ApiDocument, schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  const resolved = resolveRef(document, schema);
  if (!Object.keys(resolved).every((key) => SCHEMA_KEYS.has(key))) return undefined;
  if (typeof resolved.type !== 'string' || !SCALAR_TYPES.has(resolved.type)) return undefined;
  if (resolved.format !== undefined && !FORMATS.has(resolved.format as string)) return undefined;
  return resolved;
}

interface Simple {
  query: { names: Set<string>; schema: Schema };
  params: Schema;
}

/** The operation's parameters as two object schemas (query, path), or undefined when one is not simple. */
function simpleParameters(document: ApiDocument, operation: DocumentOperation): Simple | undefined {
  const all = parametersOf(document, operation) as Parameter[];
  const query: Schema & { properties: Record<string, Schema>; required: string[] } = {
    type: 'object',
    properties: {},
    required: [],
  };
  const params: Schema & { properties: Record<string, Schema>; required: string[] } = {
    type: 'object',
    properties: {},
    required: [],
  };
  for (const parameter of all) {
    if (!Object.keys(parameter).every((key) => PARAMETER_KEYS.has(key))) return undefined;
    const target = parameter.in === 'query' ? query : parameter.in === 'path' ? params : undefined;
    const schema = simpleSchema(document, parameter.schema);
    if (!target || !schema || typeof parameter.name !== 'string' || parameter.name in target.properties)
      return undefined;
    target.properties[parameter.name] = schema;
    if (parameter.required) target.required.push(parameter.name);
  }
  return { query: { names: new Set(Object.keys(query.properties)), schema: query }, params };
}

type Ajv = { compile(schema: object): (data: unknown) => boolean };
type CreateRequestAjv = (document: object, options: object) => Ajv;

/** The options express-openapi-validator gives its parameter validator: coerced types, defaults filled in, every error. */
const PARAMETER_OPTIONS = {
  strict: false,
  strictNumbers: true,
  strictTuples: true,
  allowUnionTypes: false,
  validateSchema: false,
  coerceTypes: true,
  useDefaults: true,
  removeAdditional: false,
  validateFormats: true,
  ajvFormats: { mode: 'fast' },
  allErrors: true,
};

/**
 * The validator's own Ajv factory (its formats, keywords and Ajv flavour for the document's version) with the options
 * it gives its parameter validator, or why it cannot be had: `./framework/ajv` is the library's internal, which
 * `^5.6.2` does not promise to keep, so a release that moves or reshapes it makes the fast check step aside.
 */
function validatorAjv(document: ApiDocument, load: LoadValidatorInternal): Ajv | string {
  const loaded = loadInternal(load, './framework/ajv');
  if ('missing' in loaded) return loaded.missing;
  const { createRequestAjv } = loaded.module as { createRequestAjv?: unknown };
  if (typeof createRequestAjv !== 'function') return './framework/ajv exports no createRequestAjv function';
  try {
    const ajv = (createRequestAjv as CreateRequestAjv)(
      { openapi: versionOf(document), components: {} },
      { ...PARAMETER_OPTIONS, formats: calendarFormats() },
    );
    if (typeof ajv?.compile !== 'function')
      return 'createRequestAjv(document, options) does not answer an Ajv instance';
    const probe = ajv.compile({ type: 'object', properties: { n: { type: 'integer', default: 1 } } });
    const coerced: Record<string, unknown> = {};
    if (!probe(coerced) || coerced.n !== 1) return 'createRequestAjv(document, options) does not fill in defaults';
    return ajv;
  } catch (error) {
    return `createRequestAjv(document, options) throws (${messageOf(error)})`;
  }
}

/** Compiled checks, filled and never changed (as the validators are, src/http/validator.ts). */
const compiledChecks = new Map<string, FastParameters>();
/** The compiler of those checks (or why there is none), one per document version and loader of internals. */
const compilers = new Map<LoadValidatorInternal, Map<string, Ajv | string>>();

function compilerFor(document: ApiDocument, load: LoadValidatorInternal): Ajv | string {
  const version = versionOf(document);
  let byVersion = compilers.get(load);
  if (!byVersion) compilers.set(load, (byVersion = new Map()));
  let ajv = byVersion.get(version);
  if (ajv === undefined) byVersion.set(version, (ajv = validatorAjv(document, load)));
  return ajv;
}

/**
 * The fast path of a read whose parameters are simple (path and query, scalar schemas): compiled once per operation
 * from the document. It takes a query only when every name is one of the operation's, given once, with a plain
 * non-empty value, and the validator's own Ajv accepts the whole (coercing and filling defaults as it does); it
 * answers the query the handler gets, as the validator would have left it. Anything else is the validator's.
 * test/unit/fast-parameters.test.ts and test/fuzz/fast-path.test.ts compare both over thousands of generated queries.
 * `stepAside` hears why there is none when the validator's internals are not as known (the validator then runs).
 */
export function compileFastParameters(
  document: ApiDocument,
  operation: DocumentOperation,
  load: LoadValidatorInternal = loadValidatorInternal,
  stepAside?: (reason: string) => void,
): FastParameters | undefined {
  const simple = simpleParameters(document, operation);
  if (!simple) return undefined;
  const ajv = compilerFor(document, load);
  if (typeof ajv === 'string') {
    stepAside?.(ajv);
    return undefined;
  }
  const schema = {
    type: 'object',
    required: ['query', 'params'],
    properties: { query: simple.query.schema, params: simple.params },
  };
  // shared by the process's instances, as the validators are: keyed by what is compiled
  const key = `${versionOf(document)} ${JSON.stringify(schema)}`;
  let compiled = compiledChecks.get(key);
  if (!compiled) {
    const integers = (properties: Record<string, Schema>): Set<string> =>
      new Set(Object.keys(properties).filter((name) => properties[name]!.type === 'integer'));
    compiled = fastCheck(ajv.compile(schema), simple.query.names, {
      query: integers(simple.query.schema.properties as Record<string, Schema>),
      path: integers(simple.params.properties as Record<string, Schema>),
    });
    compiledChecks.set(key, compiled);
  }
  return compiled;
}

/** Reads (GET) take the fast path when their parameters are simple. */
export const fastReadOf = (
  document: ApiDocument,
  operation: DocumentOperation,
  load?: LoadValidatorInternal,
  stepAside?: (reason: string) => void,
): FastParameters | undefined =>
  operation.method === 'get' ? compileFastParameters(document, operation, load, stepAside) : undefined;

/**
 * `integers`: the names of the integer parameters, whose values the validator's Ajv would read with `Number()`
 * (`0x10`, `1e3`, `+5`…): one not in decimal digits is the validator path's to refuse (src/http/decimal-integers.ts).
 */
function fastCheck(
  validate: (data: unknown) => boolean,
  names: ReadonlySet<string>,
  integers: { query: ReadonlySet<string>; path: ReadonlySet<string> },
): FastParameters {
  return (rawQuery, pathParams) => {
    for (const name of integers.path)
      if (pathParams[name] !== undefined && !DECIMAL_INTEGER.test(pathParams[name])) return undefined;
    // no prototype: the validator's path gets the names the document does not have, and the query is data either way
    const query = Object.create(null) as Record<string, unknown>;
    if (rawQuery !== '') {
      for (const part of rawQuery.split('&')) {
        const eq = part.indexOf('=');
        const name = eq === -1 ? part : part.slice(0, eq);
        if (eq === -1 || !names.has(name) || name in query) return undefined;
        const raw = part.slice(eq + 1);
        if (!PLAIN_VALUE.test(raw)) return undefined;
        if (raw.includes('%')) {
          try {
            query[name] = decodeURIComponent(raw);
          } catch {
            return undefined;
          }
        } else {
          query[name] = raw;
        }
        if (integers.query.has(name) && !DECIMAL_INTEGER.test(query[name] as string)) return undefined;
      }
    }
    return validate({ query, params: { ...pathParams } }) ? query : undefined;
  };
}
