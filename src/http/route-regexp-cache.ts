import { loadInternal, loadValidatorInternal, messageOf, replaceExport, type LoadValidatorInternal, type ShimOutcome } from './validator-internals.js';

interface RegexpOptions {
  sensitive?: boolean;
  strict?: boolean;
  end?: boolean;
  trailing?: boolean;
  delimiter?: string;
}
type PathToRegexp = ((path: unknown, options?: RegexpOptions) => unknown) & { memoized?: true; original?: PathToRegexp };

const KEYED_OPTIONS = new Set(['sensitive', 'strict', 'end', 'trailing', 'delimiter']);
// Cheap to build on every call (the validator calls once per route per request), and covers every option it keys.
const keyOf = (path: string, o: RegexpOptions = {}): string =>
  `${path}\u0000${o.sensitive ? 1 : 0}${o.strict ? 1 : 0}${o.end === false ? 0 : 1}${o.trailing === false ? 0 : 1}${o.delimiter ?? ''}`;
const keyed = (options: RegexpOptions | undefined): boolean => {
  for (const name in options) if (!KEYED_OPTIONS.has(name)) return false;
  return true;
};

/**
 * Why path-to-regexp is not the one the shim knows, if it is not: `pathToRegexp(path, options)` answering
 * `{ regexp, keys }` (as the validator reads it), an expression that holds no state between matches (no `g` or `y`
 * flag: one compiled expression serves every request).
 */
export function pathToRegexpProblem(compile: unknown): ShimOutcome {
  if (typeof compile !== 'function') return 'path-to-regexp exports no pathToRegexp function';
  let probe: { regexp?: unknown; keys?: unknown };
  try {
    probe = (compile as PathToRegexp)('/probe/:id', { strict: true, sensitive: false }) as typeof probe;
  } catch (error) {
    return `pathToRegexp('/probe/:id', options) throws (${messageOf(error)})`;
  }
  if (!(probe?.regexp instanceof RegExp) || !Array.isArray(probe.keys)) return 'pathToRegexp(path, options) does not answer { regexp, keys }';
  if (probe.regexp.global || probe.regexp.sticky) return 'pathToRegexp answers expressions that keep state between matches';
  if (probe.regexp.exec('/probe/x')?.[1] !== 'x' || (probe.keys[0] as { name?: unknown } | undefined)?.name !== 'id') {
    return "pathToRegexp('/probe/:id') does not match /probe/x as { id: 'x' }";
  }
  return undefined;
}

/**
 * express-openapi-validator finds the operation of every request by compiling each route template of the document
 * into a regular expression, on every request (openapi.metadata.js, lookupRoute): profiled at ~16% of a request's
 * time under load. The templates are few and fixed, so the compiled expressions are kept: the validator looks the
 * function up on the module at each call, so replacing it there is enough. Results are unchanged (the expressions
 * carry no `g` flag, so they hold no state between matches); a call with an option the key does not cover is not kept.
 *
 * path-to-regexp is the library's dependency, not ours: when it is not shaped as above (gone, renamed, another
 * signature), the shim steps aside, changes nothing and answers why (test/unit/validator-shims-fallback.test.ts).
 */
export function cacheRouteRegexps(load: LoadValidatorInternal = loadValidatorInternal): ShimOutcome {
  const loaded = loadInternal(load, 'path-to-regexp');
  if ('missing' in loaded) return loaded.missing;
  const { module } = loaded;
  const found = module.pathToRegexp as PathToRegexp | undefined;
  if (found?.memoized) return undefined;
  const unexpected = pathToRegexpProblem(found);
  if (unexpected !== undefined) return unexpected;
  const compile = found!;
  const compiled = new Map<string, unknown>();
  const memoized: PathToRegexp = (path, options) => {
    if (typeof path !== 'string' || !keyed(options)) return compile(path, options);
    const key = keyOf(path, options);
    let result = compiled.get(key);
    if (result === undefined) {
      result = compile(path, options);
      compiled.set(key, result);
    }
    return result;
  };
  memoized.memoized = true;
  // path-to-regexp's own function (tests compare the two)
  memoized.original = compile;
  return replaceExport(module, 'pathToRegexp', memoized);
}
