import { createRequire } from 'node:module';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type * as OpenApiValidatorLibrary from 'express-openapi-validator';
import {
  operationAt,
  operationScopes,
  parametersOf,
  type ApiDocument,
  type DocumentOperation,
} from '../api/document.js';
import { oneOperationDocument } from '../api/operation-document.js';
import type { Logger } from '../logger.js';
import { hasBody } from './body.js';
import { decimalIntegers } from './decimal-integers.js';
import { skipMetaSchemaUnlessChecked } from './meta-schema-shim.js';
import { applyShim, loadValidatorInternal, type LoadValidatorInternal } from './validator-internals.js';

/**
 * express-openapi-validator (with Ajv, its formats and the ref parser: a large part of a fresh process's start) is loaded
 * when the first validator is made, not with the app: a process that has only answered its health check has not
 * needed it yet.
 */
const require = createRequire(import.meta.url);
export const loadValidatorLibrary = (): typeof OpenApiValidatorLibrary =>
  require('express-openapi-validator') as typeof OpenApiValidatorLibrary;

/**
 * The formats the validator checks beyond ajv-formats' "fast" mode (its default): a `date-time` must name an instant
 * the calendar has (fast mode takes `2024-02-30T00:00:00Z`, which Date reads as 1 March). ajv-formats' own "full"
 * check, as the world and state files are checked (api/document.ts). `date` is the domain's to check
 * (`birthdate`: 422 `invalid_date_of_birth`). Given to the parameter check's Ajv too (http/parameter-check.ts).
 */
export const calendarFormats = (): Record<string, { validate: (value: string) => boolean }> => {
  const { fullFormats } = require('ajv-formats/dist/formats') as {
    fullFormats: Record<string, { validate: (value: string) => boolean }>;
  };
  return { 'date-time': fullFormats['date-time']! };
};

/** express-openapi-validator's steps for one operation, split where the pipeline puts its own between them. */
export interface OperationValidator {
  /** Sets `req.openapi` (the operation's schema, its path parameters): the validator's router, on one route. */
  metadata: RequestHandler;
  /** Checks parameters and body against the operation. */
  validate: RequestHandler[];
  /**
   * Why the library's steps were not split as known (a release renamed or added one), if they were not: then
   * `metadata` runs its steps up to the one that sets `req.openapi` (its router) and `validate` the rest, in the
   * library's own order (same answers).
   */
  unknownSteps?: string;
}

/**
 * One validator instance per operation, made on the operation's first request and shared by every instance of the
 * process (the document is the same for all and the steps hold nothing of an instance). Its document holds that one
 * operation and the components it reaches (`api/operation-document.ts`), so that:
 *   - its router matches one route instead of scanning every route of the document per request;
 *   - its start (bundling, the schema preprocessor, Ajv) walks one operation, not forty: a process pays for the
 *     operations it serves (the first request of a fresh process waits for two, not for the whole document).
 * Keys: the operation's document and whether the document is checked; the cache is filled, never changed.
 */
const compiled = new Map<string, OperationValidator>();

/** The loaders of internals the meta-schema shim was applied with: once each, as the library it patches is one. */
const shimmedWith = new WeakSet<LoadValidatorInternal>();

const ROUTE_STEP = 'metadataMiddleware';
const VALIDATE_STEPS = new Set(['requestMiddleware']);
// A no-op with validateSecurity off (authentication is the pipeline's own); pathParamsMiddleware installs app.param
// handlers for Express route parameters, which no route of the pipeline has.
const SKIPPED_STEPS = new Set(['pathParamsMiddleware', 'securityMiddleware']);

/** Runs `steps` from `from` on, in turn, as one step. */
const runFrom =
  (steps: readonly RequestHandler[], from: () => number): RequestHandler =>
  (req, res, next) => {
    let i = from();
    const step = (error?: unknown): void => {
      if (error !== undefined || i >= steps.length) next(error);
      else void steps[i++]!(req, res, step);
    };
    step();
  };

