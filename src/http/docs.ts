import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import type { FakeContext } from '../context.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'tenants'>;

/** The Swagger UI files `/docs` serves; scripts/copy-assets.mjs copies them (and their licences) into the build. */
export const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;
/** Where the build puts them, beside the compiled module. */
export const SWAGGER_UI_BUILD_DIR = 'swagger-ui';

/**
 * The built package carries its own copy of the files, so a partner's install needs no swagger-ui-dist (whose
 * dependency @scarf/scarf runs a telemetry install script): it is a development dependency. Run from the sources
 * (the fast tests), there is no copy and the files come from that development dependency.
 */
function swaggerUiDir(): string {
  const built = fileURLToPath(new URL(`./${SWAGGER_UI_BUILD_DIR}/`, import.meta.url));
  if (existsSync(built)) return built;
  // Resolve the folder without loading the package: its main module evaluates the whole 1 MB UI bundle.
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

const [CSS, BUNDLE] = SWAGGER_UI_FILES;
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>investment-api-fake: API reference</title>
<link rel="stylesheet" href="/docs/assets/${CSS}"></head>
<body><main id="ui"></main><script src="/docs/assets/${BUNDLE}"></script>
<script src="/docs/init.js"></script></body></html>`;

/**
 * Swagger UI's client-credentials dialog sends the client by HTTP Basic and neither `audience` nor the base scopes;
 * the token endpoint takes the client the way it is registered (the default client's method, given as the second
 * argument: the form body for `client_secret_post`) with `audience` = this host and `scope` containing `openid
 * offline`. The interceptor rewrites the token request into that shape.
 */
const tokenRequestInterceptor = (method: string): string => `function (req) {
  if (new URL(req.url, location.href).pathname !== '/oauth2/token') return req;
  var body = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
  var headers = req.headers || {};
  var basic = /^Basic\\s+(.+)$/i.exec(headers.Authorization || headers.authorization || '');
  if (basic && ${JSON.stringify(method)} !== 'client_secret_basic') {
    var pair = atob(basic[1]);
    var colon = pair.indexOf(':');
    if (!body.get('client_id')) body.set('client_id', pair.slice(0, colon));
    if (!body.get('client_secret')) body.set('client_secret', pair.slice(colon + 1));
    delete headers.Authorization;
    delete headers.authorization;
  }
  if (!body.get('grant_type')) body.set('grant_type', 'client_credentials');
  if (!body.get('audience')) body.set('audience', location.host);
  var scopes = (body.get('scope') || '').split(' ').filter(Boolean);
  ['openid', 'offline'].forEach(function (s) { if (scopes.indexOf(s) === -1) scopes.unshift(s); });
  body.set('scope', scopes.join(' '));
  headers['Content-Type'] = 'application/x-www-form-urlencoded';
  req.headers = headers;
  req.body = body.toString();
  return req;
}`;

function docsInit(ctx: InstanceParts): string {
  const defaultClient = ctx.tenants.find(ctx.tenants.defaultClientId)?.client;
  const oauth = { clientId: defaultClient?.client_id ?? '', scopes: defaultClient?.scopes ?? [] };
  return `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true,
  requestInterceptor: ${tokenRequestInterceptor(defaultClient?.token_endpoint_auth_method ?? 'client_secret_post')} });
window.ui.initOAuth(${JSON.stringify(oauth).replace(/</g, '\\u003c')});`;
}

/** The API reference at `/docs`: Swagger UI served from this package's files (no CDN), reading `/openapi.json`. */
export function docsRoutes(ctx: InstanceParts): Router {
  const router = Router({ strict: true, caseSensitive: true });
  router.get('/docs', (_req, res) => void res.type('html').send(DOCS_PAGE));
  // made per request: the default client's id, scopes and method as they are now
  router.get('/docs/init.js', (_req, res) => void res.type('application/javascript').send(docsInit(ctx)));
  router.use('/docs/assets', express.static(swaggerUiDir(), { index: false }));
  return router;
}
