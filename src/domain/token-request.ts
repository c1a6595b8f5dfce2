import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError } from '../api/errors.js';
import { API_SCOPES, BASE_SCOPES, CONTROL_SCOPE } from './scopes.js';
import type { Schemas, TokenEndpointAuthMethod } from '../api/types.js';
import type { Tenant, TenantRegistry } from './tenants.js';

export type TokenRequest = Schemas['TokenRequest'];

/** Client credentials from an `Authorization: Basic` header (`client_secret_basic`), already decoded. */
export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

export interface GrantedToken {
  tenant: Tenant;
  audience: string;
  scope: string;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Compares fixed-size digests: the time taken shows neither where the secrets differ nor how long they are. */
const sameSecret = (expected: string, sent: string): boolean => timingSafeEqual(digest(expected), digest(sent));

// An unknown client is compared too, so its answer takes as long as a wrong secret's.
const NO_SECRET = '\u0000no client';

/** What a token request missing its credentials is told: where each kind of client puts them. */
export const WHERE_CREDENTIALS_GO =
  'A client registered for client_secret_post (the default) sends client_id and client_secret in the form body; ' +
  'one registered for client_secret_basic sends them only as HTTP Basic credentials (Authorization: Basic base64(urlencode(client_id):urlencode(client_secret))).';

/**
 * How the client authenticates, by exactly one method (RFC 6749 §2.3): Basic, or the form body. A body `client_id`
 * beside Basic may name the same client (§3.2.1 allows it); naming another is a second, conflicting authentication:
 * `invalid_request`. (A `client_secret` in the form beside Basic is refused before: `withBasicCredentials`.)
 */
function authenticationMethodOf(
  request: Partial<TokenRequest>,
  basic: BasicCredentials | undefined,
): TokenEndpointAuthMethod {
  if (basic) {
    if (request.client_id !== undefined && request.client_id !== basic.clientId) {
      throw new OAuthError(
        400,
        'invalid_request',
        'client_id in the body differs from the client of the Authorization header; authenticate one way.',
      );
    }
    return 'client_secret_basic';
  }
  for (const field of ['client_id', 'client_secret'] as const) {
    if (request[field] === undefined)
      throw new OAuthError(
        400,
        'invalid_request',
        `Invalid token request: ${field} is required. ${WHERE_CREDENTIALS_GO}`,
      );
  }
  return 'client_secret_post';
}

const HOW: Record<TokenEndpointAuthMethod, string> = {
  client_secret_post: 'client_id and client_secret in the form body',
  client_secret_basic: 'HTTP Basic credentials in the Authorization header',
};

/** A client that proved its secret the other way than it is registered for, as production refuses it. */
function authMethodMismatch(
  clientId: string,
  registered: TokenEndpointAuthMethod,
  used: TokenEndpointAuthMethod,
): OAuthError {
  const headers =
    used === 'client_secret_basic' ? { 'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"' } : undefined;
  return new OAuthError(
    401,
    'invalid_client',
    `Client authentication method mismatch: client "${clientId}" is registered for ${registered} (${HOW[registered]}) but this request used ${used} (${HOW[used]}). ` +
      `Configure your OAuth client to use ${registered}.`,
    headers,
  );
}

/**
 * Basic credentials as the form fields the document requires (a `client_secret_basic` client sends none in its
 * form), so that request validation sees the five fields; a form `client_id` differing from Basic is kept, for the
 * grant to refuse. A `client_secret` in the form beside Basic, even the same one, is two authentication methods in
 * one request (RFC 6749 §2.3: a client MUST NOT use more than one): `invalid_request` for every client, whatever its
 * registered method (docs/api.md, "Authentication").
 */
export function withBasicCredentials(form: Record<string, unknown>, basic: BasicCredentials): Record<string, unknown> {
  if (form.client_secret !== undefined) {
    throw new OAuthError(
      400,
      'invalid_request',
      'The request authenticates two ways: HTTP Basic credentials and client_secret in the form body. Use one: ' +
        `client_secret_basic sends only Basic credentials, client_secret_post only the form fields. ${WHERE_CREDENTIALS_GO}`,
    );
  }
  return { ...form, client_id: form.client_id ?? basic.clientId, client_secret: basic.clientSecret };
}

/**
 * The client a token request's credentials prove, if any: Basic's when sent, else the form's `client_id` and
 * `client_secret`. None for an unknown client, a wrong secret, or values that are not strings (a body not yet
 * validated). The pipeline attributes the request with it before validation; the grant authenticates with it.
 */
export function clientProvenBy(
  registry: TenantRegistry,
  form: { client_id?: unknown; client_secret?: unknown },
  basic: BasicCredentials | undefined,
): Tenant | undefined {
  const { clientId, clientSecret } = basic ?? { clientId: form.client_id, clientSecret: form.client_secret };
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') return undefined;
  const tenant = registry.find(clientId);
  return sameSecret(tenant?.client.client_secret ?? NO_SECRET, clientSecret) ? tenant : undefined;
}

/**
 * The rules of the client-credentials grant (docs/api.md, "Authentication"), in the order a real authorization server
 * applies them: grant type, client authentication, audience, then scope.
 */
export function grantClientCredentials(
  registry: TenantRegistry,
  request: TokenRequest,
  acceptedAudiences: readonly string[],
  basic?: BasicCredentials,
): GrantedToken {
  if (request.grant_type !== 'client_credentials') {
    throw new OAuthError(
      400,
      'unsupported_grant_type',
      `grant_type "${request.grant_type}" is not supported; use "client_credentials".`,
    );
  }
  const method = authenticationMethodOf(request, basic);
  const tenant = clientProvenBy(registry, request, basic);
  if (!tenant) {
    // RFC 6749 §5.2: a client that tried Basic is answered with the Basic challenge.
    const headers =
      method === 'client_secret_basic' ? { 'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"' } : undefined;
    throw new OAuthError(
      401,
      'invalid_client',
      'Client authentication failed: unknown client_id or wrong client_secret.',
      headers,
    );
  }
  const registered = tenant.client.token_endpoint_auth_method;
  if (method !== registered) throw authMethodMismatch(tenant.client.client_id, registered, method);
  if (!acceptedAudiences.includes(request.audience)) {
    throw new OAuthError(
      400,
      'invalid_request',
      `audience "${request.audience}" is not this API; use "${acceptedAudiences[0]}".`,
    );
  }
  const requested = request.scope.split(' ').filter(Boolean);
  if (requested.length === 0) {
    throw new OAuthError(
      400,
      'invalid_request',
      'Invalid token request: scope is required and must name at least one scope, such as "openid offline".',
    );
  }
  const allowed = new Set<string>([...BASE_SCOPES, ...tenant.client.scopes]);
  const refused = requested.filter((s) => !allowed.has(s));
  if (refused.length > 0) {
    throw new OAuthError(400, 'invalid_scope', `Scope not granted to this client: ${refused.join(' ')}.`);
  }
  return { tenant, audience: request.audience, scope: grantedScopes(requested, tenant.client.scopes).join(' ') };
}

/**
 * What a token holds, for a request's scopes the client may all have: the API scopes it names, with `openid` and
 * `offline` when named, so that a partner can test least privilege; a request naming none (the interface's
 * `openid offline`) gets `openid offline` and every API scope of the client. `control` only when named. In the
 * order of the interface's list.
 */
function grantedScopes(requested: readonly string[], clientScopes: readonly string[]): string[] {
  const api = API_SCOPES.filter((s) => requested.includes(s));
  if (api.length === 0)
    return [
      ...BASE_SCOPES,
      ...API_SCOPES.filter((s) => clientScopes.includes(s)),
      ...(requested.includes(CONTROL_SCOPE) ? [CONTROL_SCOPE] : []),
    ];
  return [
    ...BASE_SCOPES.filter((s) => requested.includes(s)),
    ...api,
    ...(requested.includes(CONTROL_SCOPE) ? [CONTROL_SCOPE] : []),
  ];
}
