import { ensureRoomFor } from './limits.js';
import type { Tenant } from './tenants.js';
import { recordBytes, type WorldStore } from '../store/world-store.js';
import { UNDRAWN_ID } from '../store/ids.js';
import { findAccount } from './account-lookup.js';
import { DomainError, notFound } from '../api/errors.js';
import { FieldErrors } from './field-errors.js';
import { validateWalletAddress } from './identifiers/wallet-address.js';
import { paginate } from './paginate.js';
import { applyPrimaryFlag } from './primary-flag.js';
import type { QueryOf, Schemas, Wallet } from '../api/types.js';

export type WalletRegister = Schemas['WalletRegister'];
export type PrimaryFlagUpdate = Schemas['PrimaryFlagUpdate'];

/** The format and checksum rules of one wallet in a request body; `at` is its JSON pointer (`''` or `/wallets/2`). */
export function checkWalletAddress(input: WalletRegister, at: string, errors: FieldErrors): void {
  const verdict = validateWalletAddress(input.wallet_address);
  if (!verdict.ok) errors.add('invalid_wallet_address', `${at}/wallet_address`, verdict.reason);
}

/** 409 when an address is registered in the tenant already, or twice in the same request (whatever its case). */
export function checkWalletsAreNew(store: WorldStore, inputs: readonly WalletRegister[]): void {
  const seen = new Set<string>();
  for (const { wallet_address } of inputs) {
    const key = wallet_address.toLowerCase();
    if (store.walletByAddress.has(key) || seen.has(key)) {
      throw new DomainError(
        409,
        'wallet_already_registered',
        `Wallet address ${wallet_address} is already registered.`,
      );
    }
    seen.add(key);
  }
}

/** `id`: drawn from the tenant's sequence, unless given (UNDRAWN_ID to measure the wallet before drawing it). */
export function newWallet(tenant: Tenant, accountId: string, input: WalletRegister, id = tenant.store.newId()): Wallet {
  return {
    id,
    account_id: accountId,
    chain: input.chain ?? 'polygon',
    wallet_address: input.wallet_address,
    is_primary: false,
    created: tenant.clock.now().toISOString(),
  };
}

/** Appends the wallet, then applies its primary flag among the account's wallets. */
export function storeWallet(store: WorldStore, wallet: Wallet, isPrimary: boolean | undefined): void {
  store.addWallet(wallet);
  applyPrimaryFlag(store.walletsByAccount.get(wallet.account_id) ?? [], wallet, isPrimary);
}

export function listWallets(store: WorldStore, accountId: string, query: QueryOf<'listWallets'>): Wallet[] {
  findAccount(store, accountId);
  const address = query.wallet_address?.toLowerCase();
  return paginate(
    store.walletsByAccount.get(accountId) ?? [],
    query,
    (w) =>
      (address === undefined || w.wallet_address.toLowerCase() === address) &&
      (query.is_primary === undefined || w.is_primary === query.is_primary),
  );
}

export function registerWallet(tenant: Tenant, accountId: string, input: WalletRegister): Wallet {
  const { store } = tenant;
  findAccount(store, accountId);
  const errors = new FieldErrors();
  checkWalletAddress(input, '', errors);
  errors.throwIfAny();
  checkWalletsAreNew(store, [input]);
  ensureRoomFor(store, 1, recordBytes(newWallet(tenant, UNDRAWN_ID, input, UNDRAWN_ID)));
  const wallet = newWallet(tenant, accountId, input);
  storeWallet(store, wallet, input.is_primary);
  return wallet;
}

/** A wallet of another account answers 404, exactly like an unknown id. */
function findWallet(store: WorldStore, accountId: string, walletId: string): Wallet {
  findAccount(store, accountId);
  const wallet = store.walletById.get(walletId);
  if (!wallet || wallet.account_id !== accountId) throw notFound(`Wallet "${walletId}" of account "${accountId}"`);
  return wallet;
}

export function updateWallet(
  store: WorldStore,
  accountId: string,
  walletId: string,
  changes: PrimaryFlagUpdate,
): Wallet {
  const wallet = findWallet(store, accountId, walletId);
  applyPrimaryFlag(store.walletsByAccount.get(accountId) ?? [], wallet, changes.is_primary);
  store.changed();
  return wallet;
}
