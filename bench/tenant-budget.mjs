#!/usr/bin/env -S node --expose-gc
// What a full tenant costs under the memory budgets (docs/configuration.md; issue 38 item 4), and the
// figures the defaults rest on:
//
//   npm run build && node --expose-gc bench/tenant-budget.mjs
//
// world:    TENANTS tenants (default 20) each filled with account creates until MAX_TENANT_BYTES (1 MiB here) answers
//           409: heap and RSS per full tenant, and heap per byte the budget counts (src/domain/budgets.ts assumes at
//           most WORLD_HEAP_PER_JSON_BYTE)
// journal:  TENANTS tenants each sending requests until its journal is at JOURNAL_BYTES (4 MiB here), typical mix and
//           bodies at the 8 KiB cut: heap (with Buffers) and RSS per full journal, and per byte the budget counts
// 900 KB:   one tenant sending CREATES (default 300) account creates of 900 KB with MAX_TENANTS=10 (alone, it may
//           borrow all of WORLD_BYTES, a tenth of the heap limit since issue 45: ~414 MB on a 4 GB heap): how many
//           are created, how many refused, RSS before and after
// small:    10,000 entries of a 404 answer and no request body: an entry's fixed cost (JOURNAL_ENTRY_OVERHEAD_BYTES)
// row:      issue 38's row, 30 tenants × 1,000 account creates of 8 KB, with the defaults and JOURNAL_TOTAL_BYTES=128 MiB
//
// Each part runs in a child process of its own against dist/ on loopback; figures after a full GC, minus the same
// process before the load. On this Node, then Node 24 (bench/lib.mjs). Knobs: TENANTS, CREATES, ROW_TENANTS, ROW_CREATES, BENCH_NODE24=0.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dist, onThisNodeAndNode24, requireBuild } from './lib.mjs';

const MB = 1024 * 1024;
const TENANTS = Number(process.env.TENANTS ?? 20);
const CREATES = Number(process.env.CREATES ?? 300);
const WORLD_BYTES = 1024 * 1024;
const JOURNAL_BYTES = 4 * 1024 * 1024;

const settled = () => {
  for (let i = 0; i < 3; i++) globalThis.gc();
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
  return { heap: heapUsed + arrayBuffers, rss };
};
const delta = (after, before) => ({ heap: after.heap - before.heap, rss: after.rss - before.rss });

async function fakeWith(options) {
  const { startServer } = await import(dist.index);
  const clients = Array.from({ length: TENANTS }, (_, i) => ({ client_id: `tenant-${i}`, client_secret: 'secret' }));
  const fake = await startServer({ clients, maxTenants: Math.max(TENANTS, options.maxTenants ?? 0), ...options });
  const auth = async (clientId) => ({
    authorization: `Bearer ${await fake.token(clientId)}`,
    'content-type': 'application/json',
  });
  return { fake, auth };
}

