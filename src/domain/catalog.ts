import { notFound } from '../api/errors.js';
import { paginate } from './paginate.js';
import { nextRedemptionDate } from './redemption.js';
import type { Asset, AssetRecord, QueryOf, ShareClass, ShareClassListItem, ShareClassRecord } from '../api/types.js';
import type { WorldStore } from '../store/world-store.js';

function toShareClassListItem(record: ShareClassRecord): ShareClassListItem {
  const { lock_up_duration: _d, redemption_cycle: _c, next_redemption_date: _n, ...listItem } = record;
  return listItem;
}

/** The get-by-ISIN representation; its `next_redemption_date` is computed from the tenant's clock, not stored. */
function toShareClass(record: ShareClassRecord, now: Date): ShareClass {
  const { lock_up: _l, redemption_window: _w, ...byIsin } = record;
  return { ...byIsin, next_redemption_date: nextRedemptionDate(record, now) };
}

function toAsset(store: WorldStore, record: AssetRecord): Asset {
  const { created, ...rest } = record;
  const offerings = store.customOfferingsByAsset.get(record.id) ?? [];
  return { ...rest, custom_offerings: offerings.map(({ id, name }) => ({ id, name })), created };
}

export function listShareClasses(store: WorldStore, query: QueryOf<'listShareClasses'>): ShareClassListItem[] {
  const name = query.name?.toLowerCase();
  return paginate(
    store.shareClasses,
    query,
    (s) =>
      (query.abbreviation === undefined || s.abbreviation === query.abbreviation) &&
      (name === undefined || s.name.toLowerCase().includes(name)) &&
      (query.feeder_fund_id === undefined || s.feeder_fund_id === query.feeder_fund_id),
  ).map(toShareClassListItem);
}

export function findAsset(store: WorldStore, isin: string): AssetRecord {
  const asset = store.assetByIsin.get(isin);
  if (!asset) throw notFound(`An asset with ISIN "${isin}"`);
  return asset;
}

export function getShareClass(store: WorldStore, isin: string, now: Date): ShareClass {
  const asset = findAsset(store, isin);
  const shareClass = store.shareClassById.get(asset.share_class_id);
  if (!shareClass) throw notFound(`The share class of ISIN "${isin}"`);
  return toShareClass(shareClass, now);
}

export function listAssets(store: WorldStore, query: QueryOf<'listAssets'>): Asset[] {
  return paginate(
    store.assets,
    query,
    (a) =>
      (query.isin === undefined || a.isin === query.isin) &&
      (query.currency === undefined || a.currency === query.currency) &&
      (query.subscribeable === undefined || a.subscribeable === query.subscribeable) &&
      (query.redeemable === undefined || a.redeemable === query.redeemable) &&
      (query.tradeable === undefined || a.tradeable === query.tradeable) &&
      (query.share_class_id === undefined || a.share_class_id === query.share_class_id),
  ).map((a) => toAsset(store, a));
}
