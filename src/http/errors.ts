import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from '../logger.js';
import { DomainError, OAuthError, type FieldError } from '../api/errors.js';
import { WHERE_CREDENTIALS_GO } from '../domain/token-request.js';
import type { DocumentedPath } from '../records/journal.js';
import { clip, MAX_FIELD_ERRORS, problem, type Problem } from './problem.js';
import { settle, stateOf } from './request-state.js';
import type { requestHints } from './request-hints.js';

interface ValidatorError {
  status: number;
  message?: string;
  path?: string;
  errors?: { path?: string; message?: string; errorCode?: string }[];
  headers?: Record<string, string>;
}

/** What body-parser and its inflaters throw (http-errors): a client error with a status and maybe a type. */
interface BodyParserError {
  type?: string;
  status: number;
  expose: true;
  message?: string;
}

const isValidatorError = (e: unknown): e is ValidatorError =>
  typeof e === 'object' &&
  e !== null &&
  typeof (e as ValidatorError).status === 'number' &&
  Array.isArray((e as ValidatorError).errors);

const isBodyParserError = (e: unknown): e is BodyParserError =>
  typeof e === 'object' &&
  e !== null &&
  (e as BodyParserError).expose === true &&
  typeof (e as BodyParserError).status === 'number';

const LOCATIONS: Record<string, FieldError['location']> = {
  body: 'body',
  query: 'query',
  params: 'path',
  path: 'path',
  headers: 'header',
  header: 'header',
};

/** The validator names a field as `/query/limit` or `.body.dob_month`; a problem names a location and a pointer. */
export function toFieldError(item: { path?: string; message?: string }): FieldError {
  const segments = (item.path ?? '').replace(/^[./]/, '').split(/[./]/);
  const location = LOCATIONS[segments[0] ?? ''] ?? 'body';
  const pointer = LOCATIONS[segments[0] ?? ''] ? segments.slice(1) : segments;
  const message = item.message ?? 'is not valid';
  const unknownField = /Unknown query parameter '([^']+)'/.exec(message);
  return {
    location,
    path: `/${(unknownField ? [unknownField[1]] : pointer).filter(Boolean).join('/')}`,
    message,
  };
}

/** A detail names the first few fields; `errors` lists up to 50 and counts the rest. */
function validationProblem(
  items: readonly { path?: string; message?: string }[],
  status = 422,
  code = 'validation_error',
): Problem {
  const errors = items.slice(0, MAX_FIELD_ERRORS).map(toFieldError);
  const named = errors
    .slice(0, 3)
    .map((e) => `${e.location} ${e.path}: ${e.message}`)
    .join('; ');
  const more = items.length > 3 ? ` (and ${items.length - 3} more)` : '';
  const detail =
    status === 500
      ? `The response does not match the OpenAPI document: ${named}${more}.`
      : `The request is not valid: ${named}${more}.`;
  return problem(status, code, detail, errors, items.length);
}

interface Rendered {
  body: Problem;
  headers?: Record<string, string>;
}

function fromValidator(error: ValidatorError, req: Request): Rendered {
  switch (error.status) {
    case 400: {
      if (error.errors!.some((e) => /malformed uri/i.test(e.message ?? ''))) {
        return {
          body: problem(
            400,
            'malformed_uri',
            `The path ${clip(req.originalUrl.split('?')[0]!)} is not valid percent-encoding.`,
          ),
        };
      }
      return { body: validationProblem(error.errors!) };
    }
    case 404:
      return { body: fromDomain(routeNotFound(req)) };
    case 405:
      return {
        body: problem(
          405,
          'method_not_allowed',
          `${req.method} is not allowed on ${clip(req.path)}; allowed: ${error.headers?.Allow ?? 'none'}.`,
        ),
        headers: { Allow: error.headers?.Allow ?? '' },
      };
    case 413:
      return { body: problem(413, 'payload_too_large', 'The request body is larger than 1 MiB.') };
    case 415: {
      const types = stateOf(req).route?.operation.bodyTypes ?? [];
      const expected = (types.length > 0 ? types : ['application/json']).join(' or ');
      return {
        body: problem(
          415,
          'unsupported_media_type',
          `Content-Type "${clip(req.get('content-type') ?? 'none', 100)}" is not accepted here; send ${expected}.`,
        ),
      };
    }
    default:
      return { body: problem(error.status, 'request_rejected', error.message ?? 'The request was rejected.') };
  }
}

function fromBodyParser(error: BodyParserError): Rendered {
  switch (error.type) {
    case 'entity.parse.failed':
    case 'entity.too.deep':
      return {
        body: problem(400, 'malformed_body', `The request body cannot be parsed: ${clip(error.message ?? '', 200)}.`),
      };
    case 'entity.too.large':
    case 'parameters.too.many':
      return { body: problem(413, 'payload_too_large', 'The request body is larger than 1 MiB.') };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { body: problem(415, 'unsupported_media_type', `${clip(error.message ?? '', 200)}.`) };
    default:
      // e.g. a Content-Encoding whose data does not inflate
      return {
        body: problem(400, 'malformed_body', `The request body cannot be read: ${clip(error.message ?? '', 200)}.`),
      };
  }
}

/** How a near miss differs from the path the document has: the one difference a partner fixes. */
function differenceOf(path: string, spelling: string): string {
  const single = path.replace(/\/{2,}/g, '/');
  if (single === spelling) return 'no doubled slashes';
  if (`${single}/` === spelling) return 'with the trailing slash';
  if (single === `${spelling}/`) return 'without the trailing slash';
  if (single.toLowerCase() === spelling.toLowerCase()) return 'paths are case-sensitive';
  return 'paths match as it writes them, case and every slash';
}