/** Sends `next()`'s requests with 8 at a time until `done()`. */
async function drive(next, done) {
  const worker = async () => {
    while (!done()) await (await next()).arrayBuffer();
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

const account = (i) => ({
  type: 'individual',
  first_name: `Ada ${i}`,
  last_name: 'Lovelace',
  country: 'DE',
  city: 'Berlin',
  line1: `Unter den Linden ${i}`,
  postal_code: '10117',
  external_id: `ext-${i}`,
});

/** Fills a tenant's world with account creates until MAX_TENANT_BYTES answers 409. */
async function fill(fake, headers) {
  let full = false;
  let i = 0;
  await drive(
    () =>
      fetch(`${fake.url}/v1/accounts`, { method: 'POST', headers, body: JSON.stringify(account(i++)) }).then((r) => {
        if (r.status === 409) full = true;
        return r;
      }),
    () => full,
  );
}

async function world() {
  const { fake, auth } = await fakeWith({ maxTenantBytes: WORLD_BYTES });
  // warm-up: compiled validators, caches, the allocator's pages; then that tenant back to its fixtures
  await fill(fake, await auth('tenant-0'));
  fake.reset('tenant-0');
  fake.clearRequests();
  const start = (await fake.control.usage()).totals.world_bytes;
  const before = settled();
  let half;
  for (let t = 0; t < TENANTS; t++) {
    if (t === TENANTS / 2) {
      fake.clearRequests();
      half = settled();
    }
    await fill(fake, await auth(`tenant-${t}`));
  }
  fake.clearRequests();
  const usage = await fake.control.usage();
  const after = settled();
  await fake.stop();
  // what the tenants grew by: each started from the default world, which the figure before the load holds already;
  // RSS also keeps what the load's garbage made the heap grow to, once: the second half of the tenants shows the margin
  return {
    part: 'world',
    tenants: TENANTS,
    budget: WORLD_BYTES,
    counted: usage.totals.world_bytes - start,
    ...delta(after, before),
    marginalRss: (after.rss - half.rss) / (TENANTS / 2),
  };
}

async function journal() {
  const { fake, auth } = await fakeWith({
    journalBytes: JOURNAL_BYTES,
    journalTotalBytes: 1024 * MB,
    maxTenantBytes: 64 * MB,
  });
  const headers = await auth('tenant-0');
  // warm-up: compiled validators, caches, the allocator's pages; then every journal emptied
  const accountId = fake.state('tenant-0').accounts[0].id;
  const calls = (h) => [
    () => fetch(`${fake.url}/v1/orders?limit=100`, { headers: h }),
    () => fetch(`${fake.url}/v1/share-classes`, { headers: h }),
    () =>
      fetch(`${fake.url}/v1/accounts/${accountId}`, {
        method: 'PATCH',
        headers: h,
        body: JSON.stringify({ first_name: 'x'.repeat(9000) }),
      }),
    () =>
      fetch(`${fake.url}/v1/accounts/${accountId}`, {
        method: 'PATCH',
        headers: h,
        body: JSON.stringify({ first_name: 'Ada' }),
      }),
  ];
  let n = 0;
  await drive(
    () => calls(headers)[n++ % 4](),
    () => n >= 2000,
  );
  fake.clearRequests();
  const before = settled();
  for (let t = 0; t < TENANTS; t++) {
    const clientId = `tenant-${t}`;
    const h = await auth(clientId);
    const own = fake.state(clientId).accounts[0].id;
    const mix = [
      () => fetch(`${fake.url}/v1/orders?limit=100`, { headers: h }),
      () => fetch(`${fake.url}/v1/share-classes`, { headers: h }),
      () =>
        fetch(`${fake.url}/v1/accounts/${own}`, {
          method: 'PATCH',
          headers: h,
          body: JSON.stringify({ first_name: 'x'.repeat(9000) }),
        }),
      () =>
        fetch(`${fake.url}/v1/accounts/${own}`, {
          method: 'PATCH',
          headers: h,
          body: JSON.stringify({ first_name: 'Ada' }),
        }),
    ];
    let sent = 0;
    // past the budget by a third: the ring is full and has let its oldest go
    await drive(
      () => mix[sent++ % 4](),
      () => sent >= 4 * Math.ceil(JOURNAL_BYTES / 8192 / 3),
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 200)); // the last entries are journaled on `close`
  const usage = await fake.control.usage();
  const cost = delta(settled(), before);
  await fake.stop();
  return {
    part: 'journal',
    tenants: TENANTS,
    budget: JOURNAL_BYTES,
    counted: usage.totals.journal_bytes,
    entries: usage.totals.journal_entries,
    ...cost,
  };
}

async function bigCreates() {
  const { startServer } = await import(dist.index);
  const fake = await startServer({ maxTenants: 10 });
  const headers = { authorization: `Bearer ${await fake.token()}`, 'content-type': 'application/json' };
  const limit = (await fake.control.usage()).budgets.tenant_bytes.limit;
  const before = settled();
  const statuses = {};
  let sent = 0;
  let peakRss = 0;
  await drive(
    () =>
      fetch(`${fake.url}/v1/accounts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'individual', first_name: 'x'.repeat(900_000) }),
      }).then((r) => {
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
        return r;
      }),
    () => sent++ >= CREATES,
  );
  const after = settled();
  await fake.stop();
  return { part: '900 KB creates', budget: limit, statuses, ...delta(after, before), peakRss: peakRss - before.rss };
}

async function overhead() {
  const { fake, auth } = await fakeWith({ journalSize: 20_000, journalBytes: 1024 * MB, journalTotalBytes: 1024 * MB });
  const headers = await auth('tenant-0');
  let n = 0;
  // a small answer (a 404 problem) and no request body: what an entry costs besides its bodies
  const health = () => fetch(`${fake.url}/v1/share-classes/XX0000000000`, { headers });
  await drive(health, () => n++ >= 2000);
  fake.clearRequests();
  const before = settled();
  n = 0;
  await drive(health, () => n++ >= 10_000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const usage = await fake.control.usage();
  await fake.control.forClient('tenant-0').requests({ since: 'start' }); // the entry views, made on first read
  const cost = delta(settled(), before);
  await fake.stop();
  return {
    part: 'entry overhead',
    entries: usage.totals.journal_entries,
    counted: usage.totals.journal_bytes,
    ...cost,
  };
}

/**
 * Issue 38's row: ROW_TENANTS tenants (30) each sending ROW_CREATES (1,000) account creates with 8 KB bodies, with the
 * default budgets and then with JOURNAL_TOTAL_BYTES=128 MiB: what the worlds and journals hold, and the RSS.
 */
async function row(journalTotalBytes) {
  const tenants = Number(process.env.ROW_TENANTS ?? 30);
  const creates = Number(process.env.ROW_CREATES ?? 1000);
  const { startServer } = await import(dist.index);
  const clients = Array.from({ length: tenants }, (_, i) => ({ client_id: `row-${i}`, client_secret: 'secret' }));
  const fake = await startServer({ clients, ...(journalTotalBytes && { journalTotalBytes }) });
  const before = settled();
  const statuses = {};
  for (const { client_id } of clients) {
    const headers = { authorization: `Bearer ${await fake.token(client_id)}`, 'content-type': 'application/json' };
    let sent = 0;
    await drive(
      () =>
        fetch(`${fake.url}/v1/accounts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ type: 'individual', first_name: 'x'.repeat(8000) }),
        }).then((r) => {
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          return r;
        }),
      () => sent++ >= creates,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const usage = await fake.control.usage();
  const cost = delta(settled(), before);
  await fake.stop();
  return {
    part: 'row',
    tenants,
    creates,
    statuses,
    journalTotal: usage.budgets.journal_total_bytes,
    worldBytes: usage.totals.world_bytes,
    ...cost,
  };
}

