import type { Request } from 'express';
import {
  letterOf,
  operationAt,
  operationScopes,
  operationsOf,
  type ApiDocument,
  type DocumentOperation,
} from '../api/document.js';
import type { OperationId } from '../api/types.js';
import { closePathFinder } from './close-path.js';
import type { RoutedOperation, RouteMatch } from './route-match.js';
import { routeNotFound, type NearMiss } from './errors.js';
import { urlParts } from './request-context.js';
import {
  loadInternal,
  loadValidatorInternal,
  messageOf,
  type LoadValidatorInternal,
  type ShimOutcome,
} from './validator-internals.js';

type PathToRegexp = (
  path: string,
  options?: { sensitive?: boolean; strict?: boolean },
) => { regexp: RegExp; keys: { name: string }[] };

/**
 * Why the validator's path-to-regexp is not the one the route step knows, if it is not: `pathToRegexp(path, options)`
 * answering `{ regexp, keys }` (as the validator reads it), an expression that holds no state between matches (no `g`
 * or `y` flag: one compiled expression serves every request).
 */
export function pathToRegexpProblem(compile: unknown): ShimOutcome {
  if (typeof compile !== 'function') return 'path-to-regexp exports no pathToRegexp function';
  let probe: { regexp?: unknown; keys?: unknown };
  try {
    probe = (compile as PathToRegexp)('/probe/:id', { strict: true, sensitive: false }) as unknown as typeof probe;
  } catch (error) {
    return `pathToRegexp('/probe/:id', options) throws (${messageOf(error)})`;
  }
  if (!(probe?.regexp instanceof RegExp) || !Array.isArray(probe.keys))
    return 'pathToRegexp(path, options) does not answer { regexp, keys }';
  if (probe.regexp.global || probe.regexp.sticky)
    return 'pathToRegexp answers expressions that keep state between matches';
  if (probe.regexp.exec('/probe/x')?.[1] !== 'x' || (probe.keys[0] as { name?: unknown } | undefined)?.name !== 'id') {
    return "pathToRegexp('/probe/:id') does not match /probe/x as { id: 'x' }";
  }
  return undefined;
}

/**
 * The expression path-to-regexp 8 compiles for a route of this document (static segments and `:name` ones, a
 * trailing slash forgiven): what routes when the validator's own path-to-regexp is not shaped as known.
 */
export function ownPathToRegexp(path: string, options?: { sensitive?: boolean }): ReturnType<PathToRegexp> {
  const keys: { name: string }[] = [];
  const source = path
    .split(/(:[A-Za-z_$][\w$]*)/)
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/\\:/g, ':').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      keys.push({ name: part.slice(1) });
      return '([^\\/]+)';
    })
    .join('');
  return { regexp: new RegExp(`^(?:${source})(?:\\/$)?$`, options?.sensitive ? '' : 'i'), keys };
}

/** The validator's path-to-regexp, so that routes match as its router matches them; ours when it is not as known. */
function validatorPathToRegexp(load: LoadValidatorInternal): PathToRegexp {
  const loaded = loadInternal(load, 'path-to-regexp');
  const found = 'module' in loaded ? loaded.module.pathToRegexp : undefined;
  return pathToRegexpProblem(found) === undefined ? (found as PathToRegexp) : ownPathToRegexp;
}

/** Shaped as the validator's HttpError (`status`, `errors`, `headers`): the error handler renders both alike. */
class RouteError extends Error {
  readonly errors: { path: string; message: string }[];
  constructor(
    readonly status: 400 | 405,
    readonly path: string,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = status === 400 ? 'Bad Request' : 'Method Not Allowed';
    this.errors = [{ path, message }];
  }
}

/** One path of the document, with its operations by upper-case method. */
interface PathRoute {
  openApiRoute: string;
  regexp: RegExp;
  /** Names of the path parameters, in the order of the expression's groups. */
  keys: string[];
  /** The path's text around its parameters (`/v1/orders/`, `/`): a near miss's right spelling is made of them. */
  literals: string[];
  /** The expression that matches the path as the document writes it (`letterOf`): what routes. */
  letter: RegExp;
  operations: Map<string, RoutedOperation>;
  /** The `Allow` header of a 405, as the validator writes it. */
  allow: string;
}

/** What routing reads of a request (Express's, or Node's own with the same three fields). */
export type RoutableRequest = Pick<Request, 'originalUrl' | 'method' | 'path'>;

function routedOperation(document: ApiDocument, operation: DocumentOperation): RoutedOperation {
  const object = operationAt(document, operation);
  return {
    ...operation,
    operationId: operation.operationId as OperationId,
    scopes: object && operationScopes(document, object),
    bodyTypes: Object.keys(object?.requestBody?.content ?? {}),
  };
}

// As express-openapi-validator (framework/openapi.spec.loader.js): `{id}` → `:id`, and its order of routes, static
// before parameterized (`/~` sorts after letters), the longer of two where one is a prefix of the other first.
const toExpressRoute = (path: string): string =>
  path
    .split(':')
    .map((part) => part.replace(/\{([^}]+)}/g, ':$1'))
    .join('\\:');
const sortRoutes = (r1: { expressRoute: string }, r2: { expressRoute: string }): number => {
  const e1 = r1.expressRoute.replace(/\/:/g, '/~');
  const e2 = r2.expressRoute.replace(/\/:/g, '/~');
  if (e1.startsWith(e2)) return -1;
  if (e2.startsWith(e1)) return 1;
  return e1 > e2 ? 1 : -1;
};

