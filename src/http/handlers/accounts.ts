import { createAccount, getAccount, listAccounts, updateAccount } from '../../domain/accounts.js';
import { getPaymentMethodDetails, updatePaymentMethodDetails } from '../../domain/payment-methods.js';
import { listWallets, registerWallet, updateWallet } from '../../domain/wallets.js';
import { created, ok, type OperationHandlers } from '../operation.js';

/** Accounts, their wallets and payment method details: the call's typed input to the domain, its result back. */
export const accountHandlers = {
  listAccounts: ({ tenant, query }) => ok({ data: listAccounts(tenant.store, query) }),
  createAccount: ({ tenant, body }) => created(createAccount(tenant, body)),
  getAccount: ({ tenant, path }) => ok(getAccount(tenant.store, path.account_id)),
  updateAccount: ({ tenant, path, body }) => ok(updateAccount(tenant, path.account_id, body)),
  listWallets: ({ tenant, path, query }) => ok({ data: listWallets(tenant.store, path.account_id, query) }),
  registerWallet: ({ tenant, path, body }) => created(registerWallet(tenant, path.account_id, body)),
  updateWallet: ({ tenant, path, body }) => ok(updateWallet(tenant.store, path.account_id, path.wallet_id, body)),
  getPaymentMethodDetails: ({ tenant, path }) =>
    ok(getPaymentMethodDetails(tenant.store, path.account_id, path.payment_method_details_id)),
  updatePaymentMethodDetails: ({ tenant, path, body }) =>
    ok(updatePaymentMethodDetails(tenant.store, path.account_id, path.payment_method_details_id, body)),
} satisfies Partial<OperationHandlers>;
