import type { OperationId } from '../api/types.js';
import type { Tenant } from './tenants.js';

/** The public reads whose answers may be kept and answered again (http/read-cache.ts). */
export type CachedRead = Extract<
  OperationId,
  | 'listOrders'
  | 'listShareClasses'
  | 'getShareClass'
  | 'listAssets'
  | 'listAccounts'
  | 'getAccount'
  | 'listWallets'
  | 'getPaymentMethodDetails'
  | 'listFundDocuments'
  | 'listCustomOfferingDocuments'
>;

export const CACHED_READS: ReadonlySet<OperationId> = new Set<CachedRead>([
  'listOrders',
  'listShareClasses',
  'getShareClass',
  'listAssets',
  'listAccounts',
  'getAccount',
  'listWallets',
  'getPaymentMethodDetails',
  'listFundDocuments',
  'listCustomOfferingDocuments',
]);

const DAY_MS = 86_400_000;
const NEVER = Number.NEGATIVE_INFINITY;

/**
 * Until which instant of the tenant's clock (ms) the answer a read computes at `nowMs` stays the same bytes, as long
 * as the tenant's world does not change (its store's version, which every write, reset, restore and settings change
 * bumps). `-Infinity`: never keep it. The one place that knows what a read's answer depends on besides the world:
 *   - `getShareClass`: its next redemption date moves at 00:00 UTC of the tenant's clock (domain/redemption.ts);
 *   - document lists: each link's `expires` is the clock's second plus the link's lifetime (domain/documents.ts);
 *   - the rest depend on the world alone.
 * An answer is served again only at a clock instant in [computed, fresh until): a clock moved back misses too.
 */
export function readFreshUntil(read: CachedRead, _tenant: Tenant, nowMs: number): number {
  switch (read) {
    case 'getShareClass':
      return Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS;
    case 'listFundDocuments':
    case 'listCustomOfferingDocuments':
      return Math.floor(nowMs / 1000) * 1000 + 1000;
    case 'listOrders':
    case 'listShareClasses':
    case 'listAssets':
    case 'listAccounts':
    case 'getAccount':
    case 'listWallets':
    case 'getPaymentMethodDetails':
      return Number.POSITIVE_INFINITY;
    default:
      return NEVER;
  }
}
