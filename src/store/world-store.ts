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
} from '../domain/types.js';

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

function groupBy<T>(items: readonly T[], key: (item: T) => string | null | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k == null) continue;
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * One tenant's world: the collections in creation order, plus the lookups the operations need.
 * It owns its data (a deep copy of what it was built from), so tenants never share objects.
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
  readonly orderById: Map<string, OrderRecord>;

  constructor(world: World) {
    const own = structuredClone(world);
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
    this.orderById = byId(this.orders);
  }

  /** The world as JSON-ready data, in the shape of a fixtures file; a copy the caller may keep. */
  snapshot(): World {
    return structuredClone({
      feeder_funds: this.feederFunds,
      share_classes: this.shareClasses,
      assets: this.assets,
      custom_offerings: this.customOfferings,
      documents: this.documents,
      accounts: this.accounts,
      wallets: this.wallets,
      payment_method_details: this.paymentMethodDetails,
      orders: this.orders,
    });
  }
}
