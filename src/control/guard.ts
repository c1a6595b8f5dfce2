import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { DomainError } from '../api/errors.js';
import type { FakeContext } from '../context.js';
import { CONTROL_SCOPE } from '../domain/scopes.js';
import type { Tenant } from '../domain/tenants.js';
import { bearerTokenOf, type AccessTokenClaims } from '../auth/jwt.js';
import { baseUrlOf, verifyOnTenantClock } from '../http/request-context.js';
import { stateOf } from '../http/request-state.js';
import { confinePartner } from './tenant.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'keys' | 'linkSigner' | 'options' | 'tenants' | 'tokens'>;

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

/** Every tenant a request names: its `X-Client-Id` (repeated ones joined by Node) and each `client_id` of its query. */
function tenantsNamedIn(req: Request): string[] {
  const header = req.get('x-client-id');
  const query = req.originalUrl.indexOf('?');
  const queried = query === -1 ? [] : new URLSearchParams(req.originalUrl.slice(query + 1)).getAll('client_id');
  return header === undefined ? queried : [header, ...queried];
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Bearer credentials with a dot are a token, whatever they hold (cut, padded), never a mistyped CONTROL_TOKEN. */
const looksLikeToken = (authorization: string): boolean =>
  /^bearer\s/i.test(authorization) && authorization.includes('.');

const controlTokenRequired = (): DomainError =>
  new DomainError(
    401,
    'invalid_control_token',
    'This server guards its control plane: send "Authorization: Bearer <CONTROL_TOKEN>", or an access token of your own client that carries the scope "control".',
    undefined,
    { 'WWW-Authenticate': 'Bearer realm="control"' },
  );

/**
 * A partner's authority is checked at each call, not at issue: its client must hold the scope `control` now (the
 * operator may have removed it since), and the token must be within its lifetime in real time as well as on the
 * tenant's clock, which the partner moves itself (moved back, it would keep the token valid for ever).
 */
function partnerAuthority(tenant: Tenant, claims: AccessTokenClaims): Tenant {
  if (!tenant.client.scopes.includes(CONTROL_SCOPE)) {
    throw new DomainError(
      403,
      'insufficient_scope',
      `The client "${tenant.client.client_id}" no longer holds the scope "${CONTROL_SCOPE}": the operator removed it, so its tokens no longer reach the control plane.`,
      undefined,
      {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${CONTROL_SCOPE}"`,
      },
    );
  }
  if (claims.control_until === undefined || Date.now() / 1000 >= claims.control_until) {
    throw new DomainError(
      401,
      'token_expired',
      "The access token has expired for the control plane (its lifetime counts in real time there, whatever the tenant's clock shows): request a new one.",
      undefined,
      {
        'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The access token has expired."',
      },
    );
  }
  return tenant;
}

/**
 * Who makes a control call: the operator (its CONTROL_TOKEN, or anyone when there is none), or a partner, proven by
 * an access token of its own client with the scope `control`, confined to that client's tenant. Any other
 * `Authorization` value is refused as the API refuses it (401 `invalid_token`: no value that is not a valid token of
 * this instance is let through), but for two: on a guarded plane, credentials that are no token at all
 * are a wrong CONTROL_TOKEN (401 `invalid_control_token`); in shadow mode with an open plane, tokens of another issuer
 * are the upstream's, which a partner's suite sends along, and are ignored. On an open plane a valid token of ours
 * without the scope is ignored too (a suite sending its API token along keeps working).
 */
async function controlCaller(
  ctx: InstanceParts,
  expected: Buffer | undefined,
  req: Request,
): Promise<Tenant | 'operator'> {
  const authorization = req.get('authorization') ?? '';
  const bearer = bearerTokenOf(authorization);
  // Compares digests, so neither the token's content nor its length shows in the time taken.
  if (bearer !== undefined && expected && timingSafeEqual(digest(bearer), expected)) return 'operator';
  // shadow mode's open plane: the upstream's tokens (another issuer) are the partner's own, sent along
  const strict = expected !== undefined || ctx.options.upstream === undefined;
  if (looksLikeToken(authorization) || (expected === undefined && strict && authorization !== '')) {
    await ctx.keys.ready();
    // a token that does not even match the Bearer syntax is verified as the empty token: refused, never thrown
    const verdict = verifyOnTenantClock(ctx, bearer ?? '', baseUrlOf(req, ctx));
    const tenant = verdict.signedFor === undefined ? undefined : ctx.tenants.find(verdict.signedFor);
    // a token of ours that fails, or names our key, is refused with its reason; so is any other but shadow mode's
    if (verdict.error && (tenant || strict || verdict.namesThisServer)) throw verdict.error;
    if (tenant && verdict.claims) {
      if (verdict.claims.scope.split(' ').includes(CONTROL_SCOPE)) return partnerAuthority(tenant, verdict.claims);
      if (expected) {
        throw new DomainError(
          403,
          'insufficient_scope',
          `The control plane takes a client's own token only with the scope "${CONTROL_SCOPE}", which this token does not carry: ask the operator to grant it, then request "scope=openid offline ${CONTROL_SCOPE}".`,
          undefined,
          {
            'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${CONTROL_SCOPE}"`,
          },
        );
      }
    }
  }
  if (expected) throw controlTokenRequired();
  return 'operator';
}

/**
 * Every /__control call but health: from no foreign web origin (403 `cross_origin_refused`), a body only as JSON (415),
 * and with CONTROL_TOKEN set its bearer token or a partner's own token with the scope `control` (401). A partner's call
 * is confined to its tenant (`controlPartner`, enforced by control/tenant.ts): naming another in `X-Client-Id` or
 * `?client_id=` answers 403 `forbidden_tenant` here, whatever the operation. Errors go to the one error middleware.
 */
export function controlGuard(ctx: InstanceParts): RequestHandler {
  const { controlToken, baseUrl } = ctx.options;
  const expected = controlToken === undefined ? undefined : digest(controlToken);
  return async (req, _res, next) => {
    if (req.path === HEALTH) return next();
    checkSameOrigin(req, baseUrl);
    checkJsonBody(req);
    const caller = await controlCaller(ctx, expected, req);
    if (caller !== 'operator') {
      confinePartner(caller, tenantsNamedIn(req));
      stateOf(req).controlPartner = caller;
    }
    next();
  };
}
