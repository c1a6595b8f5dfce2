import { describe, expect, it, vi } from 'vitest';
import { getHeapStatistics } from 'node:v8';
import { createContext, logStartWarnings } from '../../src/app.js';
import { createAccount, updateAccount } from '../../src/domain/accounts.js';
import { registerWallet } from '../../src/domain/wallets.js';
import { createPaymentMethodDetails } from '../../src/domain/payment-methods.js';
import { worldBytes } from '../../src/store/world-store.js';
import { seededTenant, VALID } from '../support/world.js';
import { budgetedBytes, budgetWarning, resolveBudgets, WORLD_HEAP_PER_JSON_BYTE } from '../../src/domain/budgets.js';

const GiB = 1024 ** 3;
const BASE = { maxTenants: 1000, maxRecordsPerTenant: 100_000, journalSize: 1000 };

describe('the memory budgets', () => {
  it.each([[2 * GiB], [4 * GiB], [8 * GiB]])('by default keep MAX_TENANTS full tenants under half of a heap limit of %d bytes, the default world with room', (heapLimit) => {
    const budgets = resolveBudgets(BASE, heapLimit);
    expect(budgetedBytes(budgets, 60_000)).toBeLessThan(heapLimit / 2);
    expect(budgetWarning(budgets, 60_000, heapLimit)).toBeUndefined();
    // the seeded default world takes ~60 KB as counted (its orders with room to grow)
    expect(budgets.maxTenantBytes).toBeGreaterThanOrEqual(2 * 60_000);
    expect(budgets.journalTotalBytes).toBeLessThanOrEqual(heapLimit / 4);
  });

  it('gives each tenant a larger world by default when there are fewer tenants', () => {
    expect(resolveBudgets({ ...BASE, maxTenants: 10 }, 4 * GiB).maxTenantBytes).toBeGreaterThan(50 * resolveBudgets(BASE, 4 * GiB).maxTenantBytes);
  });

  it('warns, naming the settings, when an operator’s settings pass half of the heap limit', () => {
    const budgets = resolveBudgets({ ...BASE, maxTenantBytes: 10_000_000 }, 4 * GiB);
    const warning = budgetWarning(budgets, 60_000, 4 * GiB)!;
    expect(warning).toContain('MAX_TENANTS=1000');
    expect(warning).toContain('MAX_TENANT_BYTES=10000000');
    expect(warning).toContain('JOURNAL_BYTES=');
    expect(warning).toContain('JOURNAL_TOTAL_BYTES=');
    expect(warning).toMatch(/--max-old-space-size/);
    // fixtures larger than a tenant's budget count as they are
    expect(budgetedBytes(resolveBudgets({ ...BASE, maxTenantBytes: 4096 }, 4 * GiB), 1_000_000)).toBeGreaterThanOrEqual(1000 * 1_000_000 * WORLD_HEAP_PER_JSON_BYTE);
  });

  it('refuses a library option out of bounds, naming it', () => {
    expect(() => resolveBudgets({ ...BASE, journalBytes: 10 }, 4 * GiB)).toThrow('journalBytes (JOURNAL_BYTES) must be an integer ≥ 65536');
    expect(() => resolveBudgets({ ...BASE, maxTenantBytes: 1.5e4 + 0.5 }, 4 * GiB)).toThrow('maxTenantBytes (MAX_TENANT_BYTES)');
  });

  it('an instance started with settings past half the heap logs the warning through its own logger; with the defaults it logs none', () => {
    const heavy = createContext({ maxTenantBytes: Math.ceil(getHeapStatistics().heap_size_limit / 1000) });
    expect(heavy.startWarnings).toEqual([expect.stringContaining('MAX_TENANT_BYTES=')]);
    const warn = vi.fn();
    heavy.logger = { ...heavy.logger, warn };
    logStartWarnings(heavy);
    expect(warn).toHaveBeenCalledWith(heavy.startWarnings[0]);
    expect(createContext().startWarnings).toEqual([]);
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
    createPaymentMethodDetails(tenant.store, account.id, { type: 'sepa', iban: VALID.iban, account_holder_name: 'Lovelace' });
    expect(tenant.store.bytes).toBeGreaterThan(start);
    // a flag moved from one record to another: `false` is a byte longer than `true`
    expect(Math.abs(tenant.store.bytes - worldBytes(tenant.store.snapshotView()))).toBeLessThanOrEqual(2);
  });
});
