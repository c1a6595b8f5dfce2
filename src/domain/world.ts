import { DomainError, type FieldError } from '../api/errors.js';
import type { Tenant } from './tenants.js';
import type { World } from '../api/types.js';

type Collection = keyof World;

/**
 * The rules a world must keep beyond its schema: ids unique per collection, every link pointing at an existing
 * item, unique ISINs, fund abbreviations and wallet addresses, at most one primary wallet and payment method per
 * account. Answers every breach, so a bad snapshot or fixtures file can be fixed in one go.
 */
export function checkWorld(world: World): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (collection: Collection, index: number, field: string, message: string): void => {
    errors.push({ location: 'body', path: `/${collection}/${index}/${field}`, message });
  };

  const ids = {} as Record<Collection, Set<string>>;
  for (const collection of Object.keys(world) as Collection[]) {
    const seen = new Set<string>();
    world[collection].forEach((item, i) => {
      if (seen.has(item.id)) fail(collection, i, 'id', `duplicate id "${item.id}"`);
      seen.add(item.id);
    });
    ids[collection] = seen;
  }

  const unique = <T>(collection: Collection, field: string, items: readonly T[], key: (item: T) => string): void => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = key(item);
      if (seen.has(k)) fail(collection, i, field, `duplicate ${field} "${k}"`);
      seen.add(k);
    });
  };
  const link = <T>(
    collection: Collection,
    field: string,
    items: readonly T[],
    target: Collection,
    value: (item: T) => string | null | undefined,
  ): void => {
    items.forEach((item, i) => {
      const v = value(item);
      if (v != null && !ids[target].has(v)) fail(collection, i, field, `no item of ${target} has id "${v}"`);
    });
  };

  unique('feeder_funds', 'abbreviation', world.feeder_funds, (f) => f.abbreviation);
  unique('assets', 'isin', world.assets, (a) => a.isin);
  unique('wallets', 'wallet_address', world.wallets, (w) => w.wallet_address.toLowerCase());

  link('share_classes', 'feeder_fund_id', world.share_classes, 'feeder_funds', (s) => s.feeder_fund_id);
  link('assets', 'share_class_id', world.assets, 'share_classes', (a) => a.share_class_id);
  link('custom_offerings', 'asset_id', world.custom_offerings, 'assets', (o) => o.asset_id);
  link('documents', 'feeder_fund_id', world.documents, 'feeder_funds', (d) => d.feeder_fund_id);
  link('documents', 'custom_offering_id', world.documents, 'custom_offerings', (d) => d.custom_offering_id);
  link('wallets', 'account_id', world.wallets, 'accounts', (w) => w.account_id);
  link('payment_method_details', 'account_id', world.payment_method_details, 'accounts', (p) => p.account_id);
  link('orders', 'account_id', world.orders, 'accounts', (o) => o.account_id);
  link('orders', 'custom_offering_id', world.orders, 'custom_offerings', (o) => o.custom_offering_id);

  world.documents.forEach((d, i) => {
    if ((d.feeder_fund_id == null) === (d.custom_offering_id == null)) {
      fail('documents', i, 'feeder_fund_id', 'a document belongs to exactly one feeder fund or one custom offering');
    }
  });

  const assetIdByIsin = new Map(world.assets.map((a) => [a.isin, a.id]));
  const offeringAsset = new Map(world.custom_offerings.map((o) => [o.id, o.asset_id]));
  world.orders.forEach((o, i) => {
    const assetId = assetIdByIsin.get(o.isin);
    if (assetId === undefined) fail('orders', i, 'isin', `no asset has ISIN "${o.isin}"`);
    else if (
      o.custom_offering_id != null &&
      offeringAsset.has(o.custom_offering_id) &&
      offeringAsset.get(o.custom_offering_id) !== assetId
    ) {
      fail(
        'orders',
        i,
        'custom_offering_id',
        `custom offering "${o.custom_offering_id}" is not an offering of ISIN "${o.isin}"`,
      );
    }
  });

  const onePrimary = (collection: 'wallets' | 'payment_method_details'): void => {
    const primaries = new Set<string>();
    world[collection].forEach((item, i) => {
      if (!item.is_primary) return;
      if (primaries.has(item.account_id))
        fail(collection, i, 'is_primary', `account "${item.account_id}" has another primary`);
      primaries.add(item.account_id);
    });
  };
  onePrimary('wallets');
  onePrimary('payment_method_details');

  return errors;
}

/** Loads a snapshot into a tenant when it keeps every rule of a world; otherwise changes nothing. */
export function replaceWorld(tenant: Tenant, world: World): void {
  const errors = checkWorld(world);
  if (errors.length > 0) {
    throw new DomainError(
      422,
      'invalid_world',
      `The snapshot breaks ${errors.length} rule(s) of a world; nothing was changed.`,
      errors,
    );
  }
  tenant.replaceWorld(world);
}
