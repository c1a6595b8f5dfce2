import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { ApiDocument } from '../api/document.js';
import { cacheRouteRegexps } from './route-regexp-cache.js';

/** express-openapi-validator's steps, split where the pipeline puts its own between them. */
export interface ValidatorSteps {
  /** Finds the operation of the request (`req.openapi`): 404 and 405 for what the document does not serve. */
  route: RequestHandler[];
  /** Checks parameters and body against the operation (and, in tests, the answer against the document). */
  validate: RequestHandler[];
}

/**
 * express-openapi-validator compiles the whole document for each middleware it makes: ~400 ms here. The document is
 * the same for every instance and the steps hold nothing of an instance (authentication and handlers are the
 * pipeline's own), so they are made once per process and shared.
 */
const compiled = new Map<string, ValidatorSteps>();

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

const ROUTE_STEPS = new Set(['pathParamsMiddleware', 'metadataMiddleware']);
const VALIDATE_STEPS = new Set(['requestMiddleware', 'responseMiddleware']);

export function validatorSteps(document: ApiDocument, validateResponses: boolean): ValidatorSteps {
  // The document is part of the key: a test runs the pipeline on a tiny document of its own (~1 ms to write).
  const key = `${validateResponses ? 'requests+responses' : 'requests'} ${JSON.stringify(document)}`;
  let steps = compiled.get(key);
  if (!steps) {
    cacheRouteRegexps();
    const middleware = OpenApiValidator.middleware({
      apiSpec: (validateResponses ? structuredClone(document) : withoutResponseBodies(document)) as never,
      // The meta-schema check of the document runs in tests, where responses are validated too.
      validateApiSpec: validateResponses,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
      validateResponses: validateResponses ? { allErrors: true } : false,
      // Authentication and dispatch are the pipeline's own steps (src/http/authenticate.ts, src/http/dispatch.ts).
      validateSecurity: false,
      // No operation takes multipart bodies.
      fileUploader: false,
    }) as RequestHandler[];
    const named = (names: Set<string>) => middleware.filter((step) => names.has(step.name));
    steps = { route: named(ROUTE_STEPS), validate: named(VALIDATE_STEPS) };
    // Its security step is a no-op with validateSecurity off; anything else new would be skipped, so it stops here.
    const unknown = middleware.filter((step) => !ROUTE_STEPS.has(step.name) && !VALIDATE_STEPS.has(step.name) && step.name !== 'securityMiddleware');
    if (steps.route.length !== ROUTE_STEPS.size || unknown.length > 0) {
      throw new Error(`express-openapi-validator's steps are not the expected ones: ${middleware.map((s) => s.name).join(', ')}`);
    }
    compiled.set(key, steps);
  }
  return steps;
}
