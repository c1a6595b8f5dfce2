import type { ApiScope } from '../api/types.js';

/**
 * The real service's scopes: the document's `ApiScope` but the fake's own. Every client has them unless registered with
 * fewer. A scope the document adds or drops is a compile error here, so this is the one list of them (the twin's
 * scopes, the readiness report's, the discovery document's and a new client's all read it).
 */
const API_SCOPE_SET = {
  'read:accounts': true,
  'write:accounts': true,
  'read:orders': true,
  'write:orders': true,
  'read:assets': true,
  'read:documents': true,
} satisfies Record<Exclude<ApiScope, 'control'>, true>;

export const API_SCOPES = Object.keys(API_SCOPE_SET) as readonly Exclude<ApiScope, 'control'>[];

/**
 * The fake's own scope: the client's tokens reach the control plane for its own tenant. Granted per client by the
 * operator, never by default, and put in a token only when its request asks for it.
 */
export const CONTROL_SCOPE = 'control' satisfies ApiScope;

/** Granted to every client on top of its API scopes. */
export const BASE_SCOPES = ['openid', 'offline'] as const;
