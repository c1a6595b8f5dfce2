import type { WorldStore } from '../store/world-store.js';
import { notFound } from '../api/errors.js';
import type { Account } from '../api/types.js';

/** The tenant's account, or 404 — another tenant's account is not in this store, so it answers the same. */
export function findAccount(store: WorldStore, accountId: string): Account {
  const account = store.accountById.get(accountId);
  if (!account) throw notFound(`Account "${accountId}"`);
  return account;
}
