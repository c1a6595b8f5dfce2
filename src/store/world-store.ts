import type {
  Account,
  AssetRecord,
  CustomOfferingRecord,
  DocumentRecord,
  FeederFund,
  OrderRecord,
  PaymentMethodDetails,
  ShareClassRecord,
  Wallet,
  World,
} from '../api/types.js';
import { sequenceUuid } from './ids.js';

/**
 * Bytes an order may grow by after it is placed, counted when it is: its status, the side-effect fields its steps set
 * and its status history at their longest. So the tenant's clock, which moves orders in place, never takes a world
 * past its room (WORLD_BYTES, MAX_TENANT_BYTES), and no read fails for it.
 */
export const ORDER_GROWTH_BYTES = 512;

/** The status history entries ORDER_GROWTH_BYTES holds room for: an order's walk from PLACED to its end. */
export const ORDER_HISTORY_ALLOWANCE = 5;
/**
 * What each status change past the allowance (a status forced again and again) is counted as: its history entry and
 * the lifecycle steps it may open again, each an entry of its own.
 */
export const HISTORY_ENTRY_BYTES = 384;

/** A record's bytes as JSON in its world, the comma before it included. */
export const recordBytes = (record: object): number => Buffer.byteLength(JSON.stringify(record)) + 1;

/** A whole world's bytes as JSON, each order with room for the rest of its lifecycle. */
export const worldBytes = (world: World): number =>
  Buffer.byteLength(JSON.stringify(world)) + world.orders.length * ORDER_GROWTH_BYTES;

/**
 * What a store's bytes count against besides its own count: the room its tenant has of what every tenant's world
 * may take together (domain/world-budget.ts). Asked before a write, told after it.
 */
export interface ByteAccount {
  /** Throws the owner's refusal when the store may not grow by `bytes`. */
  ensureRoom(bytes: number): void;
  /** The store's bytes changed by `bytes` (either sign). */
  moved(bytes: number): void;
}

/** How a store is made: its caps, where its ids come from, its first version, its bytes when the caller knows them. */
export interface WorldStoreOptions {
  /** Accounts + wallets + payment method details + orders it may grow to (MAX_RECORDS_PER_TENANT). */
  maxRecords?: number;
  /** What its bytes count against (none: no bound but the records'). Told of each change from the first write on. */
  account?: ByteAccount;
  /** Where the ids of what is created are drawn from (the tenant's client id), so they are the same every run. */
  idSeed?: string;
  /** A store that replaces another (a reset, a restore) starts above its version, so no version is seen twice. */
  firstVersion?: number;
  /** `worldBytes(own)`, when the caller has it (a copy of the fixtures): else it is measured. */
  bytes?: number;
}

// Indexes are built by loops, without a [key, item] pair per record: a reset builds them all again.
function indexBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  const index = new Map<string, T>();
  for (const item of items) index.set(key(item), item);
  return index;
}

const byId = <T extends { id: string }>(items: readonly T[]): Map<string, T> => indexBy(items, (item) => item.id);

function groupBy<T>(items: readonly T[], key: (item: T) => string | null | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k != null) appendTo(groups, k, item);
  }
  return groups;
}

function appendTo<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const group = groups.get(key);
  if (group) group.push(item);
  else groups.set(key, [item]);
}

