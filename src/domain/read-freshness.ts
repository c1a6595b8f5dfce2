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

/** How long a read's answer stays the same bytes by the clock alone (the world unchanged). */
function clockBound(read: CachedRead, nowMs: number): number {
  switch (read) {
    case 'getShareClass':
      // its next redemption date moves at 00:00 UTC of the tenant's clock (domain/redemption.ts)
      return Math.floor(nowMs / DAY_MS) * DAY_MS + DAY_MS;
    case 'listFundDocuments':
    case 'listCustomOfferingDocuments':
      // each link's `expires` is the clock's second plus the link's lifetime (domain/documents.ts)
      return Math.floor(nowMs / 1000) * 1000 + 1000;
    default:
      return Number.POSITIVE_INFINITY;
  }
}

/**
 * Until which instant of the tenant's clock (ms) the answer a read computes at `nowMs` stays the same bytes, as long
 * as the tenant's world does not change (its version, which every write, step, reset, restore, clock and settings
 * change bumps). `-Infinity`: never keep it. The one place that knows what a read's answer depends on besides the world:
 *   - in `polls` progression every order list is counted (it moves the orders it shows): never kept;
 *   - in `clock` progression, until the next step or payment deadline of any order (domain/order-progression.ts);
 *   - with investor activity, until the next investor order (domain/investor-activity.ts);
 *   - share classes and document links by the clock alone (`clockBound`).
 * Time's own changes also bump the version when the world is next read, so these bounds are the first guard, not the only.
 * An answer is served again only at a clock instant in [computed, fresh until): a clock moved back misses too.
 */
export function readFreshUntil(read: CachedRead, tenant: Tenant, nowMs: number): number {
  const { settings } = tenant.client;
  if (read === 'listOrders' && settings.order_progression === 'polls') return NEVER;
  let until = clockBound(read, nowMs);
  if (settings.order_progression === 'clock') until = Math.min(until, tenant.progression.nextDueAt());
  return Math.min(until, tenant.activity.nextInstant(settings.investor_activity_per_hour));
}
