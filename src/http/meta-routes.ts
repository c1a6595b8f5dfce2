import { Router, type RequestHandler } from 'express';
import { servedDocument } from '../api/document.js';
import type { FakeContext } from '../context.js';
import { consoleRoutes } from './console.js';
import { docsRoutes } from './docs.js';
import { isPagePath } from './own-paths.js';
import { baseUrlOf } from './request-context.js';

/**
 * The spec, the docs and the console, entered only by paths that may be theirs. The docs router is made with the app
 * (its init script names the default client as it is at each request); the rest of the router on its first request.
 */
export function metaRoutes(
  ctx: Pick<FakeContext, 'api' | 'linkSigner' | 'options' | 'tenants' | 'tokens'>,
): RequestHandler {
  const docs = docsRoutes(ctx);
  const served = servedDocument(ctx.api);
  let router: Router | undefined;
  return (req, res, next) => {
    if (!isPagePath(req.path)) return next();
    // The document: its own spelling, no trailing slash, GET and HEAD only (in a router of their own, an OPTIONS
    // request would get that router's automatic answer instead of going on to a 404).
    if (req.method === 'GET' || req.method === 'HEAD') {
      // `servers` names this fake (its base URL, as the token's issuer has it), so a generated client calls it
      if (req.path === '/openapi.json') return void res.type('application/json').send(served(baseUrlOf(req, ctx)).json);
      if (req.path === '/openapi.yaml') return void res.type('application/yaml').send(served(baseUrlOf(req, ctx)).yaml);
    }
    if (!router) {
      router = Router({ strict: true, caseSensitive: true });
      router.use(docs);
      router.use(consoleRoutes());
    }
    router(req, res, next);
  };
}
