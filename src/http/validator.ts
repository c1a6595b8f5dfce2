import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OperationId } from '../api/types.js';
import type { ApiDocument } from '../api/document.js';
import type { OperationHandlers } from './operation-handlers.js';
import { cacheRouteRegexps } from './route-regexp-cache.js';

/** What each app gives the shared validator: its own handlers and its own bearer check. */
export interface AppOperations {
  handlers: OperationHandlers;
  authenticate(req: Request, scopes: string[]): true;
}

const operationsOf = (req: Request): AppOperations => req.app.locals.operations as AppOperations;

/**
 * express-openapi-validator compiles the whole document (its meta-schema, every schema of every operation) for
 * each middleware it makes: ~400 ms here. The document is the same for every instance, so the compiled validator
 * is made once per process and shared; it holds nothing of an instance: handlers and the bearer check come from
 * the app serving the request (`app.locals.operations`), so instances stay independent.
 */
const compiled = new Map<string, RequestHandler[]>();

/**
 * The document without response bodies, for a validator that does not check responses: it would still compile
 * every response schema (~130 ms of startup and ~20 MB of generated code, profiled).
 */
function withoutResponseBodies(document: ApiDocument): ApiDocument {
  const copy = structuredClone(document) as ApiDocument & { components: { responses?: Record<string, { content?: unknown }> } };
  for (const item of Object.values(copy.paths)) {
    for (const operation of Object.values(item)) {
      const responses = (operation as { responses?: Record<string, { content?: unknown }> }).responses;
      for (const response of Object.values(responses ?? {})) delete response.content;
    }
  }
  for (const response of Object.values(copy.components.responses ?? {})) delete response.content;
  return copy;
}

export function apiValidator(document: ApiDocument, validateResponses: boolean): RequestHandler[] {
  const key = validateResponses ? 'requests+responses' : 'requests';
  let middleware = compiled.get(key);
  if (!middleware) {
    cacheRouteRegexps();
    middleware = OpenApiValidator.middleware({
      apiSpec: (validateResponses ? structuredClone(document) : withoutResponseBodies(document)) as never,
      // The meta-schema check of the document runs in tests, where responses are validated too.
      validateApiSpec: validateResponses,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
      validateResponses: validateResponses ? { allErrors: true } : false,
      validateSecurity: {
        handlers: { oauth2: (req, scopes) => operationsOf(req).authenticate(req, scopes), controlToken: () => true },
      },
      operationHandlers: {
        basePath: '/',
        resolver: (_basePath, route, apiDoc) => {
          const pathItem = apiDoc.paths![route.openApiRoute] as Record<string, { operationId: OperationId }>;
          const operationId = pathItem[route.method.toLowerCase()]!.operationId;
          return (req: Request, res: Parameters<RequestHandler>[1]) => operationsOf(req).handlers[operationId](req, res);
        },
      },
    }) as RequestHandler[];
    compiled.set(key, middleware);
  }
  return middleware;
}
