import type { IncomingMessage, ServerResponse } from 'node:http';
import { operationScopesOf } from '../api/document.js';
import type { FakeContext } from '../context.js';
import { bearerIdentity } from './authenticate.js';
import { hasBody } from './body.js';
import type { FastParameters } from './fast-parameters.js';
import { checkHost, type HostPolicy } from './host-guard.js';
import { isOwnPath, journalWhenClosed } from './observe.js';
import { answerKept, cacheKeyOf, lookUpKept, type ReadCache } from './read-cache.js';
import { audiencesOf, baseUrlFor, urlParts } from './request-context.js';
import type { RequestState } from './request-state.js';
import type { RouteMatch, RoutableRequest } from './route.js';
import { framingRefused } from './transfer-encoding.js';

/** The pipeline's own parts the lane uses, shared with it: the same routes, checks, cache and request ids. */
export interface KeptAnswerLaneParts {
  route: (req: RoutableRequest) => RouteMatch;
  fastRead: (operation: RouteMatch['operation']) => FastParameters | undefined;
  cache: ReadCache;
  nextId: () => string;
  hosts: HostPolicy;
}

/** Characters after which Express parses a URL its slow way (parseurl): such a URL is left to it. */
const UNUSUAL_URL = /[\t\n\f\r #\u00a0\ufeff]/;

/** Answers a request and says so, or leaves it untouched for Express (false). */
export type KeptAnswerLane = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Kept answers served before Express: a hit of the read cache costs little more than writing its bytes, and Express's
 * layers were most of what was left of its time. A request takes the lane only when every step of the pipeline would
 * let it through to a kept answer — no body or transfer coding, an allowed Host, a routed read, a valid token with the
 * operation's scopes, a tenant without faults, parameters the fast path accepts, a fresh kept answer — each checked by
 * the function the pipeline's own step uses, in the same order; it is then journaled, logged and answered exactly as
 * there. Anything else, a refusal included, goes to Express untouched. Not used behind a trusted proxy (the scheme
 * comes from X-Forwarded-Proto there) nor where answers are checked against the document (tests).
 */
export function keptAnswerLane(ctx: FakeContext, parts: KeptAnswerLaneParts): KeptAnswerLane {
  // every cached read needs scopes; an operation needing none is not one the lane takes
  const scopes = operationScopesOf(ctx.api.document);
  // As the host guard and the bearer step keep them: clients keep their Host, so these run when it changes.
  let lastHost: { header: string | undefined; allowed: boolean; issuer?: string; audiences?: readonly string[] } | undefined;
  const hostOf = (header: string | undefined) => {
    if (lastHost === undefined || lastHost.header !== header) {
      lastHost = { header, allowed: checkHost(header, parts.hosts) === 'allowed' };
      if (lastHost.allowed) {
        try {
          const issuer = ctx.options.baseUrl ?? baseUrlFor('http', header);
          lastHost = { ...lastHost, issuer, audiences: audiencesOf(issuer) };
        } catch {
          lastHost.allowed = false;
        }
      }
    }
    return lastHost;
  };
  return (req, res) => {
    const url = req.url!;
    if (req.method !== 'GET' || url[0] !== '/' || UNUSUAL_URL.test(url) || hasBody(req) || framingRefused(req.socket)) return false;
    const { path, query } = urlParts(url);
    if (isOwnPath(path)) return false;
    const host = hostOf(req.headers.host);
    if (!host.allowed) return false;
    let match: RouteMatch;
    try {
      match = parts.route({ originalUrl: url, method: 'GET', path });
    } catch {
      return false;
    }
    const { operation, pathParams } = match;
    const needed = scopes.get(operation.operationId);
    const fast = parts.fastRead(operation);
    if (needed === undefined || needed.length === 0 || fast === undefined) return false;
    const { tenant, refusal } = bearerIdentity(ctx, req.headers.authorization, () => ({ issuer: host.issuer!, audiences: host.audiences! }), needed);
    if (tenant === undefined || refusal !== undefined) return false;
    if (fast(query, pathParams) === undefined) return false;
    const lookup = lookUpKept(parts.cache, tenant, operation.operationId, { method: 'GET', headers: req.headers, key: cacheKeyOf('http', req.headers.host, url) });
    if (lookup?.answer === undefined) return false;
    const state: RequestState = { id: parts.nextId(), operationId: operation.operationId, pathParams, tenant };
    res.setHeader('X-Request-Id', state.id!);
    journalWhenClosed(ctx, state, req, res, path);
    answerKept(res, state, lookup.answer);
    return true;
  };
}
