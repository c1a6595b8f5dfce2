import { describe, expect, it, vi } from 'vitest';
import { getHeapStatistics } from 'node:v8';
import { createContext, logStartWarnings } from '../../src/context.js';
import { createAccount, updateAccount } from '../../src/domain/accounts.js';
import { registerWallet } from '../../src/domain/wallets.js';
import { createPaymentMethodDetails } from '../../src/domain/payment-methods.js';
import { worldBytes } from '../../src/store/world-store.js';
import { seededTenant, VALID } from '../support/world.js';
import {
  budgetedBytes,
  BudgetsConflict,
  budgetWarning,
  resolveBudgets,
  WORLD_HEAP_PER_JSON_BYTE,
} from '../../src/domain/budgets.js';

const GiB = 1024 ** 3;
const BASE = { maxTenants: 1000, maxRecordsPerTenant: 100_000, journalSize: 1000 };

describe('the memory budgets', () => {
  it.each([[2 * GiB], [4 * GiB], [8 * GiB]])(
    'by default keep worlds and journals under half of a heap limit of %d bytes, for any number of tenants',
    (heapLimit) => {
      for (const maxTenants of [1, 10, 1000, 100_000]) {
        const budgets = resolveBudgets({ ...BASE, maxTenants }, heapLimit);
        expect(budgetedBytes(budgets, 60_000)).toBeLessThan(heapLimit / 2);
        expect(budgetWarning(budgets, 60_000, heapLimit)).toBeUndefined();
        // what the default 1,000 worlds got in total before (30% of the heap at 3 bytes of heap a byte), whatever MAX_TENANTS
        expect(budgets.worldBytes).toBeGreaterThan(heapLimit * 0.0999);
        expect(budgets.worldBytes).toBeLessThanOrEqual(heapLimit * 0.1);
        expect(budgets.tenantGuaranteeBytes).toBe(Math.floor(budgets.worldBytes / maxTenants));
        // no cap below WORLD_BYTES: a tenant alone may take it all
        expect(budgets.maxTenantBytes).toBe(budgets.worldBytes);
        expect(budgets.journalTotalBytes).toBeLessThanOrEqual(heapLimit / 4);
      }
      // the seeded default world (~60 KB as counted) fits each of the default 1,000 guarantees with room to grow
      expect(resolveBudgets(BASE, heapLimit).tenantGuaranteeBytes).toBeGreaterThanOrEqual(2 * 60_000);
    },
  );

  it('takes each setting as given: WORLD_BYTES, TENANT_GUARANTEE_BYTES, MAX_TENANT_BYTES', () => {
    const budgets = resolveBudgets(
      { ...BASE, worldBytes: 8_000_000, tenantGuaranteeBytes: 100_000, maxTenantBytes: 2_000_000 },
      4 * GiB,
    );
    expect(budgets).toMatchObject({ worldBytes: 8_000_000, tenantGuaranteeBytes: 100_000, maxTenantBytes: 2_000_000 });
    expect(resolveBudgets({ ...BASE, maxTenants: 4, worldBytes: 8_000_000 }, 4 * GiB)).toMatchObject({
      tenantGuaranteeBytes: 2_000_000,
      maxTenantBytes: 8_000_000,
    });
    // in shadow mode twins take none of the operator's slots: each slot of either kind is guaranteed its part
    expect(
      resolveBudgets({ ...BASE, maxTenants: 20, twinSlots: 10, worldBytes: 3_000_000 }, 4 * GiB).tenantGuaranteeBytes,
    ).toBe(100_000);
  });

  it('warns, naming the settings, when an operator’s settings pass half of the heap limit', () => {
    const budgets = resolveBudgets({ ...BASE, worldBytes: 1 * GiB }, 4 * GiB);
    const warning = budgetWarning(budgets, 60_000, 4 * GiB)!;
    expect(warning).toContain(`WORLD_BYTES=${GiB}`);
    expect(warning).toContain('JOURNAL_BYTES=');
    expect(warning).toContain('JOURNAL_TOTAL_BYTES=');
    expect(warning).toMatch(/--max-old-space-size/);
    // the fixtures every tenant is copied from take heap beside the worlds
    expect(
      budgetedBytes(resolveBudgets(BASE, 4 * GiB), 100_000_000) - budgetedBytes(resolveBudgets(BASE, 4 * GiB), 0),
    ).toBe(100_000_000 * WORLD_HEAP_PER_JSON_BYTE);
    expect(
      budgetWarning(resolveBudgets({ ...BASE, worldBytes: 500_000_000 }, 4 * GiB), 100_000_000, 4 * GiB),
    ).toContain('fixtures');
  });

  it('refuses a library option out of bounds, naming it', () => {
    expect(() => resolveBudgets({ ...BASE, journalBytes: 10 }, 4 * GiB)).toThrow(
      'journalBytes (JOURNAL_BYTES) must be an integer ≥ 65536',
    );
    expect(() => resolveBudgets({ ...BASE, maxTenantBytes: 1.5e4 + 0.5 }, 4 * GiB)).toThrow(
      'maxTenantBytes (MAX_TENANT_BYTES)',
    );
    expect(() => resolveBudgets({ ...BASE, worldBytes: 1000 }, 4 * GiB)).toThrow(
      'worldBytes (WORLD_BYTES) must be an integer ≥ 65536',
    );
    expect(() => resolveBudgets({ ...BASE, tenantGuaranteeBytes: -1 }, 4 * GiB)).toThrow(
      'tenantGuaranteeBytes (TENANT_GUARANTEE_BYTES)',
    );
  });

  it('refuses a guarantee above WORLD_BYTES or MAX_TENANT_BYTES, naming both settings, never lowering it', () => {
    expect(() => resolveBudgets({ ...BASE, worldBytes: 1_000_000, tenantGuaranteeBytes: 1_000_001 }, 4 * GiB)).toThrow(
      BudgetsConflict,
    );
    expect(() => resolveBudgets({ ...BASE, worldBytes: 1_000_000, tenantGuaranteeBytes: 1_000_001 }, 4 * GiB)).toThrow(
      /tenantGuaranteeBytes \(TENANT_GUARANTEE_BYTES\) of 1000001 bytes.* above worldBytes \(WORLD_BYTES\) of 1000000\b/,
    );
    // above the default WORLD_BYTES, drawn from the heap limit: named as such
    expect(() => resolveBudgets({ ...BASE, tenantGuaranteeBytes: GiB }, 4 * GiB)).toThrow(
      /above worldBytes \(WORLD_BYTES\) of \d+ \(its default, drawn from the heap limit\)/,
    );
    expect(() =>
      resolveBudgets(
        { ...BASE, worldBytes: 8_000_000, maxTenantBytes: 100_000, tenantGuaranteeBytes: 200_000 },
        4 * GiB,
      ),
    ).toThrow(/TENANT_GUARANTEE_BYTES\) of 200000 bytes.* above maxTenantBytes \(MAX_TENANT_BYTES\) of 100000\b/);
    // equal holds together
    expect(
      resolveBudgets(
        { ...BASE, worldBytes: 8_000_000, maxTenantBytes: 100_000, tenantGuaranteeBytes: 100_000 },
        4 * GiB,
      ).tenantGuaranteeBytes,
    ).toBe(100_000);
  });

  it('a default guarantee is within MAX_TENANT_BYTES: WORLD_BYTES / MAX_TENANTS, or the cap when that is lower', () => {
    expect(
      resolveBudgets({ ...BASE, maxTenants: 2, worldBytes: 8_000_000, maxTenantBytes: 1_000_000 }, 4 * GiB)
        .tenantGuaranteeBytes,
    ).toBe(1_000_000);
  });

  it('an instance started with settings past half the heap logs the warning through its own logger; with the defaults it logs none', () => {
    const heavy = createContext({ worldBytes: Math.ceil(getHeapStatistics().heap_size_limit / 5) });
    expect(heavy.startWarnings).toEqual([expect.stringContaining('WORLD_BYTES=')]);
    const warn = vi.fn();
    heavy.logger = { ...heavy.logger, warn };
    logStartWarnings(heavy);
    expect(warn).toHaveBeenCalledWith(heavy.startWarnings[0]);
    expect(createContext().startWarnings).toEqual([]);
    expect(createContext({ maxTenants: 1 }).startWarnings).toEqual([]);
  });
});

describe("a tenant's running count of its world's bytes", () => {
  it('is the world as JSON, each record measured alone as it is written (a moved primary flag aside)', () => {
    const tenant = seededTenant();
    const start = tenant.store.bytes;
    expect(start).toBe(worldBytes(tenant.store.snapshotView()));
    const account = createAccount(tenant, {
      type: 'individual',
      first_name: 'Ada',
      wallets: [{ wallet_address: VALID.wallet }],
      payment_methods: [{ type: 'sepa', iban: VALID.iban, account_holder_name: 'Ada' }],
    });
    updateAccount(tenant, account.id, { city: 'Berlin'.repeat(20) });
    registerWallet(tenant, account.id, { wallet_address: VALID.walletLower });
    createPaymentMethodDetails(tenant.store, account.id, {
      type: 'sepa',
      iban: VALID.iban,
      account_holder_name: 'Lovelace',
    });
    expect(tenant.store.bytes).toBeGreaterThan(start);
    // a flag moved from one record to another: `false` is a byte longer than `true`
    expect(Math.abs(tenant.store.bytes - worldBytes(tenant.store.snapshotView()))).toBeLessThanOrEqual(2);
  });
});
