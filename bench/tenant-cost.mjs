#!/usr/bin/env -S node --expose-gc
// What a tenant costs in memory, to choose MAX_TENANTS and MAX_RECORDS_PER_TENANT (issue 9, item 6).
//
//   npm run build && node --expose-gc bench/tenant-cost.mjs
//
// Knobs: TENANTS (clients created, default 500), ORDERS (orders placed in one tenant, default 20000), ACCOUNTS
// (accounts with a wallet and a payment method created in one tenant, default 5000). Runs in-process against dist/,
// with the fake on loopback; heap after a full GC is the figure, RSS is shown beside it.
import { dist, requireBuild } from './lib.mjs';

requireBuild();
if (typeof globalThis.gc !== 'function') throw new Error('Run with node --expose-gc.');
const TENANTS = Number(process.env.TENANTS ?? 500);
const ORDERS = Number(process.env.ORDERS ?? 20_000);
const ACCOUNTS = Number(process.env.ACCOUNTS ?? 5_000);

const { startServer } = await import(dist.index);
const MB = 1024 * 1024;

function settled() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

const fake = await startServer({ maxTenants: TENANTS + 10, maxRecordsPerTenant: ORDERS + ACCOUNTS * 3 + 1000 });
const control = (path, body) =>
  fetch(`${fake.url}/__control${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

// Tenants: each a fresh copy of the default world (10 accounts, 30 orders…), its clock, faults and client.
const beforeTenants = settled();
for (let i = 0; i < TENANTS; i++) {
  const response = await control('/clients', { client_id: `bench-${i}`, client_secret: 'bench' });
  if (response.status !== 201) throw new Error(`client ${i}: ${response.status} ${await response.text()}`);
}
const afterTenants = settled();
const perTenant = (afterTenants.heapUsed - beforeTenants.heapUsed) / TENANTS;
const perTenantRss = (afterTenants.rss - beforeTenants.rss) / TENANTS;

// Records: orders placed through the library (the same domain function as POST /__control/orders).
const world = fake.state('bench-0');
const buyer =
  world.orders.find((o) => o.status === 'PLACED' && o.side === 'BUY' && o.market === 'PRIMARY') ?? world.orders[0];
const placement = {
  account_id: buyer.account_id,
  isin: buyer.isin,
  side: buyer.side,
  market: buyer.market,
  amount_of_units: 1,
  value: 100_000_000,
};
const beforeOrders = settled();
for (let i = 0; i < ORDERS; i++) fake.placeOrderSync(placement, 'bench-0');
const afterOrders = settled();
const perOrder = (afterOrders.heapUsed - beforeOrders.heapUsed) / ORDERS;

// Accounts with one wallet and one payment method each, over HTTP as a partner creates them.
const token = await fake.token('bench-1');
const beforeAccounts = settled();
for (let i = 0; i < ACCOUNTS; i++) {
  const address = `0x${i.toString(16).padStart(40, '0')}`;
  const response = await fetch(`${fake.url}/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'individual',
      first_name: 'Bench',
      last_name: `Account ${i}`,
      country: 'DE',
      city: 'Berlin',
      wallets: [{ chain: 'polygon', wallet_address: address, is_primary: true }],
      payment_methods: [
        { type: 'sepa', iban: 'DE89370400440532013000', account_holder_name: 'Bench', is_primary: true },
      ],
    }),
  });
  if (response.status !== 201) throw new Error(`account ${i}: ${response.status} ${await response.text()}`);
}
const afterAccounts = settled();
const perAccountRecord = (afterAccounts.heapUsed - beforeAccounts.heapUsed) / (ACCOUNTS * 3);
await fake.stop();

if (process.argv.includes('--json')) {
  console.log(
    JSON.stringify({
      node: process.version,
      tenants: TENANTS,
      orders: ORDERS,
      accounts: ACCOUNTS,
      perTenant,
      perTenantRss,
      perOrder,
      perAccountRecord,
      worldAccounts: world.accounts.length,
      worldOrders: world.orders.length,
    }),
  );
  process.exit(0);
}
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const perRecord = Math.max(perOrder, perAccountRecord);
console.log(`node ${process.version}, heap after full GC (RSS beside it)`);
console.log(
  `tenant (default world: ${world.accounts.length} accounts, ${world.orders.length} orders…): ${kb(perTenant)} heap, ${kb(perTenantRss)} RSS each (${TENANTS} created)`,
);
console.log(`order record: ${kb(perOrder)} heap each (${ORDERS} placed in one tenant)`);
console.log(
  `account+wallet+payment-method record: ${kb(perAccountRecord)} heap per record (${ACCOUNTS} accounts created over HTTP)`,
);
console.log(`MAX_TENANTS 1000 × tenant: ${((perTenant * 1000) / MB).toFixed(0)} MB`);
console.log(
  `MAX_RECORDS_PER_TENANT 100000 × record: ${((perRecord * 100_000) / MB).toFixed(0)} MB for one full tenant`,
);
