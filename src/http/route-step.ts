import type { Request, RequestHandler } from 'express';
import type { Tenant } from '../domain/tenants.js';
import { stateOf } from './request-state.js';
import type { RoutableRequest } from './route.js';
import type { RouteMatch } from './route-match.js';

/**
 * The route step: the request's operation, found once and kept on its state (`state.route`) for every later step.
 * A path the document does not have still belongs to the client whose token it carries (the readiness report's
 * wrong_path).
 */
export function routeStep(
  route: (req: RoutableRequest) => RouteMatch,
  unroutedTenant: (req: Request) => Tenant | undefined,
): RequestHandler {
  return (req, _res, next) => {
    const state = stateOf(req);
    let match: RouteMatch;
    try {
      match = route(req);
    } catch (error) {
      state.tenant = unroutedTenant(req);
      throw error;
    }
    state.operationId = match.operation.operationId;
    state.route = match;
    next();
  };
}
