import { parse as parseQuery } from 'node:querystring';
import type { IncomingHttpHeaders } from 'node:http';
import {
  integerParametersOf,
  operationAt,
  parametersOf,
  resolveRef,
  type ApiDocument,
  type DocumentOperation,
} from '../api/document.js';
import { decimalIntegerErrors, ParameterError } from './decimal-integers.js';
import { urlParts } from './request-context.js';
import { calendarFormats, encodeSubDelimiters } from './validator.js';
import { loadInternal, loadValidatorInternal, messageOf, type LoadValidatorInternal } from './validator-internals.js';

/** What of a request its parameters are read from. */
export interface ParameterRequest {
  /** The request target as sent (`req.originalUrl`). */
  url: string;
  pathParams: Record<string, string>;
  headers: IncomingHttpHeaders;
}

/**
 * The one parameter check of an operation that takes no body: the query the handler gets (coerced, defaults filled
 * in), or a throw of express-openapi-validator's 400 in its own words, which the error writer renders as 422.
 */
export type ParameterCheck = (request: ParameterRequest) => Record<string, unknown>;

type Schema = Record<string, unknown>;
type Ajv = { compile(schema: object): AjvValidate };
type AjvValidate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
type CreateRequestAjv = (document: object, options: object) => Ajv;
interface ValidatorUtil {
  augmentAjvErrors(errors: unknown[]): unknown[];
  ajvErrorsToValidatorError(status: number, errors: unknown[]): { errors: { path: string; message: string }[] };
}
type BracketNotation = (query: Record<string, unknown>) => Record<string, unknown>;
type RawPairs = (query: string) => Map<string, string[]>;
type ReservedCheck = (name: string, pairs: Map<string, string[]>, allowComma?: boolean) => void;

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

const versionOf = (document: ApiDocument): string => String((document as unknown as { openapi?: unknown }).openapi);

/** The library's parts the check is made of: its Ajv, its error shaping, its query readers. */
interface ValidatorParts {
  ajv: Ajv;
  util: ValidatorUtil;
  brackets: BracketNotation;
  rawPairs: RawPairs;
  reserved: ReservedCheck;
}

const hasFunctions = (value: unknown, names: readonly string[]): boolean =>
  typeof value === 'object' &&
  value !== null &&
  names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/**
 * express-openapi-validator's own parts, or why they cannot be had: its Ajv factory (formats, keywords, the Ajv for
 * the document's version) with the options of its parameter validator, its error shaping, and its query mutator's
 * readers. They are the library's internals, which `^5.6.2` does not promise to keep: a release that moves or
 * reshapes one makes this check step aside, and the library checks the operation's parameters itself.
 */
function validatorParts(document: ApiDocument, load: LoadValidatorInternal): ValidatorParts | string {
  const ajvModule = loadInternal(load, './framework/ajv');
  if ('missing' in ajvModule) return ajvModule.missing;
  const util = loadInternal(load, './middlewares/util');
  if ('missing' in util) return util.missing;
  if (!hasFunctions(util.module, ['augmentAjvErrors', 'ajvErrorsToValidatorError']))
    return './middlewares/util exports no augmentAjvErrors and ajvErrorsToValidatorError';
  const mutator = loadInternal(load, './middlewares/parsers/req.parameter.mutator');
  if ('missing' in mutator) return mutator.missing;
  const prototype = (mutator.module.RequestParameterMutator as { prototype?: unknown } | undefined)?.prototype;
  const readers = ['handleBracketNotationQueryFields', 'parseQueryStringUndecoded', 'validateReservedCharacters'];
  if (!hasFunctions(prototype, readers)) return `RequestParameterMutator has no ${readers.join(', ')}`;
  const { createRequestAjv } = ajvModule.module as { createRequestAjv?: unknown };
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
    const methods = prototype as Record<string, (...args: never[]) => unknown>;
    return {
      ajv,
      util: util.module as unknown as ValidatorUtil,
      // the three use nothing of a mutator but their arguments
      brackets: methods.handleBracketNotationQueryFields!.bind(undefined) as BracketNotation,
      rawPairs: methods.parseQueryStringUndecoded!.bind(undefined) as RawPairs,
      reserved: methods.validateReservedCharacters!.bind(undefined) as ReservedCheck,
    };
  } catch (error) {
    return `createRequestAjv(document, options) throws (${messageOf(error)})`;
  }
}

/** The library's parts (or why there are none), one per document version and loader of internals. */
const partsByLoader = new Map<LoadValidatorInternal, Map<string, ValidatorParts | string>>();

function partsFor(document: ApiDocument, load: LoadValidatorInternal): ValidatorParts | string {
  const version = versionOf(document);
  let byVersion = partsByLoader.get(load);
  if (!byVersion) partsByLoader.set(load, (byVersion = new Map()));
  let parts = byVersion.get(version);
  if (parts === undefined) byVersion.set(version, (parts = validatorParts(document, load)));
  return parts;
}

/** Compiled checks, filled and never changed (as the validators are, src/http/validator.ts), per loader of internals. */
const checksByLoader = new Map<LoadValidatorInternal, Map<string, ParameterCheck>>();

