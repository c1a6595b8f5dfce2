import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { DomainError, OAuthError, type FieldError } from '../api/errors.js';
import { problem, sendProblem, type Problem } from './problem.js';

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
  typeof e === 'object' && e !== null && typeof (e as ValidatorError).status === 'number' && Array.isArray((e as ValidatorError).errors);

const isBodyParserError = (e: unknown): e is BodyParserError =>
  typeof e === 'object' && e !== null && (e as BodyParserError).expose === true && typeof (e as BodyParserError).status === 'number';

const LOCATIONS: Record<string, FieldError['location']> = {
  body: 'body',
  query: 'query',
  params: 'path',
  path: 'path',
  headers: 'header',
  header: 'header',
};

/** The validator names a field as `/query/limit` or `.body.dob_month`; a problem names a location and a pointer. */
function toFieldError(item: { path?: string; message?: string }): FieldError {
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

interface Rendered {
  body: Problem;
  headers?: Record<string, string>;
}

function fromValidator(error: ValidatorError, req: Request): Rendered {
  switch (error.status) {
    case 400: {
      if (error.errors!.some((e) => /malformed uri/i.test(e.message ?? ''))) {
        return { body: problem(400, 'malformed_uri', `The path ${req.originalUrl.split('?')[0]} is not valid percent-encoding.`) };
      }
      const errors = error.errors!.map(toFieldError);
      const summary = errors.map((e) => `${e.location} ${e.path}: ${e.message}`).join('; ');
      return { body: problem(422, 'validation_error', `The request is not valid: ${summary}.`, errors) };
    }
    case 404:
      return { body: routeNotFound(req) };
    case 405:
      return {
        body: problem(405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${error.headers?.Allow ?? 'none'}.`),
        headers: { Allow: error.headers?.Allow ?? '' },
      };
    case 413:
      return { body: problem(413, 'payload_too_large', 'The request body is larger than 1 MiB.') };
    case 415: {
      const content = (req as Request & { openapi?: { schema?: { requestBody?: { content?: object } } } }).openapi?.schema?.requestBody?.content;
      const expected = Object.keys(content ?? { 'application/json': {} }).join(' or ');
      return { body: problem(415, 'unsupported_media_type', `Content-Type "${req.get('content-type') ?? 'none'}" is not accepted here; send ${expected}.`) };
    }
    case 500: {
      // Only when response validation is on (tests): the handler answered something the document does not allow.
      const errors = error.errors!.map(toFieldError);
      return { body: problem(500, 'response_invalid', `The response does not match the OpenAPI document: ${error.message}`, errors) };
    }
    default:
      return { body: problem(error.status, 'request_rejected', error.message ?? 'The request was rejected.') };
  }
}

function fromBodyParser(error: BodyParserError): Rendered {
  switch (error.type) {
    case 'entity.parse.failed':
      return { body: problem(400, 'malformed_body', `The request body cannot be parsed: ${error.message}.`) };
    case 'entity.too.large':
    case 'parameters.too.many':
      return { body: problem(413, 'payload_too_large', 'The request body is larger than 1 MiB.') };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { body: problem(415, 'unsupported_media_type', `${error.message}.`) };
    default:
      // e.g. a Content-Encoding whose data does not inflate
      return { body: problem(400, 'malformed_body', `The request body cannot be read: ${error.message}.`) };
  }
}

export function routeNotFound(req: Request): Problem {
  const hint =
    req.method === 'DELETE' && /^\/v1\/orders\/[^/]+$/.test(req.path)
      ? ' Cancelling an order is DELETE /v1/orders/{order_id}/, with the trailing slash.'
      : '';
  return problem(404, 'route_not_found', `No operation at ${req.method} ${req.path}.${hint}`);
}

/** For paths the document does not manage (so the validator did not answer). */
export const notFoundHandler: RequestHandler = (req, res) => sendProblem(res, routeNotFound(req));

function render(error: unknown, req: Request, authError: unknown): Rendered {
  if (authError instanceof DomainError) error = authError;
  if (error instanceof DomainError) return { body: problem(error.status, error.code, error.detail, error.errors), ...(error.headers && { headers: error.headers }) };
  if (isBodyParserError(error)) return fromBodyParser(error);
  if (isValidatorError(error)) return fromValidator(error, req);
  console.error('Unexpected error', error);
  return { body: problem(500, 'internal_error', 'The fake failed unexpectedly; this is a bug, please report it.') };
}

/** RFC 6749 §5.2 for the token endpoint: any request problem there is an `invalid_request`. */
function renderForTokenEndpoint(rendered: Rendered): { status: number; body: { error: string; error_description: string } } | undefined {
  const { status } = rendered.body;
  // a refused Host is the server's answer to any path, not a token request's problem
  if (status === 404 || status === 405 || status >= 500 || rendered.body.code === 'host_not_allowed') return undefined;
  const fields = rendered.body.errors?.map((e) => `${e.path.slice(1)} ${e.message}`).join('; ');
  const description = rendered.body.status === 422 && fields ? `Invalid token request: ${fields}.` : rendered.body.detail;
  return { status: 400, body: { error: 'invalid_request', error_description: description } };
}

export function errorMiddleware(): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof OAuthError) {
      res.locals.problemCode = error.error;
      res.status(error.status).set({ ...error.headers, 'Cache-Control': 'no-store' }).json({ error: error.error, error_description: error.description });
      return;
    }
    const rendered = render(error, req, res.locals.authError);
    const oauth = req.path === '/oauth2/token' ? renderForTokenEndpoint(rendered) : undefined;
    if (oauth) {
      res.locals.problemCode = oauth.body.error;
      res.status(oauth.status).set('Cache-Control', 'no-store').json(oauth.body);
      return;
    }
    sendProblem(res, rendered.body, rendered.headers);
  };
}
