import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';

// A load-test world (FIXTURE_SCALE): run by `npm run test:e2e`; test/unit/fixtures.test.ts checks scale on small worlds.
describe('generateWorld scale', () => {
  it('builds a large world', () => {
    const world = generateWorld({ seed: 1, scale: { accounts: 20_000, orders: 100_000 } });
    expect(world.accounts).toHaveLength(20_000);
    expect(world.orders).toHaveLength(100_000);
    expect(world.wallets.length).toBeGreaterThan(20_000);
    expect(world.payment_method_details.length).toBeGreaterThan(20_000);
    expect(new Set(world.wallets.map((wallet) => wallet.wallet_address.toLowerCase())).size).toBe(world.wallets.length);
  });
});
