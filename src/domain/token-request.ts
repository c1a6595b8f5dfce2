import { timingSafeEqual } from 'node:crypto';
import { OAuthError } from '../api/errors.js';
import { API_SCOPES, BASE_SCOPES } from './scopes.js';
import type { Schemas } from '../api/types.js';
import type { Tenant, TenantRegistry } from './tenants.js';

export type TokenRequest = Schemas['TokenRequest'];

export interface GrantedToken {
  tenant: Tenant;
  audience: string;
  scope: string;
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The client whose credentials these are, or none (unknown client, wrong secret, or not strings at all). */
export function authenticateClient(registry: TenantRegistry, clientId: unknown, clientSecret: unknown): Tenant | undefined {
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') return undefined;
  const tenant = registry.find(clientId);
  return tenant && sameSecret(tenant.client.client_secret, clientSecret) ? tenant : undefined;
}

/**
 * The rules of the client-credentials grant (CONTRACT §2), in the order a real authorization server applies them:
 * grant type, client authentication, audience, then scope.
 */
export function grantClientCredentials(
  registry: TenantRegistry,
  request: TokenRequest,
  acceptedAudiences: readonly string[],
): GrantedToken {
  if (request.grant_type !== 'client_credentials') {
    throw new OAuthError(400, 'unsupported_grant_type', `grant_type "${request.grant_type}" is not supported; use "client_credentials".`);
  }
  const tenant = authenticateClient(registry, request.client_id, request.client_secret);
  if (!tenant) {
    throw new OAuthError(401, 'invalid_client', 'Client authentication failed: unknown client_id or wrong client_secret.');
  }
  if (!acceptedAudiences.includes(request.audience)) {
    throw new OAuthError(400, 'invalid_request', `audience "${request.audience}" is not this API; use "${acceptedAudiences[0]}".`);
  }
  const allowed = new Set<string>([...BASE_SCOPES, ...tenant.client.scopes]);
  const requested = request.scope.split(' ').filter(Boolean);
  const refused = requested.filter((s) => !allowed.has(s));
  if (refused.length > 0) {
    throw new OAuthError(400, 'invalid_scope', `Scope not granted to this client: ${refused.join(' ')}.`);
  }
  const granted = [...BASE_SCOPES, ...API_SCOPES.filter((s) => tenant.client.scopes.includes(s))];
  return { tenant, audience: request.audience, scope: granted.join(' ') };
}
