import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { DomainError } from '../api/errors.js';

export interface ControlGuardOptions {
  /** When set, every call but health needs `Authorization: Bearer <controlToken>`. */
  controlToken?: string | undefined;
  /** BASE_URL: a page served there is the fake's own origin even when a proxy rewrites the Host. */
  baseUrl?: string | undefined;
}

const HEALTH = '/health';

// Browsers mark where a request comes from; `none` is a typed address or a bookmark.
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * A web page may send requests to the fake (CSRF), and with DNS rebinding even read the answers: only requests
 * from no page (curl, SDKs: no `Origin`) or from the fake's own origin (its console) reach the control plane.
 */
function checkSameOrigin(req: Request, baseUrl: string | undefined): void {
  const site = req.get('sec-fetch-site');
  const origin = req.get('origin');
  const own = [originOf(`${req.protocol}://${req.headers.host ?? 'localhost'}`), baseUrl && originOf(baseUrl)];
  const foreignOrigin = origin !== undefined && (originOf(origin) === undefined || !own.includes(originOf(origin)));
  if (foreignOrigin || (site !== undefined && !OWN_FETCH_SITES.has(site.toLowerCase()))) {
    throw new DomainError(
      403,
      'cross_origin_refused',
      `The control plane answers no other web origin (Origin "${(origin ?? 'none').slice(0, 200)}", Sec-Fetch-Site "${(site ?? 'none').slice(0, 40)}"): call it from a script, a test or this server's own pages.`,
    );
  }
}

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** A form or text body is what an HTML form can send from any page without a preflight: only JSON is taken. */
function checkJsonBody(req: Request): void {
  if (hasBody(req) && req.is('application/json') !== 'application/json') {
    throw new DomainError(
      415,
      'unsupported_media_type',
      `Content-Type "${(req.get('content-type') ?? 'none').slice(0, 100)}" is not accepted by the control plane; send application/json.`,
    );
  }
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Compares digests, so neither the token's content nor its length shows in the time taken. */
function checkControlToken(req: Request, expected: Buffer): void {
  const match = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '');
  if (match && timingSafeEqual(digest(match[1]!), expected)) return;
  throw new DomainError(401, 'invalid_control_token', 'This server guards its control plane: send "Authorization: Bearer <CONTROL_TOKEN>".', undefined, {
    'WWW-Authenticate': 'Bearer realm="control"',
  });
}

/**
 * Every /__control call but health: from no foreign web origin (403 `cross_origin_refused`), a body only as
 * JSON (415), and with CONTROL_TOKEN set its bearer token (401). Errors go to the one error middleware.
 */
export function controlGuard({ controlToken, baseUrl }: ControlGuardOptions): RequestHandler {
  const expected = controlToken === undefined ? undefined : digest(controlToken);
  return (req, _res, next) => {
    if (req.path === HEALTH) return next();
    checkSameOrigin(req, baseUrl);
    checkJsonBody(req);
    if (expected) checkControlToken(req, expected);
    next();
  };
}
