import { describe, expect, it } from 'vitest';
import type { ClientSettings } from '../../src/api/types.js';
import { createContext } from '../../src/app.js';
import { readFreshUntil } from '../../src/domain/read-freshness.js';

// Until when a kept answer stays the bytes a read would compute (src/domain/read-freshness.ts), the world unchanged.
const T0 = Date.parse('2030-01-01T12:00:00.250Z');

function tenantWith(settings: Partial<ClientSettings>) {
  const tenant = createContext().tenants.get('sandbox-client');
  tenant.changeClock({ now: new Date(T0).toISOString(), frozen: true });
  tenant.changeSettings({ ...tenant.client.settings, ...settings });
  void tenant.store; // what is due is known once the world is read
  return tenant;
}

describe('readFreshUntil', () => {
  it('manual progression, no investors: the world alone, but for redemption dates (a day) and links (a second)', () => {
    const tenant = tenantWith({});
    expect(readFreshUntil('listOrders', tenant, T0)).toBe(Number.POSITIVE_INFINITY);
    expect(readFreshUntil('listAccounts', tenant, T0)).toBe(Number.POSITIVE_INFINITY);
    expect(readFreshUntil('getShareClass', tenant, T0)).toBe(Date.parse('2030-01-02T00:00:00.000Z'));
    expect(readFreshUntil('listFundDocuments', tenant, T0)).toBe(Date.parse('2030-01-01T12:00:01.000Z'));
  });

  it('clock progression: until the next step of any order, counted from the switch', () => {
    const tenant = tenantWith({ order_progression: 'clock', order_step_seconds: { PLACED: 7, AWAITING_PAYMENT: 120, AWAITING_TOKEN_DELIVERY: 60 } });
    expect(tenant.store.orders.some((o) => o.status === 'PLACED')).toBe(true);
    expect(tenant.progression.nextDueAt()).toBe(T0 + 7000);
    expect(readFreshUntil('listOrders', tenant, T0)).toBe(T0 + 7000);
    expect(readFreshUntil('getShareClass', tenant, T0)).toBe(T0 + 7000);
    expect(readFreshUntil('listFundDocuments', tenant, T0)).toBe(Date.parse('2030-01-01T12:00:01.000Z'));
  });

  it('polls progression: an order list is never kept (it counts), the other reads are', () => {
    const tenant = tenantWith({ order_progression: 'polls' });
    expect(readFreshUntil('listOrders', tenant, T0)).toBe(Number.NEGATIVE_INFINITY);
    expect(readFreshUntil('listAccounts', tenant, T0)).toBe(Number.POSITIVE_INFINITY);
  });

  it('investor activity: until the next investor order instant', () => {
    const tenant = tenantWith({ investor_activity_per_hour: 60 });
    const next = tenant.activity.nextInstant(60);
    expect(next).toBeGreaterThan(T0);
    expect(readFreshUntil('listOrders', tenant, T0)).toBe(next);
    expect(readFreshUntil('listAccounts', tenant, T0)).toBe(next);
    expect(tenant.activity.nextInstant(0)).toBe(Number.POSITIVE_INFINITY);
  });
});
