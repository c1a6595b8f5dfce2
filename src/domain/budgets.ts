// The memory budgets of one instance (CONTRACT 15, "Budgets, not crashes", sized to the use by CONTRACT 16): their
// defaults, drawn from the process's heap limit, and the warning for settings whose sum passes half of it.

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Heap a world takes per byte of its records as JSON, at most: objects, their property slots and strings cost more
 * than their JSON (bench/tenant-budget.mjs measures how much); a margin on top.
 */
export const WORLD_HEAP_PER_JSON_BYTE = 3;

/**
 * The shares of the heap limit the two kinds of budget get by default, together under half of it (the rest of the
 * process, its code, caches and requests in flight, has the other half): the worlds more, since a full world refuses
 * writes while a full journal only lets its oldest entries go.
 */
const WORLDS_SHARE = 0.3;
const JOURNALS_SHARE = 0.15;

/** A ring of JOURNAL_SIZE entries of a typical mix fits (bench/journal-memory.mjs measures an entry). */
const DEFAULT_JOURNAL_BYTES = 16 * MiB;

/** Bounds of each setting: a journal budget holds at least its largest entry, a world at least a few records. */
export const BUDGET_MINIMUMS = {
  journalBytes: 64 * KiB,
  journalTotalBytes: 64 * KiB,
  maxTenantBytes: 4 * KiB,
  worldBytes: 64 * KiB,
  tenantGuaranteeBytes: 0,
} as const;

/** What the settings give, every one filled in. */
export interface Budgets {
  maxTenants: number;
  /** Accounts + wallets + payment method details + orders of a tenant (MAX_RECORDS_PER_TENANT). */
  maxRecordsPerTenant: number;
  /** Entries of one tenant's journal (JOURNAL_SIZE). */
  journalSize: number;
  /** Bytes of every tenant's records together as JSON (WORLD_BYTES). */
  worldBytes: number;
  /** What each tenant is guaranteed of WORLD_BYTES (TENANT_GUARANTEE_BYTES; WORLD_BYTES / MAX_TENANTS by default). */
  tenantGuaranteeBytes: number;
  /** Bytes of one tenant's records as JSON, borrowing included (MAX_TENANT_BYTES; WORLD_BYTES by default). */
  maxTenantBytes: number;
  /** Bytes of one tenant's journal (JOURNAL_BYTES). */
  journalBytes: number;
  /** Bytes of every journal together (JOURNAL_TOTAL_BYTES). */
  journalTotalBytes: number;
}

export type BudgetSettings = Partial<Omit<Budgets, 'maxTenants' | 'maxRecordsPerTenant' | 'journalSize'>> &
  Pick<Budgets, 'maxTenants' | 'maxRecordsPerTenant' | 'journalSize'> & {
    /** In shadow mode, MAX_TWINS: twins take none of the operator's slots, so each slot of either kind is guaranteed its part. */
    twinSlots?: number;
  };

const NAMES = {
  worldBytes: ['WORLD_BYTES', 'worldBytes'],
  tenantGuaranteeBytes: ['TENANT_GUARANTEE_BYTES', 'tenantGuaranteeBytes'],
  maxTenantBytes: ['MAX_TENANT_BYTES', 'maxTenantBytes'],
  journalBytes: ['JOURNAL_BYTES', 'journalBytes'],
  journalTotalBytes: ['JOURNAL_TOTAL_BYTES', 'journalTotalBytes'],
} as const;

/**
 * The budgets, each as set or by default (CONTRACT 16, "Sized to the use"): every world together WORLDS_SHARE of the
 * heap limit in heap (what the default MAX_TENANTS worlds got in total before; whatever the number of tenants), each
 * tenant guaranteed an equal part of it (of MAX_TENANTS parts; in shadow mode MAX_TENANTS + MAX_TWINS) and free to
 * borrow the rest up to MAX_TENANT_BYTES (no cap below WORLD_BYTES);
 * the journals together JOURNALS_SHARE. A library option out of bounds stops the start, named (the CLI checks its own).
 */
export function resolveBudgets(settings: BudgetSettings, heapLimit: number): Budgets {
  for (const key of Object.keys(NAMES) as (keyof typeof NAMES)[]) {
    const value = settings[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= BUDGET_MINIMUMS[key])) {
      throw new Error(
        `${NAMES[key][1]} (${NAMES[key][0]}) must be an integer ≥ ${BUDGET_MINIMUMS[key]} (bytes), got ${String(value)}.`,
      );
    }
  }
  const { maxTenants, maxRecordsPerTenant, journalSize } = settings;
  const journalTotalBytes = settings.journalTotalBytes ?? Math.floor(heapLimit * JOURNALS_SHARE);
  const worldBytes =
    settings.worldBytes ?? Math.floor((heapLimit * WORLDS_SHARE) / WORLD_HEAP_PER_JSON_BYTE / KiB) * KiB;
  return {
    maxTenants,
    maxRecordsPerTenant,
    journalSize,
    worldBytes,
    tenantGuaranteeBytes:
      settings.tenantGuaranteeBytes ?? Math.floor(worldBytes / (maxTenants + (settings.twinSlots ?? 0))),
    maxTenantBytes: settings.maxTenantBytes ?? worldBytes,
    journalBytes: settings.journalBytes ?? Math.min(DEFAULT_JOURNAL_BYTES, journalTotalBytes),
    journalTotalBytes,
  };
}

/**
 * What the budgets let the worlds and journals take at most, in heap: every world together at WORLD_BYTES, whatever
 * the number of tenants, and the fixtures every tenant is copied from beside them; the journals at their total (or
 * every ring full, the requests no tenant owns included, when that is less).
 */
export function budgetedBytes(budgets: Budgets, fixturesBytes: number): number {
  const worlds = (budgets.worldBytes + fixturesBytes) * WORLD_HEAP_PER_JSON_BYTE;
  const journals = Math.min(budgets.journalTotalBytes, (budgets.maxTenants + 1) * budgets.journalBytes);
  return worlds + journals;
}

const mb = (bytes: number): string => `${Math.round(bytes / MiB).toLocaleString('en-US')} MB`;

/** The warning for budgets whose sum passes half of the heap limit, naming the settings; undefined when they fit. */
export function budgetWarning(budgets: Budgets, fixturesBytes: number, heapLimit: number): string | undefined {
  const sum = budgetedBytes(budgets, fixturesBytes);
  if (sum <= heapLimit / 2) return undefined;
  const fixtures =
    fixturesBytes * WORLD_HEAP_PER_JSON_BYTE >= MiB
      ? ` beside the fixtures every tenant is copied from (${fixturesBytes} bytes)`
      : '';
  return (
    `memory budgets pass half of the heap limit: every tenant's world together at WORLD_BYTES=${budgets.worldBytes}${fixtures}, ` +
    `and journals at JOURNAL_BYTES=${budgets.journalBytes} each, JOURNAL_TOTAL_BYTES=${budgets.journalTotalBytes} in all, may take ~${mb(sum)} of a ${mb(heapLimit)} heap ` +
    `(a world reckoned at ${WORLD_HEAP_PER_JSON_BYTE} bytes of heap a byte counted): the process may run out of memory before a budget says no. ` +
    `Lower these settings, or give Node a larger heap (NODE_OPTIONS=--max-old-space-size=<MB>).`
  );
}
