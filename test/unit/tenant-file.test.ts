import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { toClientRecord } from '../../src/domain/clients.js';
import { Fixtures, Tenant } from '../../src/domain/tenants.js';
import { TENANT_FILE_FORMAT, tenantFileParts, tenantFileText } from '../../src/persistence/tenant-file.js';

// A tenant file is made in pieces (persistence/state-writer.ts gives the event loop back between them): joined, they
// must be the same JSON as the tenant serialized in one step, whatever the size of its collections.
describe('a tenant file in pieces', () => {
  // a frozen clock's offset from real time moves with real time: real time stands still here
  beforeEach(() => void vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 0, 1)));
  afterEach(() => vi.restoreAllMocks());
  const tenantOf = (world: ReturnType<typeof generateWorld>) => {
    const tenant = new Tenant(toClientRecord({ client_id: 'pieces', client_secret: 's' }), new Fixtures(world));
    tenant.faults.add({ path: '/v1/orders/*', status: 503, count: 2 });
    tenant.clock.freeze();
    return tenant;
  };
  const whole = (tenant: Tenant, sequence: number) => ({
    format: TENANT_FILE_FORMAT,
    sequence,
    client: tenant.client,
    clock_offset_ms: tenant.clock.offset,
    clock_frozen_at_ms: tenant.clock.frozenAt,
    faults: tenant.faults.exportState(),
    world: tenant.store.snapshotView(),
    progression: tenant.progression.exportState(),
    activity: tenant.activity.exportState(),
  });

  it.each([
    ['the default world (every collection in one piece)', undefined],
    [
      'a world of 1,201 accounts and 1,000 orders (several pieces a collection, one of 1)',
      { accounts: 1201, orders: 1000 },
    ],
  ])('%s: joined, the pieces are the tenant as JSON', (_name, scale) => {
    const tenant = tenantOf(generateWorld({ seed: 3, ...(scale && { scale }) }));
    const parts = [...tenantFileParts(tenant, 4)];
    if (scale) expect(parts.length).toBeGreaterThan(10);
    expect(JSON.parse(parts.join(''))).toEqual(JSON.parse(JSON.stringify(whole(tenant, 4))));
    expect(tenantFileText(tenant, 4)).toBe(parts.join(''));
  });

  it('an empty collection is an empty array', () => {
    const world = generateWorld({ seed: 3 });
    const tenant = tenantOf({ ...world, orders: [], wallets: [] });
    const parsed = JSON.parse(tenantFileText(tenant, 0));
    expect(parsed.world.orders).toEqual([]);
    expect(parsed.world.wallets).toEqual([]);
  });
});
