import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { DomainError } from '../api/errors.js';
import { clip } from './problem.js';

/**
 * Where `npm run build` puts the console: `dist/console`. From the compiled `dist/src/http/` that is `../../console`;
 * from the source `src/http/` (tests, tsx) it is `../../dist/console`, never `../../console`, which is the console's
 * sources (its index.html an unfilled template).
 */
export function defaultConsoleDir(): string {
  const fromSource = import.meta.url.endsWith('.ts');
  return fileURLToPath(new URL(fromSource ? '../../dist/console/' : '../../console/', import.meta.url));
}

// The console only ever talks to its own origin; the policy makes that a browser-enforced rule, and keeps any
// partner-supplied text that slipped into markup from running.
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built: investment-api-fake</title></head>
<body><main><h1>The console is not built</h1>
<p>This fake runs from its sources without the console's bundle. Build it once with <code>npm run build</code>
(or only the console with <code>node scripts/build-console.mjs</code>), then reload this page.</p>
<p>The API, its <a href="/docs">reference</a> and the control plane at <code>/__control</code> work without it.</p>
</main></body></html>`;

/**
 * The sandbox console: `GET /` leads to `/console/`; every path under it (deep links such as
 * `/console/orders/<id>`) answers the single page, which routes in the browser; hashed assets are cached for good.
 */
export function consoleRoutes(dir: string = defaultConsoleDir()): Router {
  const router = Router({ strict: true, caseSensitive: true });
  const indexFile = `${dir.replace(/\/?$/, '/')}index.html`;
  // Read on each request (a few hundred bytes): a rebuild while the fake runs is served at once.
  const page = (): string | undefined => (existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : undefined);

  router.get('/', (_req, res) => res.redirect(302, '/console/'));
  router.get('/console', (_req, res) => res.redirect(301, '/console/'));
  router.use(
    '/console/assets',
    express.static(`${dir}/assets`, {
      index: false,
      immutable: true,
      maxAge: '1y',
      fallthrough: true,
      redirect: false,
    }),
    (req) => {
      throw new DomainError(404, 'not_found', `No console asset at ${clip(req.originalUrl.split('?')[0]!, 200)}.`);
    },
  );
  router.get(/^\/console\/.*/, (_req, res) => {
    const html = page();
    res.set({
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
    });
    // Not built (running from source): a page saying how to build it; the fake itself is fine, so no 5xx.
    if (html === undefined) return void res.status(404).type('html').send(NOT_BUILT_PAGE);
    res.type('html').send(html);
  });
  return router;
}
