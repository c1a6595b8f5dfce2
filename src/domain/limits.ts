import { DomainError } from '../api/errors.js';
import type { WorldStore } from '../store/world-store.js';

export interface Limits {
  maxTenants: number;
  maxRecordsPerTenant: number;
  /** Shadow mode's twin tenants, held apart from `maxTenants` (unbounded when absent). */
  maxTwins?: number;
}

const WHAT = 'accounts, wallets, payment method details and orders';

/**
 * A tenant's world grows only with what its client creates; each record costs memory (see bench/tenant-cost.mjs), so
 * a runaway test loop hits a clear 409 instead of taking the whole fake (and every other tenant) down.
 */
export function ensureRoomFor(store: WorldStore, adding: number): void {
  const held = store.recordCount;
  const max = store.maxRecords;
  if (held + adding <= max) return;
  throw new DomainError(
    409,
    'limit_reached',
    `This tenant holds ${held} ${WHAT}; adding ${adding} would pass MAX_RECORDS_PER_TENANT (${max}). Reset the tenant (POST /__control/reset) or start the fake with a higher MAX_RECORDS_PER_TENANT (library option maxRecordsPerTenant).`,
  );
}

/** A world loaded through the control plane must fit the cap as a whole. */
export function ensureWorldFits(records: number, max: number): void {
  if (records <= max) return;
  throw new DomainError(
    409,
    'limit_reached',
    `The world holds ${records} ${WHAT}, more than MAX_RECORDS_PER_TENANT (${max}) allows; nothing was changed. Start the fake with a higher MAX_RECORDS_PER_TENANT (library option maxRecordsPerTenant).`,
  );
}

export function tenantLimitReached(maxTenants: number): DomainError {
  return new DomainError(
    409,
    'limit_reached',
    `This fake holds ${maxTenants} clients, the most MAX_TENANTS allows. Start it with a higher MAX_TENANTS (library option maxTenants), or reuse clients and reset their worlds.`,
  );
}

export function twinLimitReached(maxTwins: number): DomainError {
  return new DomainError(
    409,
    'limit_reached',
    `This fake holds ${maxTwins} twins, the most MAX_TWINS allows: this client's exchanges are forwarded and answered, not compared. Start it with a higher MAX_TWINS (library option maxTwins).`,
  );
}
