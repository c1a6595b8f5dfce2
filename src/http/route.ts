import type { Request, RequestHandler } from 'express';
import type { OperationId } from '../api/types.js';
import { routeNotFound } from './errors.js';
import { stateOf } from './request-state.js';

interface RoutedRequest extends Request {
  openapi?: { openApiRoute?: string; pathParams?: Record<string, string>; schema?: { operationId?: OperationId; security?: Record<string, string[]>[] } };
}

/** The operation the validator's router found, or none (the fake's own paths). */
export const routeOf = (req: Request): RoutedRequest['openapi'] => (req as RoutedRequest).openapi;

/**
 * Records the operation of the request. The validator's router forgives a trailing slash either way; the real service
 * does not, so a path that differs from the document by its trailing slash is unknown here too.
 */
export const recordOperation: RequestHandler = (req, _res, next) => {
  const route = routeOf(req);
  if (!route?.schema?.operationId || route.openApiRoute === undefined) return next();
  if (req.path.endsWith('/') !== route.openApiRoute.endsWith('/')) throw routeNotFound(req, route.openApiRoute);
  stateOf(req).operationId = route.schema.operationId;
  next();
};