/** Where express-openapi-validator keeps each kind of parameter in the data it checks. */
const FIELDS: Record<string, 'query' | 'headers' | 'params' | 'cookies'> = {
  query: 'query',
  header: 'headers',
  path: 'params',
  cookie: 'cookies',
};

/** The query string of a request target, as the validator's `url.parse(url).query` reads it: to a fragment, if any. */
function rawQueryOf(url: string): string {
  const { query } = urlParts(url);
  const hash = query.indexOf('#');
  return hash === -1 ? query : query.slice(0, hash);
}

/**
 * The parameter check of an operation that takes no request body, compiled once from the document: what
 * express-openapi-validator would answer, in its order and words, made of its own parts — integers in decimal
 * digits (src/http/decimal-integers.ts), then its query's bracket names, its unencoded reserved characters, its
 * unknown and empty names, then one Ajv function over the query, headers and path parameters. An operation with a
 * body is the library's to check, its parameters and body in one answer. Undefined when the library's parts are not
 * as known (`stepAside` hears why): the library then checks the operation. test/fuzz/fast-path.test.ts compares both
 * over thousands of generated queries.
 */
export function compileParameterCheck(
  document: ApiDocument,
  operation: DocumentOperation,
  load: LoadValidatorInternal = loadValidatorInternal,
  stepAside?: (reason: string) => void,
): ParameterCheck | undefined {
  if (operationAt(document, operation)?.requestBody !== undefined) return undefined;
  const parts = partsFor(document, load);
  if (typeof parts === 'string') {
    stepAside?.(parts);
    return undefined;
  }
  const parameters = parametersOf(document, operation);
  const schemas: Record<string, Schema> = { query: {}, headers: {}, params: {}, cookies: {} };
  const queryNames = new Set<string>();
  const reservedChecked: { name: string; allowComma: boolean }[] = [];
  for (const parameter of parameters) {
    const field = FIELDS[parameter.in ?? ''];
    if (!field || typeof parameter.name !== 'string') return undefined;
    const name = field === 'headers' ? parameter.name.toLowerCase() : parameter.name;
    const schema = resolveRef(document, (parameter.schema ?? {}) as Schema);
    const location = (
      schemas[field]!.properties ? schemas[field] : (schemas[field] = { type: 'object', properties: {} })
    )!;
    (location.properties as Record<string, Schema>)[name] = schema;
    if (parameter.required) ((location.required as string[] | undefined) ?? (location.required = [])).push(name);
    if (field === 'query') {
      queryNames.add(name);
      if (parameter.allowReserved !== true) reservedChecked.push({ name, allowComma: parameter.explode === false });
    }
  }
  const integers = integerParametersOf(document, operation);
  const schema = { required: ['query', 'headers', 'params'], properties: { ...schemas, body: {} } };
  // shared by the process's instances, as the validators are: keyed by what is compiled
  const key = `${versionOf(document)} ${JSON.stringify([schema, reservedChecked, integers])}`;
  let checks = checksByLoader.get(load);
  if (!checks) checksByLoader.set(load, (checks = new Map()));
  let check = checks.get(key);
  if (check) return check;
  let validate: AjvValidate;
  try {
    validate = parts.ajv.compile(schema);
  } catch (error) {
    stepAside?.(`its Ajv does not compile the parameters of ${operation.operationId} (${messageOf(error)})`);
    return undefined;
  }
  check = checkOf(parts, validate, { queryNames, reservedChecked, integers });
  checks.set(key, check);
  return check;
}

function checkOf(
  parts: ValidatorParts,
  validate: AjvValidate,
  {
    queryNames,
    reservedChecked,
    integers,
  }: {
    queryNames: ReadonlySet<string>;
    reservedChecked: readonly { name: string; allowComma: boolean }[];
    integers: ReturnType<typeof integerParametersOf>;
  },
): ParameterCheck {
  return ({ url, pathParams, headers }) => {
    const rawQuery = rawQueryOf(url);
    // as Express's `simple` query parser reads it (node:querystring), which the validator is handed
    const parsed = parseQuery(rawQuery) as Record<string, unknown>;
    const notDecimal = decimalIntegerErrors(integers, (where, name) =>
      where === 'query' ? parsed[name] : where === 'path' ? pathParams[name] : headers[name.toLowerCase()],
    );
    if (notDecimal.length > 0) throw new ParameterError(notDecimal);
    const query = parts.brackets(parsed);
    // as the validator sees it behind `withSubDelimitersEncoded` (src/http/validator.ts)
    const pairs = parts.rawPairs(encodeSubDelimiters(rawQuery));
    for (const { name, allowComma } of reservedChecked) parts.reserved(name, pairs, allowComma);
    for (const name of Object.keys(query)) {
      if (!queryNames.has(name))
        throw new ParameterError([{ path: `/query/${name}`, message: `Unknown query parameter '${name}'` }]);
      if (query[name] === '')
        throw new ParameterError([
          { path: `/query/${name}`, message: `Empty value found for query parameter '${name}'` },
        ]);
    }
    if (!validate({ query, headers, params: { ...pathParams } })) {
      const { errors } = parts.util.ajvErrorsToValidatorError(400, parts.util.augmentAjvErrors(validate.errors ?? []));
      throw new ParameterError(errors.map(({ path, message }) => ({ path, message })));
    }
    return query;
  };
}
