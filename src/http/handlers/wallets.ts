import { listWallets, registerWallet, updateWallet } from '../../domain/wallets.js';
import { created, ok, type OperationHandlers } from '../operation.js';

/** The document's `wallets` tag: an account's wallets. */
export const walletHandlers = {
  listWallets: ({ tenant, path, query }) => ok({ data: listWallets(tenant.store, path.account_id, query) }),
  registerWallet: ({ tenant, path, body }) => created(registerWallet(tenant, path.account_id, body)),
  updateWallet: ({ tenant, path, body }) => ok(updateWallet(tenant.store, path.account_id, path.wallet_id, body)),
} satisfies Partial<OperationHandlers>;
