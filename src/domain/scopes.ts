import type { ApiScope } from '../api/types.js';

export const API_SCOPES: readonly ApiScope[] = [
  'read:accounts',
  'write:accounts',
  'read:orders',
  'write:orders',
  'read:assets',
  'read:documents',
];

/** Granted to every client on top of its API scopes. */
export const BASE_SCOPES = ['openid', 'offline'] as const;
