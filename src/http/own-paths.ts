/**
 * The fake's own paths, listed once: its pages (the document, the docs, the console and `/`, which leads to it), which
 * the meta routes serve, and with the control plane what is never journaled, logged or faulted (http/observe.ts).
 * As written: case counts.
 */

/** The control plane's prefix. */
export const CONTROL_PREFIX = '/__control';

/** A path the fake's pages may answer: the document, `/docs…`, the console, `/`. */
export const isPagePath = (path: string): boolean =>
  path === '/' ||
  path === '/openapi.json' ||
  path === '/openapi.yaml' ||
  path.startsWith('/docs') ||
  path === '/console' ||
  path.startsWith('/console/');

/** The control plane and the pages: the fake's own, never the API's. */
export const isOwnPath = (path: string): boolean => path.startsWith(CONTROL_PREFIX) || isPagePath(path);
