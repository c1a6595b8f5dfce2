import { createRequire } from 'node:module';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type * as OpenApiValidatorLibrary from 'express-openapi-validator';
import type { ApiDocument } from '../api/document.js';
import { hasBody } from './body.js';
import { decimalIntegers } from './decimal-integers.js';

/**
 * express-openapi-validator (with Ajv, its formats and the ref parser: a large part of a fresh process's start) is loaded
 * when the first validator is made, not with the app: a process that has only answered its health check has not
 * needed it yet.
 */
const require = createRequire(import.meta.url);
export const loadValidatorLibrary = (): typeof OpenApiValidatorLibrary => require('express-openapi-validator') as typeof OpenApiValidatorLibrary;

/**
 * The formats the validator checks beyond ajv-formats' "fast" mode (its default): a `date-time` must name an instant
 * the calendar has (fast mode takes `2024-02-30T00:00:00Z`, which Date reads as 1 March). ajv-formats' own "full"
 * check, as the world and state files are checked (api/document.ts). `date` is the domain's to check
 * (`birthdate`: 422 `invalid_date_of_birth`). Given to the fast read path's Ajv too (http/fast-parameters.ts).
 */
export const calendarFormats = (): Record<string, { validate: (value: string) => boolean }> => {
  const { fullFormats } = require('ajv-formats/dist/formats') as { fullFormats: Record<string, { validate: (value: string) => boolean }> };
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

/** One operation of the document: its path template, method and the path item it belongs to. */
export interface OperationOf {
  operationId: string;
  method: string;
  path: string;
}

/**
 * One validator instance per operation, made on the operation's first request and shared by every instance of the
 * process (the document is the same for all and the steps hold nothing of an instance). Its document holds that one
 * operation and every component, so that:
 *   - its router matches one route instead of scanning every route of the document per request;
 *   - its start (bundling, the schema preprocessor, Ajv) walks one operation, not forty: a process pays for the
 *     operations it serves (the first request of a fresh process waits for two, not for the whole document).
 * Keys: the operation's document and whether the document is checked; the cache is filled, never changed.
 */
const compiled = new Map<string, OperationValidator>();

type Responses = Record<string, { content?: unknown }>;
const withoutContent = (responses: Responses = {}): Responses =>
  Object.fromEntries(Object.entries(responses).map(([status, { content: _, ...response }]) => [status, response]));

const COMPONENT_REF = /^#\/components\/([^/]+)\/([^/]+)$/;

/**
 * The components an operation reaches through `$ref` (and discriminator mappings), transitively, and every security
 * scheme: the validator's preprocessor walks every component it is given (the whole document per instance), so
 * each operation's instance is given only its own.
 */
function reachableComponents(components: Record<string, Record<string, unknown> | undefined>, roots: unknown[]): Record<string, Record<string, unknown>> {
  const reached: Record<string, Record<string, unknown>> = { ...(components.securitySchemes && { securitySchemes: components.securitySchemes }) };
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
export function inlineSchemaRefs(value: unknown, schemas: Readonly<Record<string, unknown>>, open: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((item) => inlineSchemaRefs(item, schemas, open));
  if (typeof value !== 'object' || value === null) return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = SCHEMA_REF.exec(ref)?.[1];
    // a reference with siblings is left as it is (OpenAPI 3.0 ignores them; Ajv would not)
    if (name === undefined || open.has(name) || schemas[name] === undefined || Object.keys(value).length > 1) return value;
    return inlineSchemaRefs(schemas[name], schemas, new Set([...open, name]));
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inlineSchemaRefs(item, schemas, open)]));
}

/**
 * The document with just one operation and the components it reaches, its request body's schemas written in place.
 * Its answers lose their bodies: the validator checks requests only, and would still compile every response schema
 * (answers are checked after they are sent, in tests: src/http/answer-check.ts).
 */
