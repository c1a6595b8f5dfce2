import type { Request } from 'express';
import { operationAt, operationsOf, resolveRef, type ApiDocument } from '../api/document.js';
import { DomainError } from '../api/errors.js';
import { hasBody } from './body.js';
import { stateOf } from './request-state.js';

/** The operations whose request body the document requires as JSON. */
function requiredJsonBodies(document: ApiDocument): ReadonlySet<string> {
  const ids = operationsOf(document).filter((operation) => {
    const body = operationAt(document, operation)?.requestBody;
    const resolved = body && resolveRef(document, body);
    return resolved?.required === true && Object.keys(resolved.content ?? {}).some((type) => /json/i.test(type));
  });
  return new Set(ids.map((operation) => operation.operationId));
}

/** No body bytes: neither Content-Length nor Transfer-Encoding, `Content-Length: 0`, or a body read to nothing. */
function sentNoBody(req: Request): boolean {
  const raw = stateOf(req).rawBody;
  return raw !== undefined ? raw.length === 0 : !hasBody(req) || Number(req.headers['content-length']) === 0;
}

/**
 * A request that sends no body where the document requires a JSON one: 422 at `body` `/`, whatever its Content-Type
 * says. The validator takes a missing body as `{}` (and a schema without `required` members lets it through to the
 * handler), or refuses it for its Content-Type alone.
 */
export function bodyRequired(document: ApiDocument): (req: Request) => void {
  const required = requiredJsonBodies(document);
  return (req) => {
    const { operationId } = stateOf(req);
    if (operationId === undefined || !required.has(operationId) || !sentNoBody(req)) return;
    throw new DomainError(422, 'validation_error', 'The request is not valid: body /: a JSON body is required.', [
      { location: 'body', path: '/', message: 'a JSON body is required' },
    ]);
  };
}
