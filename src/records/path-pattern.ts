/** A trailing slash makes no difference to a pattern: `/v1/orders/*` matches the cancel path `/v1/orders/{id}/`. */
const segments = (path: string): string[] => (path.length > 1 ? path.replace(/\/$/, '') : path).split('/');

/**
 * Path patterns of the control plane: segment by segment, where `*` or `{name}` matches any one segment
 * (`/v1/orders/*`, `/v1/orders/{order_id}/`). Compiled once per pattern.
 */
export function compilePathPattern(pattern: string): (path: string) => boolean {
  const expected = segments(pattern);
  const wildcard = expected.map((s) => s === '*' || /^\{[^/]+\}$/.test(s));
  return (path) => {
    const actual = segments(path);
    return actual.length === expected.length && actual.every((segment, i) => wildcard[i] || segment === expected[i]);
  };
}
