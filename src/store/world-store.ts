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

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

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

  private idSequence = 0;

  /**
   * Bumped by every write (`changed()`): whoever saved the world at one version knows it changed at any other. A store
   * that replaces another (a reset, a restore) starts above the one it replaces (`firstVersion`), so no version is seen twice.
   */
  private changes: number;

  /** `idSeed`: where the ids of what is created are drawn from (the tenant's client id), so they are the same every run. */
  constructor(
    own: World,
    maxRecords = Number.POSITIVE_INFINITY,
    private readonly idSeed = '',
    firstVersion = 0,
  ) {
    this.maxRecords = maxRecords;
    this.changes = firstVersion;
    this.feederFunds = own.feeder_funds;
    this.shareClasses = own.share_classes;
    this.assets = own.assets;
    this.customOfferings = own.custom_offerings;
    this.documents = own.documents;
    this.accounts = own.accounts;
    this.wallets = own.wallets;
    this.paymentMethodDetails = own.payment_method_details;
    this.orders = own.orders;

    this.feederFundByAbbreviation = new Map(this.feederFunds.map((f) => [f.abbreviation, f]));
    this.shareClassById = byId(this.shareClasses);
    this.assetByIsin = new Map(this.assets.map((a) => [a.isin, a]));
    this.customOfferingById = byId(this.customOfferings);
    this.customOfferingsByAsset = groupBy(this.customOfferings, (o) => o.asset_id);
    this.documentById = byId(this.documents);
    this.documentsByOwner = groupBy(this.documents, (d) => d.feeder_fund_id ?? d.custom_offering_id);
    this.accountById = byId(this.accounts);
    this.walletById = byId(this.wallets);
    this.walletsByAccount = groupBy(this.wallets, (w) => w.account_id);
    this.walletByAddress = new Map(this.wallets.map((w) => [w.wallet_address.toLowerCase(), w]));
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
      if (!this.accountById.has(id) && !this.walletById.has(id) && !this.paymentMethodById.has(id) && !this.orderById.has(id)) return id;
    }
  }

  /** What a tenant's client can create: the records MAX_RECORDS_PER_TENANT counts. */
  get recordCount(): number {
    return this.accounts.length + this.wallets.length + this.paymentMethodDetails.length + this.orders.length;
  }

  get version(): number {
    return this.changes;
  }

  /** Every write says so; a domain function that changes a record in place calls it too. */
  changed(): void {
    this.changes++;
  }

  // Writers: the domain validates everything first, then writes; items are appended, so lists stay in creation order.

  addAccount(account: Account): void {
    this.changed();
    this.accounts.push(account);
    this.accountById.set(account.id, account);
  }

  addWallet(wallet: Wallet): void {
    this.changed();
    this.wallets.push(wallet);
    this.walletById.set(wallet.id, wallet);
    appendTo(this.walletsByAccount, wallet.account_id, wallet);
    this.walletByAddress.set(wallet.wallet_address.toLowerCase(), wallet);
  }

  addPaymentMethod(details: PaymentMethodDetails): void {
    this.changed();
    this.paymentMethodDetails.push(details);
    this.paymentMethodById.set(details.id, details);
    appendTo(this.paymentMethodsByAccount, details.account_id, details);
  }

  addOrder(order: OrderRecord): void {
    this.changed();
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