/** RFC 3986 sub-delimiters that `encodeURIComponent` leaves as they are, which Node's query parsers take as themselves. */
const SUB_DELIMITERS = /[!'()*]/g;
const HAS_SUB_DELIMITER = /[!'()*]/;

/** A query with those five percent-encoded: the same query to any parser, and none left for the library to refuse. */
export const encodeSubDelimiters = (query: string): string =>
  query.replace(SUB_DELIMITERS, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * A query's `!`, `'`, `(`, `)` and `*` taken as Node's parsers take them (the character itself), where the library
 * refuses every reserved character unencoded in a parameter without `allowReserved`: `step` is shown the URL with
 * those five percent-encoded (the same query to any parser), and the request keeps its URL as sent.
 */
function withSubDelimitersEncoded(step: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const sent = req.originalUrl;
    const at = sent.indexOf('?');
    const query = at === -1 ? '' : sent.slice(at);
    if (!HAS_SUB_DELIMITER.test(query)) return step(req, res, next);
    req.originalUrl = sent.slice(0, at) + encodeSubDelimiters(query);
    try {
      return step(req, res, (error?: unknown) => {
        req.originalUrl = sent;
        next(error);
      });
    } catch (error) {
      req.originalUrl = sent;
      throw error;
    }
  };
}

/** The library's chain split where its router has set `req.openapi`, found by running it (names unknown). */
function splitAtRouter(
  middleware: readonly RequestHandler[],
  before?: RequestHandler,
): Pick<OperationValidator, 'metadata' | 'validate'> {
  let afterRouter = middleware.length;
  const metadata: RequestHandler = (req, res, next) => {
    let i = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined) next(error);
      else if ((req as Request & { openapi?: unknown }).openapi !== undefined) {
        afterRouter = i;
        next();
      } else if (i >= middleware.length) next();
      else void middleware[i++]!(req, res, step);
    };
    step();
  };
  return {
    metadata,
    validate: [...(before ? [before] : []), withSubDelimitersEncoded(runFrom(middleware, () => afterRouter))],
  };
}

/** How a validator is made: whether it checks its document, and what the meta-schema shim it applies is handed. */
export interface ValidatorMaking {
  /** The validator checks its document against the OpenAPI meta-schema first (tests). */
  checkDocument: boolean;
  /** Hears why the meta-schema shim stepped aside, if it did. */
  logger: Logger;
  /** Where the shim finds the library's internals (a test gives it changed ones). */
  internals?: LoadValidatorInternal;
}

/** An operation's validator; the first asked for with its internals applies the meta-schema shim (meta-schema-shim.ts). */
export function operationValidator(
  document: ApiDocument,
  operation: DocumentOperation,
  { checkDocument, logger, internals = loadValidatorInternal }: ValidatorMaking,
): OperationValidator {
  const apiSpec = oneOperationDocument(document, operation);
  // Keyed by what the validator is given, not by operationId alone: a test runs the pipeline on a tiny document of
  // its own, whose operations may share names with this API's (a few KB to write per operation and instance).
  const key = `${checkDocument ? 'checked' : 'unchecked'} ${JSON.stringify(apiSpec)}`;
  // Here, not with the app: its module loads the library's Ajv, which a process loads with its first validator.
  // Before the cache is asked: whether this process compiled the operation already does not change what is said.
  if (!shimmedWith.has(internals)) {
    shimmedWith.add(internals);
    applyShim('meta-schema-shim', () => skipMetaSchemaUnlessChecked(internals), logger);
  }
  let steps = compiled.get(key);
  if (!steps) {
    const middleware = loadValidatorLibrary().middleware({
      apiSpec: apiSpec as never,
      validateApiSpec: checkDocument,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
      formats: calendarFormats(),
      validateResponses: false,
      // Authentication and dispatch are the pipeline's own steps (src/http/authenticate.ts, src/http/dispatch.ts).
      validateSecurity: false,
      // No operation takes multipart bodies.
      fileUploader: false,
    }) as RequestHandler[];
    const metadata = middleware.find((step) => step.name === ROUTE_STEP);
    // integers in decimal digits only, before the library's Ajv reads `0x10` or `1e3` as a number
    const integers = decimalIntegers(document, operation);
    const validate = [
      ...(integers ? [integers] : []),
      ...middleware.filter((step) => VALIDATE_STEPS.has(step.name)).map(withSubDelimitersEncoded),
    ];
    // Anything new would be skipped by the split: then the library's own chain runs whole, where validation runs.
    const unknown = middleware.filter(
      (step) => step.name !== ROUTE_STEP && !VALIDATE_STEPS.has(step.name) && !SKIPPED_STEPS.has(step.name),
    );
    steps =
      metadata && unknown.length === 0
        ? { metadata, validate }
        : {
            ...splitAtRouter(middleware, integers),
            unknownSteps: `express-openapi-validator's steps are not the known ones (${middleware.map((s) => s.name || 'anonymous').join(', ')})`,
          };
    compiled.set(key, steps);
  }
  return steps;
}