/** 404 route_not_found, with the documented path the request nearly spelled, if any: the journal keeps it as evidence. */
export class RouteNotFound extends DomainError {
  constructor(
    detail: string,
    readonly documentedPath: DocumentedPath | undefined,
  ) {
    super(404, 'route_not_found', detail);
  }
}

/** The document's path a request nearly spelled, the request's path as the document would spell it, and (when the
 * finder knows it) how the two differ. */
export interface NearMiss {
  openApiRoute: string;
  spelling: string;
  difference?: string;
}

/**
 * The answer for a path the document does not serve. `nearMiss`: the document's path it nearly spells (another case,
 * a doubled or trailing slash, a segment misspelt, missing or one too many) and this request's path as the document
 * would spell it. The journal keeps the documented path and the difference as evidence (the readiness report's
 * wrong_path reads them).
 */
export function routeNotFound(req: Pick<Request, 'method' | 'path'>, nearMiss?: NearMiss): DomainError {
  const documented = nearMiss && {
    path: nearMiss.openApiRoute,
    difference: nearMiss.difference ?? differenceOf(req.path, nearMiss.spelling),
  };
  const hint = nearMiss
    ? ` The document has ${nearMiss.openApiRoute}: ${documented!.difference} (did you mean ${clip(nearMiss.spelling, 200)}?).`
    : '';
  return new RouteNotFound(`No operation at ${req.method} ${clip(req.path, 200)}.${hint}`, documented);
}

const fromDomain = (e: DomainError): Problem => ({ ...problem(e.status, e.code, e.detail, e.errors), ...e.extensions });

function render(error: unknown, req: Request, logger: Logger): Rendered {
  if (error instanceof DomainError)
    return { body: fromDomain(error), ...(error.headers && { headers: error.headers }) };
  if (isBodyParserError(error)) return fromBodyParser(error);
  if (isValidatorError(error)) return fromValidator(error, req);
  logger.error({ err: error, path: req.path }, 'unexpected error');
  return { body: problem(500, 'internal_error', 'The fake failed unexpectedly; this is a bug, please report it.') };
}

const REQUIRED = /^must have required property '[^']+'$/;

/** RFC 6749 §5.2 for the token endpoint: any request problem there is an `invalid_request`. */
function asOAuthError(rendered: Rendered, audience: string | undefined): OAuthError | undefined {
  const { status } = rendered.body;
  // a refused Host is the server's answer to any path, not a token request's problem
  if (status === 404 || status === 405 || status >= 500 || rendered.body.code === 'host_not_allowed') return undefined;
  const errors = rendered.body.errors ?? [];
  if (status !== 422 || errors.length === 0) return new OAuthError(400, 'invalid_request', rendered.body.detail);
  // a missing audience is told the value this server takes, as a wrong one is
  const missing = (e: { path: string }): string =>
    e.path === '/audience' && audience !== undefined
      ? `is required: "${audience}" here (the host of this server's base URL)`
      : 'is required';
  const fields = errors
    .map((e) => `${e.path.slice(1)} ${REQUIRED.test(e.message) ? missing(e) : e.message}`)
    .join('; ');
  // a client that sent no credentials in the form is told where its kind of client sends them
  const credentialsMissing = errors.some(
    (e) => REQUIRED.test(e.message) && (e.path === '/client_id' || e.path === '/client_secret'),
  );
  return new OAuthError(
    400,
    'invalid_request',
    `Invalid token request: ${fields}.${credentialsMissing ? ` ${WHERE_CREDENTIALS_GO}` : ''}`,
  );
}

/**
 * The client closed its connection before its request was read (body-parser's `request.aborted`), or the connection
 * is gone: there is nobody to answer, and nothing was refused. The journal records a dropped connection (status 0).
 */
const clientLeft = (error: unknown, res: Response): boolean =>
  (isBodyParserError(error) && error.type === 'request.aborted') || res.socket?.destroyed === true;

/** The one place that writes an error answer: a problem, or an RFC 6749 error at the token endpoint. */
/** `audienceOf`: the audience a token request to this server names (its base URL's host), for the token endpoint's errors. */
export function errorMiddleware(
  logger: Logger,
  audienceOf: (req: Request) => string | undefined = () => undefined,
  hint: ReturnType<typeof requestHints> = (rendered) => rendered,
): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const state = stateOf(req);
    try {
      if (clientLeft(error, res)) res.destroy();
      else if (!res.headersSent) writeError(error, req, res, logger, audienceOf, hint);
    } finally {
      settle(state);
    }
  };
}

function writeError(
  error: unknown,
  req: Request,
  res: Response,
  logger: Logger,
  audienceOf: (req: Request) => string | undefined,
  hint: ReturnType<typeof requestHints>,
): void {
  const state = stateOf(req);
  const rendered = error instanceof OAuthError ? undefined : hint(render(error, req, logger), req);
  const oauth =
    error instanceof OAuthError
      ? error
      : req.path === '/oauth2/token'
        ? asOAuthError(rendered!, audienceOf(req))
        : undefined;
  if (oauth) {
    state.code = oauth.error;
    res
      .status(oauth.status)
      .set({ ...oauth.headers, 'Cache-Control': 'no-store' })
      .json({ error: oauth.error, error_description: oauth.description });
    return;
  }
  const { body, headers = {} } = rendered!;
  state.code = body.code;
  if (error instanceof RouteNotFound) state.documentedPath = error.documentedPath;
  // res.json, so that response validation (on in tests) checks problems against the document too.
  res.status(body.status).set(headers).type('application/problem+json').json(body);
}