function oneOperationDocument(document: ApiDocument, { method, path }: OperationOf): ApiDocument {
  const item = document.paths[path] as Record<string, unknown>;
  const operation = item[method] as { responses?: Responses; requestBody?: unknown };
  const schemas = (document.components as { schemas?: Record<string, unknown> }).schemas ?? {};
  const inlined = operation.requestBody === undefined ? operation : { ...operation, requestBody: inlineSchemaRefs(operation.requestBody, schemas) };
  const kept = { ...inlined, responses: withoutContent(operation.responses) };
  const pathItem = { ...(item.parameters !== undefined && { parameters: item.parameters }), [method]: kept };
  const components = document.components as Record<string, Record<string, unknown> | undefined>;
  const all = !components.responses ? components : { ...components, responses: withoutContent(components.responses as Responses) };
  return { ...document, paths: { [path]: pathItem }, components: reachableComponents(all, [pathItem, document.security]) as ApiDocument['components'] };
}

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
      if (error !== undefined || i >= steps.length) return next(error);
      void steps[i++]!(req, res, step);
    };
    step();
  };

/** The library's chain split where its router has set `req.openapi`, found by running it (names unknown). */
function splitAtRouter(middleware: readonly RequestHandler[], before?: RequestHandler): Pick<OperationValidator, 'metadata' | 'validate'> {
  let afterRouter = middleware.length;
  const metadata: RequestHandler = (req, res, next) => {
    let i = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined) return next(error);
      if ((req as Request & { openapi?: unknown }).openapi !== undefined) {
        afterRouter = i;
        return next();
      }
      if (i >= middleware.length) return next();
      void middleware[i++]!(req, res, step);
    };
    step();
  };
  return { metadata, validate: [...(before ? [before] : []), runFrom(middleware, () => afterRouter)] };
}

/** `checkDocument`: the validator checks its document against the OpenAPI meta-schema first (tests). */
export function operationValidator(document: ApiDocument, operation: OperationOf, checkDocument: boolean): OperationValidator {
  const apiSpec = oneOperationDocument(document, operation);
  // Keyed by what the validator is given, not by operationId alone: a test runs the pipeline on a tiny document of
  // its own, whose operations may share names with this API's (a few KB to write per operation and instance).
  const key = `${checkDocument ? 'checked' : 'unchecked'} ${JSON.stringify(apiSpec)}`;
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
    const validate = [...(integers ? [integers] : []), ...middleware.filter((step) => VALIDATE_STEPS.has(step.name))];
    // Anything new would be skipped by the split: then the library's own chain runs whole, where validation runs.
    const unknown = middleware.filter((step) => step.name !== ROUTE_STEP && !VALIDATE_STEPS.has(step.name) && !SKIPPED_STEPS.has(step.name));
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

type Operation = { parameters?: unknown[]; requestBody?: unknown; security?: Record<string, string[]>[] };

/**
 * An operation of the document that takes nothing the validator could check: no parameters (its own or its path's),
 * no request body, and no OAuth scopes (whose check reads the validator's `req.openapi`). A request to it without a
 * query string or a body gives the validator nothing to check either (`requestAsksNothing`), so it may go without
 * it; any other request to it still goes through it (an unknown query parameter is still refused).
 */
export function takesNothing(document: ApiDocument, { method, path }: OperationOf): boolean {
  const item = document.paths[path] as Record<string, unknown> & { parameters?: unknown[] };
  const operation = item[method] as Operation;
  const security = operation.security ?? (document as { security?: Operation['security'] }).security ?? [];
  return (
    (item.parameters?.length ?? 0) === 0 &&
    (operation.parameters?.length ?? 0) === 0 &&
    operation.requestBody === undefined &&
    !security.some((requirement) => 'oauth2' in requirement)
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
export function metadataOnce(metadata: RequestHandler): (req: Request, res: Response, next: NextFunction, pathParams: Record<string, string>) => void {
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
  if (keys.length !== KNOWN_METADATA.length || !KNOWN_METADATA.every((key) => keys.includes(key))) return (pathParams) => ({ ...rest, pathParams });
  const { expressRoute, openApiRoute, schema, serial } = rest;
  return (pathParams) => ({ expressRoute, openApiRoute, pathParams, schema, serial });
}