/**
 * An operation of the document that takes nothing the validator could check: no parameters (its own or its path's),
 * no request body, and no OAuth scopes (an operation a token opens is checked whole). A request to it without a
 * query string or a body gives the validator nothing to check either (`requestAsksNothing`), so it may go without
 * it; any other request to it still goes through it (an unknown query parameter is still refused).
 */
export function takesNothing(document: ApiDocument, operation: DocumentOperation): boolean {
  const object = operationAt(document, operation)!;
  return (
    parametersOf(document, operation).length === 0 &&
    object.requestBody === undefined &&
    operationScopes(document, object) === undefined
  );
}

/** No query string (not even `?`) and no body, as the body parsers tell one (src/http/body.ts). */
export const requestAsksNothing = (req: Request): boolean => !req.originalUrl.includes('?') && !hasBody(req);

interface OpenApiMetadata {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: unknown;
  serial: number;
  _responseSchema?: unknown;
}

/**
 * The validator's router step for one operation, run once: what it sets on `req.openapi` is the same for every
 * request of the operation (its schema, route and serial) but the path parameters, which the route step already
 * decoded from the same expression. So its first request goes through the validator's own step, and the others get
 * the same `req.openapi` and `req.params` without its lookup and promise. One per
 * instance and operation (src/app.ts).
 */
export function metadataOnce(
  metadata: RequestHandler,
): (req: Request, res: Response, next: NextFunction, pathParams: Record<string, string>) => void {
  let make: ((pathParams: Record<string, string>) => OpenApiMetadata) | undefined;
  return (req, res, next, pathParams) => {
    if (make) {
      (req as Request & { openapi?: OpenApiMetadata }).openapi = make(pathParams);
      req.params = pathParams;
      return next();
    }
    void metadata(req, res, (error?: unknown) => {
      const openapi = (req as Request & { openapi?: OpenApiMetadata }).openapi;
      if (error === undefined && openapi) make = metadataMaker(openapi);
      next(error);
    });
  };
}

const KNOWN_METADATA = ['expressRoute', 'openApiRoute', 'pathParams', 'schema', 'serial'];

/**
 * Copies of what the validator's router set, with other path parameters: an object literal of the known fields (a
 * spread of them cost more); a spread when the validator sets anything else.
 */
function metadataMaker(openapi: OpenApiMetadata): (pathParams: Record<string, string>) => OpenApiMetadata {
  const { pathParams: _, ...rest } = openapi;
  const keys = Object.keys(openapi);
  if (keys.length !== KNOWN_METADATA.length || !KNOWN_METADATA.every((key) => keys.includes(key)))
    return (pathParams) => ({ ...rest, pathParams });
  const { expressRoute, openApiRoute, schema, serial } = rest;
  return (pathParams) => ({ expressRoute, openApiRoute, pathParams, schema, serial });
}
