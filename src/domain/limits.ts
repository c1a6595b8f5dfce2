import { DomainError } from '../api/errors.js';
import type { WorldStore } from '../store/world-store.js';

export interface Limits {
  maxTenants: number;
  maxRecordsPerTenant: number;
  /** Bytes of a tenant's records as JSON (MAX_TENANT_BYTES). */
  maxTenantBytes: number;
  /** Shadow mode's twin tenants, held apart from `maxTenants` (unbounded when absent). */
  maxTwins?: number;
}

const WHAT = 'accounts, wallets, payment method details and orders';

/**
 * A tenant's world grows only with what its client creates; each record costs memory (see bench/tenant-cost.mjs,
 * bench/tenant-budget.mjs), so a runaway test loop hits a clear 409 instead of taking the whole fake (and every other
 * tenant) down: by records, and by bytes (`addingBytes`: the new records' JSON, or what a replaced one grows by).
 */
export function ensureRoomFor(store: WorldStore, adding: number, addingBytes: number): void {
  const held = store.recordCount;
  const max = store.maxRecords;
  if (held + adding > max) {
    throw new DomainError(
      409,
      'limit_reached',
      `This tenant holds ${held} ${WHAT}; adding ${adding} would pass MAX_RECORDS_PER_TENANT (${max}). Reset the tenant (POST /__control/reset) or start the fake with a higher MAX_RECORDS_PER_TENANT (library option maxRecordsPerTenant).`,
    );
  }
  if (addingBytes > 0 && store.bytes + addingBytes > store.maxBytes) {
    throw new DomainError(
      409,
      'limit_reached',
      `This tenant's records take ${store.bytes} bytes as JSON; this write adds ${addingBytes} and would pass MAX_TENANT_BYTES (${store.maxBytes}); nothing was changed. Reset the tenant (POST /__control/reset), or start the fake with a higher MAX_TENANT_BYTES (library option maxTenantBytes).`,
    );
  }
}

/** A world loaded through the control plane must fit the caps as a whole. */
export function ensureWorldFits(store: WorldStore): void {
  if (store.recordCount > store.maxRecords) {
    throw new DomainError(
      409,
      'limit_reached',
      `The world holds ${store.recordCount} ${WHAT}, more than MAX_RECORDS_PER_TENANT (${store.maxRecords}) allows; nothing was changed. Start the fake with a higher MAX_RECORDS_PER_TENANT (library option maxRecordsPerTenant).`,
    );
  }
  if (store.bytes > store.maxBytes) {
    throw new DomainError(
      409,
      'limit_reached',
      `The world takes ${store.bytes} bytes as JSON (each order counted with room for the rest of its lifecycle), more than MAX_TENANT_BYTES (${store.maxBytes}) allows; nothing was changed. Start the fake with a higher MAX_TENANT_BYTES (library option maxTenantBytes).`,
    );
  }
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
