import type { Schemas } from '../api/types.js';
import type { Journal } from '../records/journal.js';
import { budgetedBytes, type Budgets } from './budgets.js';
import type { TenantRegistry } from './tenants.js';

type TenantUsage = Schemas['TenantUsage'];

/** The tenants `GET /__control/usage` lists at most, by world bytes and by journal bytes. */
const LARGEST_TENANTS = 10;

/** The `count` largest by `key`, largest first: one pass keeping a short sorted list, whatever the number of tenants. */
function largest(items: Iterable<TenantUsage>, key: (item: TenantUsage) => number, count: number): TenantUsage[] {
  const top: TenantUsage[] = [];
  for (const item of items) {
    if (top.length === count && key(item) <= key(top[count - 1]!)) continue;
    let i = top.length;
    while (i > 0 && key(top[i - 1]!) < key(item)) i--;
    top.splice(i, 0, item);
    if (top.length > count) top.pop();
  }
  return top;
}

/**
 * What each budget holds (`GET /__control/usage`): a per-tenant budget by the tenant that uses it most; WORLD_BYTES as
 * the tenants share it; every tenant's use, guarantee and borrowing; the tenants that use most; the heap as the caller
 * measured it. O(tenants), no world or journal read.
 */
export function usageOf(
  tenants: TenantRegistry,
  journal: Journal,
  budgets: Budgets,
  heap: { limit: number; used: number },
): Schemas['Usage'] {
  const journals = journal.usage();
  const rows = new Map<string | null, TenantUsage>();
  let tenantCount = 0;
  for (const tenant of tenants.all()) {
    const clientId = tenant.client.client_id;
    const twin = tenants.isTwin(clientId);
    if (!twin) tenantCount++;
    const { store, share } = tenant;
    const use = share?.use ?? { guarantee: 0, borrowed: 0 };
    rows.set(clientId, {
      client_id: clientId,
      ...(twin && { twin: true }),
      records: store.recordCount,
      world_bytes: store.bytes,
      guarantee_bytes: use.guarantee,
      borrowed_bytes: use.borrowed,
      journal_entries: 0,
      journal_bytes: 0,
    });
  }
  for (const ring of journals.rings) {
    const row = rows.get(ring.clientId) ?? {
      client_id: ring.clientId,
      records: 0,
      world_bytes: 0,
      guarantee_bytes: 0,
      borrowed_bytes: 0,
      journal_entries: 0,
      journal_bytes: 0,
    };
    rows.set(ring.clientId, { ...row, journal_entries: ring.entries, journal_bytes: ring.bytes });
  }
  const all = [...rows.values()];
  const worlds = all.filter((row) => row.client_id !== null);
  const most = (key: (row: TenantUsage) => number): number => all.reduce((max, row) => Math.max(max, key(row)), 0);
  const sum = (key: (row: TenantUsage) => number): number => all.reduce((total, row) => total + key(row), 0);
  const shared = tenants.worldBudget;
  const totals = shared?.totals ?? { used: sum((row) => row.world_bytes), held: 0, free: budgets.worldBytes };
  const guarantee = shared?.floor ?? budgets.tenantGuaranteeBytes;
  return {
    budgets: {
      tenants: { setting: 'MAX_TENANTS', used: tenantCount, limit: budgets.maxTenants },
      tenant_records: {
        setting: 'MAX_RECORDS_PER_TENANT',
        used: most((row) => row.records),
        limit: budgets.maxRecordsPerTenant,
      },
      world_bytes: { setting: 'WORLD_BYTES', used: totals.used, limit: budgets.worldBytes },
      tenant_guarantee_bytes: {
        setting: 'TENANT_GUARANTEE_BYTES',
        used: most((row) => Math.min(row.world_bytes, row.guarantee_bytes)),
        limit: guarantee,
      },
      tenant_bytes: {
        setting: 'MAX_TENANT_BYTES',
        used: most((row) => row.world_bytes),
        limit: budgets.maxTenantBytes,
      },
      journal_entries: {
        setting: 'JOURNAL_SIZE',
        used: most((row) => row.journal_entries),
        limit: budgets.journalSize,
      },
      journal_bytes: { setting: 'JOURNAL_BYTES', used: most((row) => row.journal_bytes), limit: budgets.journalBytes },
      journal_total_bytes: { setting: 'JOURNAL_TOTAL_BYTES', used: journals.bytes, limit: budgets.journalTotalBytes },
    },
    world: {
      limit_bytes: budgets.worldBytes,
      used_bytes: totals.used,
      held_bytes: totals.held,
      free_bytes: totals.free,
      guarantee_bytes: guarantee,
      borrowed_bytes: sum((row) => row.borrowed_bytes),
    },
    tenants: worlds,
    totals: {
      records: sum((row) => row.records),
      world_bytes: sum((row) => row.world_bytes),
      journal_entries: journals.entries,
      journal_bytes: journals.bytes,
    },
    heap: {
      limit_bytes: heap.limit,
      used_bytes: heap.used,
      budgeted_bytes: budgetedBytes(budgets, tenants.fixturesBytes),
    },
    largest: {
      // the requests no tenant owns have a journal, never a world
      by_world_bytes: largest(worlds, (row) => row.world_bytes, LARGEST_TENANTS),
      by_journal_bytes: largest(all, (row) => row.journal_bytes, LARGEST_TENANTS),
    },
  };
}
