import { createAccount, getAccount, listAccounts, updateAccount } from '../../domain/accounts.js';
import { created, ok, type OperationHandlers } from '../operation.js';

/** The document's `accounts` tag: the call's typed input to the domain, its result back. */
export const accountHandlers = {
  listAccounts: ({ tenant, query }) => ok({ data: listAccounts(tenant.store, query) }),
  createAccount: ({ tenant, body }) => created(createAccount(tenant, body)),
  getAccount: ({ tenant, path }) => ok(getAccount(tenant.store, path.account_id)),
  updateAccount: ({ tenant, path, body }) => ok(updateAccount(tenant, path.account_id, body)),
} satisfies Partial<OperationHandlers>;
