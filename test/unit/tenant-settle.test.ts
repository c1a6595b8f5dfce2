import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { toClientRecord } from '../../src/domain/clients.js';
import { Fixtures, Tenant } from '../../src/domain/tenants.js';

// Reading a tenant's world never writes it; what its clock implies is taken by one explicit call.
const fixtures = new Fixtures(generateWorld({ seed: 7 }), 7);

function busyTenant(): Tenant {
  const tenant = new Tenant(toClientRecord({ client_id: 'settle-test', client_secret: 's' }), fixtures);
  // one frozen instant for every tenant of a test: their worlds then differ only by what the calls do
  tenant.changeClock({ now: '2030-01-01T00:00:00.000Z', frozen: true });
  tenant.changeSettings({ ...tenant.client.settings, order_progression: 'clock', investor_activity_per_hour: 120 });
  return tenant;
}

const statuses = (tenant: Tenant): string[] => tenant.store.orders.map((order) => order.status);

describe('a tenant whose clock implies steps', () => {
  it('keeps its world as it is however often it is read, and takes what came due at settle()', () => {
    const tenant = busyTenant();
    const before = { orders: tenant.store.orders.length, statuses: statuses(tenant), version: tenant.store.version };
    tenant.clock.advance(6 * 3600);
    for (let i = 0; i < 3; i++)
      expect({ orders: tenant.store.orders.length, statuses: statuses(tenant), version: tenant.store.version }).toEqual(
        before,
      );
    tenant.settle();
    expect(tenant.store.orders.length).toBeGreaterThan(before.orders);
    expect(statuses(tenant).slice(0, before.orders)).not.toEqual(before.statuses);
    expect(tenant.store.version).toBeGreaterThan(before.version);
  });

  it('answers the same world for one settle after a long jump as for a settle after each of many small steps', () => {
    const once = busyTenant();
    const stepwise = busyTenant();
    once.clock.advance(3 * 3600);
    once.settle();
    for (let i = 0; i < 36; i++) {
      stepwise.clock.advance(300);
      stepwise.settle();
    }
    expect(stepwise.store.snapshot()).toEqual(once.store.snapshot());
  });
});
