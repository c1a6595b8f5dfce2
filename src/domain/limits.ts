import { DomainError } from '../api/errors.js';
import type { WorldStore } from '../store/world-store.js';

/** The settings of the room all tenants' records share, each filled in (domain/budgets.ts, domain/world-budget.ts). */
export interface WorldBudgetSettings {
  /** Bytes of every tenant's records together (WORLD_BYTES). */
  worldBytes: number;
  /** What each tenant is guaranteed (TENANT_GUARANTEE_BYTES, or WORLD_BYTES / MAX_TENANTS). */
  tenantGuaranteeBytes: number;
  /** Bytes one tenant's records may take, borrowing included (MAX_TENANT_BYTES). */
  maxTenantBytes: number;
}

export interface Limits {
  maxTenants: number;
  maxRecordsPerTenant: number;
  /** The room every tenant's records share (WORLD_BYTES, its guarantees, MAX_TENANT_BYTES); unbounded when absent. */
  world?: WorldBudgetSettings;
  /** Shadow mode's twin tenants, held apart from `maxTenants` (unbounded when absent). */
  maxTwins?: number;
}

const WHAT = 'accounts, wallets, payment method details and orders';

/**
 * A tenant's world grows only with what its client creates; each record costs memory (see bench/tenant-cost.mjs,
 * bench/tenant-budget.mjs), so a runaway test loop hits a clear 409 instead of taking the whole fake (and every other
 * tenant) down: by records, and by bytes (`addingBytes`: the new records' JSON, or what a replaced one grows by),
 * which its store's account of the shared room checks (domain/world-budget.ts) in O(1).
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
  if (addingBytes > 0) store.ensureRoomForBytes(addingBytes);
}

/** A world loaded by the control plane must fit the records' cap as a whole (its bytes: `TenantShare.ensureWorld`). */
export function ensureWorldFits(store: WorldStore): void {
  if (store.recordCount > store.maxRecords) {
    throw new DomainError(
      409,
      'limit_reached',
      `The world holds ${store.recordCount} ${WHAT}, more than MAX_RECORDS_PER_TENANT (${store.maxRecords}) allows; nothing was changed. Start the fake with a higher MAX_RECORDS_PER_TENANT (library option maxRecordsPerTenant).`,
    );
  }
}

/** What a refusal for bytes is about: a write's growth, or a whole world (loaded, restored, the fixtures). */
export interface RoomRefusal {
  kind: 'write' | 'world';
  /** The tenant's bytes before. */
  held: number;
  /** What the write adds (for a world: what it takes beyond the one it replaces). */
  adding: number;
  limit: number;
}

const n = (bytes: number): string => String(bytes);

const what = ({ kind, held, adding }: RoomRefusal): string =>
  kind === 'write'
    ? `This tenant's records take ${n(held)} bytes as JSON; this write adds ${n(adding)}`
    : `This world takes ${n(held + adding)} bytes as JSON (each order counted with room for the rest of its lifecycle)`;

/** What to do about a refusal: make room (a write), or ask for less (a world), or a higher setting. */
const remedy = (kind: RoomRefusal['kind'], setting: string, option: string): string =>
  `${kind === 'write' ? 'Reset a tenant (POST /__control/reset), or start' : 'Load a smaller world, or start'} the fake with a higher ${setting} (library option ${option}).`;

/** A write (or a world) past MAX_TENANT_BYTES: what one tenant may take, borrowing included. */
export function tenantBytesRefused(refusal: RoomRefusal): DomainError {
  return new DomainError(
    409,
    'limit_reached',
    `${what(refusal)}, past MAX_TENANT_BYTES (${n(refusal.limit)}), what one tenant's records may take; nothing was changed. ${remedy(refusal.kind, 'MAX_TENANT_BYTES', 'maxTenantBytes')}`,
  );
}

/** A write (or a world) past this tenant's room of WORLD_BYTES: its guarantee, and room no tenant's guarantee holds. */
export function worldBytesRefused(refusal: RoomRefusal & { guarantee: number; free: number }): DomainError {
  return new DomainError(
    409,
    'limit_reached',
    `${what(refusal)}: past this tenant's guarantee of ${n(refusal.guarantee)} bytes and the ${n(refusal.free)} of WORLD_BYTES (${n(refusal.limit)}) that no tenant holds, which every tenant's records share; nothing was changed. ` +
      `GET /__control/usage names the tenants that hold the rest. ${remedy(refusal.kind, 'WORLD_BYTES', 'worldBytes')}`,
  );
}

/** A tenant that holds room of WORLD_BYTES: named when a new one is refused. */
export interface Holder {
  clientId: string;
  holds: number;
  borrowed: number;
}

/** A new tenant (a client, a twin, a CLIENTS entry at start) whose guarantee WORLD_BYTES cannot hold. */
export function guaranteeRefused(refusal: {
  needed: number;
  free: number;
  worldBytes: number;
  guarantee: number;
  tenants: number;
  holders: Holder[];
}): DomainError {
  const named = refusal.holders
    .map((h) => `"${h.clientId.slice(0, 100)}" ${n(h.holds)}${h.borrowed > 0 ? ` (${n(h.borrowed)} borrowed)` : ''}`)
    .join(', ');
  const others = refusal.tenants - refusal.holders.length;
  const holders =
    refusal.tenants === 0
      ? ''
      : `: the ${refusal.tenants} tenant(s) there hold the rest (${named}${others > 0 ? `, and ${others} more` : ''})`;
  return new DomainError(
    409,
    'limit_reached',
    `A new tenant needs ${n(refusal.needed)} bytes of WORLD_BYTES (${n(refusal.worldBytes)}) held for it (its guarantee of ${n(refusal.guarantee)} bytes, or its world when larger), and ${n(refusal.free)} are free${holders}; nothing was created. ` +
      `${refusal.tenants === 0 ? 'Start' : 'Reset the tenants that borrow (POST /__control/reset), or start'} the fake with a higher WORLD_BYTES (library option worldBytes) or a lower TENANT_GUARANTEE_BYTES (tenantGuaranteeBytes).`,
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