/** The first segment of a path, lower case: only routes that start with it can match (every route starts static). */
const firstSegmentOf = (path: string): string => {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
};

/** The path as the document spells it, with a request's parameter values (as sent) in place of its `{names}`. */
const spellingOf = ({ literals }: PathRoute, values: readonly string[]): string => {
  let spelling = literals[0]!;
  for (let i = 1; i < literals.length; i++) spelling += (values[i - 1] ?? '') + literals[i]!;
  return spelling;
};

/** A path's parameter values if it is this route's path to the letter: its case, its every slash. */
const exactValues = (entry: PathRoute, path: string): string[] | undefined => entry.letter.exec(path)?.slice(1);

/**
 * The document's operations, routed as express-openapi-validator's router routes them (same expressions, same order,
 * same 404, 405 and `Allow`), but compiled once and grouped by first segment: its router compiled every route's
 * expression and tried each on every request. A path matches only as the document writes it, its case and every
 * slash (`letterOf`; the validator's router forgives both, the real service does not). Shadow mode names a forwarded
 * request's operation with this router too (`shadow/forwarding.ts`, handed this same router). A near miss (another case, a slash doubled, a trailing slash added or left out), found by the validator's own
 * forgiving expressions, is a 404 naming the right spelling; failing that, so is a path a segment away
 * (`close-path.ts`). Each operation then gets its own validator
 * (src/http/validator.ts), whose router sees just that one route.
 */
export function compileRoutes(
  document: ApiDocument,
  load: LoadValidatorInternal = loadValidatorInternal,
): (req: RoutableRequest) => RouteMatch {
  // The validator's own path-to-regexp: routes match as its router matches them.
  const pathToRegexp = validatorPathToRegexp(load);

  // The validator's routes: one per path and method, in the document's order, then sorted as it sorts them.
  const routes = operationsOf(document).map((operation) => ({
    expressRoute: toExpressRoute(operation.path),
    operation: routedOperation(document, operation),
  }));
  routes.sort(sortRoutes);
  const byPath = new Map<string, PathRoute>();
  for (const { expressRoute, operation } of routes) {
    let entry = byPath.get(expressRoute);
    if (!entry) {
      const { regexp, keys } = pathToRegexp(expressRoute, { sensitive: false, strict: true });
      const { literals, expression } = letterOf(operation.path);
      entry = {
        openApiRoute: operation.path,
        regexp,
        keys: keys.map((k) => k.name),
        literals,
        letter: expression,
        operations: new Map(),
        allow: '',
      };
      byPath.set(expressRoute, entry);
    }
    entry.operations.set(operation.method.toUpperCase(), operation);
  }
  for (const entry of byPath.values()) entry.allow = [...entry.operations.keys()].join(', ');

  const groups = new Map<string, PathRoute[]>();
  for (const entry of byPath.values()) {
    const first = firstSegmentOf(entry.openApiRoute);
    groups.set(first, [...(groups.get(first) ?? []), entry]);
  }

  // Paths without parameters, found by their text instead of trying the routes before them in turn; only those that
  // no route before them matches, so that the first route to match stays the one found.
  const ordered = [...byPath.values()];
  const exact = new Map<string, PathRoute>();
  ordered.forEach((entry, i) => {
    const text = entry.openApiRoute;
    if (
      entry.keys.length > 0 ||
      !exactValues(entry, text) ||
      ordered.slice(0, i).some((earlier) => exactValues(earlier, text))
    )
      return;
    exact.set(text, entry);
  });

  const find = (path: string): { entry: PathRoute; values: string[] } | undefined => {
    const known = exact.get(path);
    if (known) return { entry: known, values: [] };
    for (const entry of groups.get(firstSegmentOf(path)) ?? []) {
      const values = exactValues(entry, path);
      if (values) return { entry, values };
    }
    return undefined;
  };

  // Only for a 404, when the near miss below finds none: the path a segment away (misspelt, missing, one too many).
  const closePath = closePathFinder(
    [...byPath.values()].map((entry) => ({ openApiRoute: entry.openApiRoute, methods: entry.operations.keys() })),
  );

  // Only for a 404: the route a path nearly spells (another case, slashes doubled, a trailing slash added or left
  // out) that has the request's method, and the path it should have been.
  const nearMiss = (method: string, path: string): NearMiss | undefined => {
    const single = path.replace(/\/{2,}/g, '/');
    const tries = [path, single, single.endsWith('/') ? single.slice(0, -1) : `${single}/`];
    for (const text of tries) {
      for (const entry of groups.get(firstSegmentOf(text)) ?? []) {
        const matched = entry.operations.has(method) ? entry.regexp.exec(text) : null;
        if (matched) return { openApiRoute: entry.openApiRoute, spelling: spellingOf(entry, matched.slice(1)) };
      }
    }
    return undefined;
  };

  return (req) => {
    const { path } = urlParts(req.originalUrl);
    const found = find(path);
    if (!found) throw routeNotFound(req, nearMiss(req.method, path) ?? closePath(req.method, path));
    const { entry } = found;
    let values: string[];
    try {
      values = found.values.map(decodeURIComponent);
    } catch {
      throw new RouteError(400, req.path, `malformed uri'`);
    }
    const operation = entry.operations.get(req.method);
    if (!operation) throw new RouteError(405, req.path, `${req.method} method not allowed`, { Allow: entry.allow });
    const pathParams: Record<string, string> = {};
    for (const [i, key] of entry.keys.entries()) pathParams[key] = values[i]!;
    return { operation, openApiRoute: entry.openApiRoute, pathParams };
  };
}
