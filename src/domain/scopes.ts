import type { ApiScope } from '../api/types.js';

/** The real service's scopes: every client has them unless registered with fewer. */
export const API_SCOPES: readonly ApiScope[] = [
  'read:accounts',
  'write:accounts',
  'read:orders',
  'write:orders',
  'read:assets',
  'read:documents',
];

/**
 * The fake's own scope: the client's tokens reach the control plane for its own tenant. Granted per client by the
 * operator, never by default, and put in a token only when its request asks for it.
 */
export const CONTROL_SCOPE = 'control' satisfies ApiScope;

/** Granted to every client on top of its API scopes. */
export const BASE_SCOPES = ['openid', 'offline'] as const;
