import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { createAccount } from '../../src/domain/accounts.js';
import { toClientRecord } from '../../src/domain/clients.js';
import { Fixtures, TenantRegistry } from '../../src/domain/tenants.js';
import { WorldBudget } from '../../src/domain/world-budget.js';
import { replaceWorld } from '../../src/domain/world.js';
import { failure } from '../support/world.js';

// The room every tenant's world shares (domain/world-budget.ts): guarantees, borrowing, refusals.
const fixtures = new Fixtures(generateWorld({ seed: 1 }));
const client = (client_id: string) => toClientRecord({ client_id, client_secret: 's' });
const registry = (world: { worldBytes: number; tenantGuaranteeBytes: number; maxTenantBytes?: number }, ids = ['a']) =>
  new TenantRegistry(fixtures, ids.map(client), {
    maxTenants: 10,
    maxRecordsPerTenant: 100_000,
    world: { maxTenantBytes: world.worldBytes, ...world },
  });
const large = (name: string) => ({ type: 'individual' as const, first_name: name.padEnd(20_000, '.') });

describe('WorldBudget', () => {
  it('holds for each tenant the larger of its use and its guarantee; the totals are running sums', () => {
    const budget = new WorldBudget(
      { worldBytes: 1_000_000, tenantGuaranteeBytes: 200_000, maxTenantBytes: 1_000_000 },
      50_000,
    );
    const a = budget.open('a', 50_000);
    const b = budget.open('b', 50_000);
    expect(budget.totals).toEqual({ used: 100_000, held: 400_000, free: 600_000 });
    a.moved(300_000);
    expect(a.use).toEqual({ bytes: 350_000, guarantee: 200_000, borrowed: 150_000 });
    expect(budget.totals).toEqual({ used: 400_000, held: 550_000, free: 450_000 });
    // b within its guarantee: never refused; a past what the others hold: refused
    b.ensureRoom(150_000);
    expect(() => a.ensureRoom(450_001)).toThrow(/WORLD_BYTES \(1000000\)/);
    a.ensureRoom(450_000);
    a.moved(-350_000 + 50_000);
    expect(budget.totals).toEqual({ used: 100_000, held: 400_000, free: 600_000 });
  });

  it('guarantees at least the fixtures (a reset always finds room), else the guarantee as set', () => {
    expect(
      new WorldBudget({ worldBytes: 1_000_000, tenantGuaranteeBytes: 4096, maxTenantBytes: 1_000_000 }, 60_000).floor,
    ).toBe(60_000);
    // never lowered to MAX_TENANT_BYTES: settings with a guarantee above it stop the start (test/unit/budgets.test.ts)
    expect(
      new WorldBudget({ worldBytes: 1_000_000, tenantGuaranteeBytes: 100_000, maxTenantBytes: 100_000 }, 60_000).floor,
    ).toBe(100_000);
  });
});

describe('tenants sharing WORLD_BYTES', () => {
  it('a twin whose guarantee cannot be held is refused (409 limit_reached naming WORLD_BYTES and who holds it), as a client is', () => {
    const tenants = registry({ worldBytes: 600_000, tenantGuaranteeBytes: 200_000 }, ['a', 'b']);
    const a = tenants.get('a');
    for (let i = 0; i < 10; i++) createAccount(a, large(`${i}`));
    const twin = failure(() => tenants.add(client('upstream-client'), undefined, { twin: true }));
    expect(twin.status).toBe(409);
    expect(twin.code).toBe('limit_reached');
    expect(twin.detail).toContain('WORLD_BYTES (600000)');
    expect(twin.detail).toMatch(/"a" \d+ \(\d+ borrowed\)/);
    expect(tenants.find('upstream-client')).toBeUndefined();
    a.reset();
    tenants.add(client('upstream-client'), undefined, { twin: true });
  });

  it('a tenant that loaded a small world and borrowed nothing is reset whatever the others hold', () => {
    const tenants = registry({ worldBytes: 400_000, tenantGuaranteeBytes: 0 }, ['a', 'b']);
    const [a, b] = [tenants.get('a'), tenants.get('b')];
    const empty = { ...a.store.snapshot(), accounts: [], wallets: [], payment_method_details: [], orders: [] };
    replaceWorld(a, empty);
    // b takes all the room no one holds, a's fixtures' bytes held for it aside
    for (let i = 0; ; i++) {
      try {
        createAccount(b, large(`${i}`));
      } catch {
        break;
      }
    }
    a.reset();
    expect(a.store.bytes).toBe(fixtures.bytes);
    expect(tenants.worldBudget!.totals.held).toBeLessThanOrEqual(400_000);
  });

  it('counts what the store says as it is written: the totals are the worlds’ bytes', () => {
    const tenants = registry({ worldBytes: 10_000_000, tenantGuaranteeBytes: 100_000 }, ['a', 'b']);
    createAccount(tenants.get('a'), large('x'));
    tenants.get('b').reset();
    const bytes = [...tenants.all()].reduce((sum, tenant) => sum + tenant.store.bytes, 0);
    expect(tenants.worldBudget!.totals.used).toBe(bytes);
  });
});

describe('a tenant removed', () => {
  it('gives back what it used and held, at once; what its store does after counts nowhere', () => {
    const budget = new WorldBudget(
      { worldBytes: 1_000_000, tenantGuaranteeBytes: 200_000, maxTenantBytes: 1_000_000 },
      50_000,
    );
    const a = budget.open('a', 50_000);
    budget.open('b', 50_000);
    a.moved(400_000);
    expect(budget.totals).toEqual({ used: 500_000, held: 650_000, free: 350_000 });
    budget.close(a);
    expect(budget.totals).toEqual({ used: 50_000, held: 200_000, free: 800_000 });
    // a write a request had begun before the removal: no room of anyone's taken, nothing refused
    a.ensureRoom(2_000_000);
    a.moved(100_000);
    budget.close(a);
    expect(budget.totals).toEqual({ used: 50_000, held: 200_000, free: 800_000 });
  });

  it('leaves the registry, its MAX_TENANTS slot and room free, and its listeners told', () => {
    const tenants = registry({ worldBytes: 400_000, tenantGuaranteeBytes: 200_000 }, ['a', 'b']);
    expect(failure(() => tenants.add(client('c'))).code).toBe('limit_reached');
    const removed: string[] = [];
    tenants.onRemove((tenant) => removed.push(tenant.client.client_id));
    tenants.remove('b');
    expect(removed).toEqual(['b']);
    expect([...tenants.all()].map((tenant) => tenant.client.client_id)).toEqual(['a']);
    expect(tenants.find('b')).toBeUndefined();
    tenants.add(client('c'));
    expect(failure(() => tenants.remove('b')).code).toBe('client_not_found');
  });
});