const PARTS = { world, journal, bigCreates, overhead, row: () => row(undefined), rowCapped: () => row(128 * MB) };

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await PARTS[process.argv[3]]()));
} else {
  requireBuild();
  await onThisNodeAndNode24(async (node, version) => {
    const { heap_size_limit: heapLimit } = JSON.parse(
      execFileSync(node, ['-p', 'JSON.stringify(require("v8").getHeapStatistics())'], { encoding: 'utf8' }),
    );
    console.log(`\n## ${version}: heap limit ${(heapLimit / MB).toFixed(0)} MB\n`);
    const rows = Object.keys(PARTS).map((part) =>
      JSON.parse(
        execFileSync(node, ['--expose-gc', fileURLToPath(import.meta.url), '--child', part], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ),
    );
    const [w, j, big, o, r, rc] = rows;
    console.log(
      '| what | budget | counted (MB) | heap (MB) | RSS (MB) | heap per counted byte | per tenant: heap / RSS (MB) |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const r of [w, j]) {
      console.log(
        `| ${r.part}: ${r.tenants} tenants full | ${(r.budget / MB).toFixed(0)} MiB each | ${(r.counted / MB).toFixed(1)} | ${(r.heap / MB).toFixed(1)} | ${(r.rss / MB).toFixed(1)} | ${(r.heap / r.counted).toFixed(2)} | ${(r.heap / r.tenants / MB).toFixed(2)} / ${(r.rss / r.tenants / MB).toFixed(2)} |`,
      );
    }
    console.log(`\nworld, the second half of the tenants: RSS ${(w.marginalRss / MB).toFixed(2)} MB per full tenant`);
    console.log(
      `small entries (no request body, a 404 problem answered, entry views made): ${o.entries}, ${(o.heap / o.entries).toFixed(0)} bytes of heap each, counted ${(o.counted / o.entries).toFixed(0)}`,
    );
    for (const x of [r, rc]) {
      console.log(
        `${x.tenants} tenants × ${x.creates} creates of 8 KB, JOURNAL_TOTAL_BYTES ${(x.journalTotal.limit / MB).toFixed(0)} MiB: ${JSON.stringify(x.statuses)}; ` +
          `journals hold ${(x.journalTotal.used / MB).toFixed(1)} MB, worlds ${(x.worldBytes / MB).toFixed(1)} MB; heap +${(x.heap / MB).toFixed(1)} MB, RSS +${(x.rss / MB).toFixed(1)} MB (${(x.rss / x.tenants / MB).toFixed(1)} MB a tenant)`,
      );
    }
    console.log(
      `900 KB creates, one tenant, MAX_TENANTS=10 (MAX_TENANT_BYTES ${(big.budget / MB).toFixed(1)} MB by default): ${JSON.stringify(big.statuses)}; heap +${(big.heap / MB).toFixed(1)} MB, RSS +${(big.rss / MB).toFixed(1)} MB after, peak +${(big.peakRss / MB).toFixed(1)} MB`,
    );
  });
}