function sortedIndex(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * One tenant's world: the collections in creation order, plus the lookups the operations need.
 * It takes ownership of the world it is given (callers pass a fresh copy), so tenants never share objects.
 */
export class WorldStore {
  readonly feederFunds: FeederFund[];
  readonly shareClasses: ShareClassRecord[];
  readonly assets: AssetRecord[];
  readonly customOfferings: CustomOfferingRecord[];
  readonly documents: DocumentRecord[];
  readonly accounts: Account[];
  readonly wallets: Wallet[];
  readonly paymentMethodDetails: PaymentMethodDetails[];
  readonly orders: OrderRecord[];

  readonly feederFundByAbbreviation: Map<string, FeederFund>;
  readonly shareClassById: Map<string, ShareClassRecord>;
  readonly assetByIsin: Map<string, AssetRecord>;
  readonly customOfferingById: Map<string, CustomOfferingRecord>;
  readonly customOfferingsByAsset: Map<string, CustomOfferingRecord[]>;
  readonly documentById: Map<string, DocumentRecord>;
  readonly documentsByOwner: Map<string, DocumentRecord[]>;
  readonly accountById: Map<string, Account>;
  /** Each account's place in `accounts`, and the places of the accounts of each external_id, in creation order. */
  private readonly accountPlace: Map<string, number>;
  private readonly accountPlacesByExternalId: Map<string, number[]>;
  readonly walletById: Map<string, Wallet>;
  readonly walletsByAccount: Map<string, Wallet[]>;
  /** Lower-cased address → wallet: addresses are unique in a tenant, whatever their case. */
  readonly walletByAddress: Map<string, Wallet>;
  readonly paymentMethodById: Map<string, PaymentMethodDetails>;
  readonly paymentMethodsByAccount: Map<string, PaymentMethodDetails[]>;
  readonly orderById: Map<string, OrderRecord>;
  /** By the order fields that never change and are selective: the candidates of a filtered list. */
  readonly ordersByAccount: Map<string, OrderRecord[]>;
  readonly ordersByIsin: Map<string, OrderRecord[]>;

  /** Accounts + wallets + payment method details + orders it may grow to (see domain/limits.ts). */
  readonly maxRecords: number;
  /** What its bytes count against (see domain/limits.ts). */
  private readonly account: ByteAccount | undefined;
  /**
   * Its records' bytes as JSON, kept as they are written: each record measured alone when added or replaced, never
   * the world. Changes made in place are not measured again: an order's steps are counted ahead (ORDER_GROWTH_BYTES),
   * a primary flag moved from one record to another changes nothing.
   */
  private heldBytes: number;

  private readonly idSeed: string;
  private idSequence = 0;

  /**
   * Bumped by every write (`changed()`): whoever saved the world at one version knows it changed at any other. A store
   * that replaces another (a reset, a restore) starts above it (`firstVersion`): no version is seen twice.
   */
  private changes: number;

  constructor(
    own: World,
    { maxRecords = Number.POSITIVE_INFINITY, account, idSeed = '', firstVersion = 0, bytes }: WorldStoreOptions = {},
  ) {
    this.maxRecords = maxRecords;
    this.account = account;
    this.idSeed = idSeed;
    this.changes = firstVersion;
    this.heldBytes = bytes ?? worldBytes(own);
    this.feederFunds = own.feeder_funds;
    this.shareClasses = own.share_classes;
    this.assets = own.assets;
    this.customOfferings = own.custom_offerings;
    this.documents = own.documents;
    this.accounts = own.accounts;
    this.wallets = own.wallets;
    this.paymentMethodDetails = own.payment_method_details;
    this.orders = own.orders;

    this.feederFundByAbbreviation = indexBy(this.feederFunds, (f) => f.abbreviation);
    this.shareClassById = byId(this.shareClasses);
    this.assetByIsin = indexBy(this.assets, (a) => a.isin);
    this.customOfferingById = byId(this.customOfferings);
    this.customOfferingsByAsset = groupBy(this.customOfferings, (o) => o.asset_id);
    this.documentById = byId(this.documents);
    this.documentsByOwner = groupBy(this.documents, (d) => d.feeder_fund_id ?? d.custom_offering_id);
    this.accountById = byId(this.accounts);
    this.accountPlace = new Map();
    this.accountPlacesByExternalId = new Map();
    for (let place = 0; place < this.accounts.length; place++) {
      const a = this.accounts[place]!;
      this.accountPlace.set(a.id, place);
      if (a.external_id != null) appendTo(this.accountPlacesByExternalId, a.external_id, place);
    }
    this.walletById = byId(this.wallets);
    this.walletsByAccount = groupBy(this.wallets, (w) => w.account_id);
    this.walletByAddress = indexBy(this.wallets, (w) => w.wallet_address.toLowerCase());
    this.paymentMethodById = byId(this.paymentMethodDetails);
    this.paymentMethodsByAccount = groupBy(this.paymentMethodDetails, (p) => p.account_id);
    this.orderById = byId(this.orders);
    this.ordersByAccount = groupBy(this.orders, (o) => o.account_id);
    this.ordersByIsin = groupBy(this.orders, (o) => o.isin);
  }

  /** An id for a new account, wallet, payment method or order: the next of the tenant's sequence not yet taken. */
  newId(): string {
    for (;;) {
      const id = sequenceUuid(this.idSeed, this.idSequence++);
      if (
        !this.accountById.has(id) &&
        !this.walletById.has(id) &&
        !this.paymentMethodById.has(id) &&
        !this.orderById.has(id)
      )
        return id;
    }
  }

  /** Whether a path names one of this world's records (an id, an ISIN, a fund's abbreviation): shadow mode asks. */
  holds(key: string): boolean {
    return [
      this.accountById,
      this.walletById,
      this.paymentMethodById,
      this.orderById,
      this.customOfferingById,
      this.documentById,
      this.shareClassById,
      this.assetByIsin,
      this.feederFundByAbbreviation,
    ].some((index: Map<string, unknown>) => index.has(key));
  }

  /** What a tenant's client can create: the records MAX_RECORDS_PER_TENANT counts. */
  get recordCount(): number {
    return this.accounts.length + this.wallets.length + this.paymentMethodDetails.length + this.orders.length;
  }

  /** Its records' bytes as JSON (WORLD_BYTES and MAX_TENANT_BYTES count them). */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Throws when its account has no room for `bytes` more (domain/limits.ts `ensureRoomFor` asks). */
  ensureRoomForBytes(bytes: number): void {
    this.account?.ensureRoom(bytes);
  }

  /** Every change of its bytes, counted here and told to its account. */
  private count(bytes: number): void {
    this.heldBytes += bytes;
    this.account?.moved(bytes);
  }

  get version(): number {
    return this.changes;
  }

  /** Every write says so; a domain function that changes a record in place calls it too. */
  changed(): void {
    this.changes++;
  }

  /** A change made in place that its writer measured (a status history past its allowance). */
  grew(bytes: number): void {
    this.count(bytes);
  }

  // Writers: the domain validates everything first, then writes; items are appended, so lists stay in creation order.

  addAccount(account: Account): void {
    this.changed();
    this.count(recordBytes(account));
    const place = this.accounts.push(account) - 1;
    this.accountById.set(account.id, account);
    this.accountPlace.set(account.id, place);
    if (account.external_id != null) appendTo(this.accountPlacesByExternalId, account.external_id, place);
  }

  /** An account's new record, of the same id, takes the old one's place (the lists keep their creation order). */
  replaceAccount(updated: Account): void {
    const place = this.accountPlace.get(updated.id);
    if (place === undefined) throw new Error(`replaceAccount: no account ${updated.id}`);
    const previous = this.accounts[place]!;
    this.changed();
    this.count(recordBytes(updated) - recordBytes(previous));
    this.accounts[place] = updated;
    this.accountById.set(updated.id, updated);
    if (previous.external_id === updated.external_id) return;
    if (previous.external_id != null) {
      const places = this.accountPlacesByExternalId.get(previous.external_id)!;
      places.splice(places.indexOf(place), 1);
      if (places.length === 0) this.accountPlacesByExternalId.delete(previous.external_id);
    }
    if (updated.external_id != null) {
      const places = this.accountPlacesByExternalId.get(updated.external_id);
      if (!places) this.accountPlacesByExternalId.set(updated.external_id, [place]);
      else places.splice(sortedIndex(places, place), 0, place);
    }
  }

  /** The accounts of one external_id, in creation order. */
  accountsWithExternalId(externalId: string): Account[] {
    return (this.accountPlacesByExternalId.get(externalId) ?? []).map((place) => this.accounts[place]!);
  }

  addWallet(wallet: Wallet): void {
    this.changed();
    this.count(recordBytes(wallet));
    this.wallets.push(wallet);
    this.walletById.set(wallet.id, wallet);
    appendTo(this.walletsByAccount, wallet.account_id, wallet);
    this.walletByAddress.set(wallet.wallet_address.toLowerCase(), wallet);
  }

  addPaymentMethod(details: PaymentMethodDetails): void {
    this.changed();
    this.count(recordBytes(details));
    this.paymentMethodDetails.push(details);
    this.paymentMethodById.set(details.id, details);
    appendTo(this.paymentMethodsByAccount, details.account_id, details);
  }

  addOrder(order: OrderRecord): void {
    this.changed();
    this.count(recordBytes(order) + ORDER_GROWTH_BYTES);
    this.orders.push(order);
    this.orderById.set(order.id, order);
    appendTo(this.ordersByAccount, order.account_id, order);
    appendTo(this.ordersByIsin, order.isin, order);
  }

  /** The world as JSON-ready data, in the shape of a fixtures file; a copy the caller may keep. */
  snapshot(): World {
    return structuredClone(this.snapshotView());
  }

  /** The same shape over the live collections, not a copy: to serialize at once, never to keep. */
  snapshotView(): World {
    return {
      feeder_funds: this.feederFunds,
      share_classes: this.shareClasses,
      assets: this.assets,
      custom_offerings: this.customOfferings,
      documents: this.documents,
      accounts: this.accounts,
      wallets: this.wallets,
      payment_method_details: this.paymentMethodDetails,
      orders: this.orders,
    };
  }
}
