#!/usr/bin/env node
// The budgets sized to the use (issue 45): a default fake holding a large world, and a shared sandbox
// filled by one partner while another writes.
//
//   npm run build && node bench/sized-to-the-use.mjs [--quick] [--json]
//
// orders:   the CLI with its defaults and FIXTURE_ORDERS=100000: time to healthy, heap (GET /__control/usage) and RSS,
//           then GET /v1/orders?limit=100 through the whole world (skip drawn), and filtered by account_id: p50/p99
// accounts: the CLI with its defaults: 12,000 POST /v1/accounts one after another (before issue 45: 409 after ~1,900):
//           statuses, time, heap and RSS after
// shared:   the CLI with WORLD_BYTES=64 MiB and MAX_TENANTS=4 (16 MiB guaranteed each), two partners: "writer" creates
//           small accounts one after another, alone, then while "filler" sends 100 KB creates (4 in flight) until
//           WORLD_BYTES refuses it and goes on sending: the writer's statuses (every one 201: it is within its
//           guarantee) and p50/p99 each time, the filler's statuses, the room as GET /__control/usage shows it
//
// Each part in a CLI process of its own on loopback, requests one after another on one keep-alive connection from
// this process (the filler on its own connections). `--quick`: fewer requests; figures not for RESULTS.md.
import { fetchToken, json, percentile, progress, request, requireBuild, rssOf, startCli } from './lib.mjs';
import http from 'node:http';

const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const AS_JSON = process.argv.includes('--json');
const MB = 1024 * 1024;
const READS = QUICK ? 100 : 500;
const ACCOUNTS = QUICK ? 2_000 : 12_000;
const WRITES = QUICK ? 200 : 1_000;

/** A small seeded generator, so two runs ask the same questions. */
function lcg(seed) {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

const stats = (times) => ({
  n: times.length,
  p50: percentile(times, 50),
  p99: percentile(times, 99),
  max: Math.max(...times),
});
const count = (statuses, status) => (statuses[status] = (statuses[status] ?? 0) + 1);

async function usageOf(url) {
  return json(await request(`${url}/__control/usage`));
}

/** What a CLI process holds now: heap as it says, RSS as the system says. */
async function memoryOf(fake) {
  const usage = await usageOf(fake.url);
  return {
    heapMB: usage.heap.used_bytes / MB,
    heapLimitMB: usage.heap.limit_bytes / MB,
    rssMB: rssOf(fake.pid).rss,
    worldMB: usage.world.used_bytes / MB,
    worldLimitMB: usage.world.limit_bytes / MB,
  };
}

async function ordersWorld() {
  progress('orders: starting the CLI with FIXTURE_ORDERS=100000…');
  const fake = await startCli({ env: { FIXTURE_ORDERS: '100000' }, timeoutMs: 600_000 });
  try {
    const headers = { authorization: `Bearer ${await fetchToken(fake.url)}` };
    const memory = await memoryOf(fake);
    const pick = lcg(45);
    const get = async (path) => {
      const response = await request(`${fake.url}${path}`, { headers });
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
      return response;
    };
    const accounts = [...new Set(json(await get('/v1/orders?limit=1000')).data.map((o) => o.account_id))];
    const measure = async (path) => {
      for (let i = 0; i < 20; i++) await get(path());
      const times = [];
      for (let i = 0; i < READS; i++) times.push((await get(path())).ms);
      return stats(times);
    };
    const page = await measure(() => `/v1/orders?limit=100&skip=${pick(99_900)}`);
    const byAccount = await measure(() => `/v1/orders?limit=100&account_id=${accounts[pick(accounts.length)]}`);
    const after = await memoryOf(fake);
    return { startupMs: fake.startupMs, memory, after, page, byAccount };
  } finally {
    await fake.stop();
  }
}

async function manyAccounts() {
  progress(`accounts: ${ACCOUNTS} POST /v1/accounts on a default fake…`);
  const fake = await startCli();
  try {
    const headers = { authorization: `Bearer ${await fetchToken(fake.url)}`, 'content-type': 'application/json' };
    const statuses = {};
    const times = [];
    const start = performance.now();
    for (let i = 0; i < ACCOUNTS; i++) {
      const response = await request(`${fake.url}/v1/accounts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          type: 'individual',
          first_name: `Investor ${i}`,
          last_name: 'Lovelace',
          city: 'London',
        }),
      });
      count(statuses, response.status);
      times.push(response.ms);
    }
    const seconds = (performance.now() - start) / 1000;
    const usage = await usageOf(fake.url);
    const own = usage.tenants.find((row) => row.client_id === 'sandbox-client');
    return { statuses, seconds, create: stats(times), memory: await memoryOf(fake), tenant: own };
  } finally {
    await fake.stop();
  }
}

/** The filler: `inFlight` loops of 100 KB account creates on their own connections, until `stop()`. */
function filler(url, headers, inFlight) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const statuses = {};
  let running = true;
  let firstRefusal;
  const body = (i) => JSON.stringify({ type: 'individual', first_name: `filler ${i}`.padEnd(100_000, '.') });
  let sent = 0;
  const send = () =>
    new Promise((resolve, reject) => {
      const payload = body(sent++);
      const req = http.request(
        `${url}/v1/accounts`,
        { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(payload) }, agent },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.once('end', () => {
            count(statuses, res.statusCode);
            if (res.statusCode === 409 && !firstRefusal)
              firstRefusal = JSON.parse(Buffer.concat(chunks).toString()).detail;
            resolve();
          });
        },
      );
      req.once('error', reject);
      req.end(payload);
    });
  const loops = Array.from({ length: inFlight }, async () => {
    while (running) await send();
  });
  return {
    statuses,
    get refused() {
      return (statuses[409] ?? 0) > 0;
    },
    get firstRefusal() {
      return firstRefusal;
    },
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

async function sharedSandbox() {
  progress('shared: WORLD_BYTES=64 MiB, MAX_TENANTS=4, one partner filling it while another writes…');
  const clients = [
    { client_id: 'writer', client_secret: 'writer-secret' },
    { client_id: 'filler', client_secret: 'filler-secret' },
  ];
  const fake = await startCli({
    env: { CLIENTS: JSON.stringify(clients), WORLD_BYTES: String(64 * MB), MAX_TENANTS: '4' },
  });
  try {
    const auth = async (i) => ({
      authorization: `Bearer ${await fetchToken(fake.url, { clientId: clients[i].client_id, clientSecret: clients[i].client_secret })}`,
      'content-type': 'application/json',
    });
    const [writer, fill] = [await auth(0), await auth(1)];
    let n = 0;
    const writes = async (count_) => {
      const statuses = {};
      const times = [];
      for (let i = 0; i < count_; i++) {
        const response = await request(`${fake.url}/v1/accounts`, {
          method: 'POST',
          headers: writer,
          body: JSON.stringify({ type: 'individual', first_name: `Writer ${n++}` }),
        });
        count(statuses, response.status);
        times.push(response.ms);
      }
      return { statuses, ...stats(times) };
    };
    const alone = await writes(WRITES);
    const load = filler(fake.url, fill, 4);
    const whileFilling = await writes(WRITES);
    // until the filler is refused, then as long again while it keeps sending refused creates
    while (!load.refused) await new Promise((resolve) => setTimeout(resolve, 50));
    const whileRefused = await writes(WRITES);
    await load.stop();
    const usage = await usageOf(fake.url);
    const row = (id) => usage.tenants.find((r) => r.client_id === id);
    return {
      alone,
      whileFilling,
      whileRefused,
      filler: load.statuses,
      firstRefusal: load.firstRefusal,
      world: usage.world,
      writer: row('writer'),
      fillerRow: row('filler'),
      memory: await memoryOf(fake),
    };
  } finally {
    await fake.stop();
  }
}

requireBuild();
const results = {
  node: process.version,
  quick: QUICK,
  orders: await ordersWorld(),
  accounts: await manyAccounts(),
  shared: await sharedSandbox(),
};
if (AS_JSON) console.log(JSON.stringify(results, null, 2));

const ms = (s) => `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)} ms`;
const mb = (x) => `${x.toFixed(1)} MB`;
const { orders, accounts, shared } = results;
console.log(`Node ${results.node}${QUICK ? ' (quick: not for RESULTS.md)' : ''}`);
console.log(
  `orders:   FIXTURE_ORDERS=100000, defaults: healthy in ${(orders.startupMs / 1000).toFixed(1)} s; world ${mb(orders.memory.worldMB)} counted of WORLD_BYTES ${mb(orders.memory.worldLimitMB)}; heap ${mb(orders.memory.heapMB)} of ${mb(orders.memory.heapLimitMB)}, RSS ${mb(orders.memory.rssMB)} (after the reads: heap ${mb(orders.after.heapMB)}, RSS ${mb(orders.after.rssMB)})`,
);
console.log(
  `          GET /v1/orders?limit=100&skip=<drawn> p50/p99 ${ms(orders.page)}; &account_id=<drawn> ${ms(orders.byAccount)} (${orders.page.n} each)`,
);
console.log(
  `accounts: ${ACCOUNTS} creates on a default fake: ${JSON.stringify(accounts.statuses)} in ${accounts.seconds.toFixed(1)} s (p50/p99 ${ms(accounts.create)}); world ${mb(accounts.tenant.world_bytes / MB)} (guarantee ${(accounts.tenant.guarantee_bytes / 1024).toFixed(0)} KiB, borrowed ${mb(accounts.tenant.borrowed_bytes / MB)}); heap ${mb(accounts.memory.heapMB)}, RSS ${mb(accounts.memory.rssMB)}`,
);
console.log(
  `shared:   writer alone ${JSON.stringify(shared.alone.statuses)} ${ms(shared.alone)}; while filled ${JSON.stringify(shared.whileFilling.statuses)} ${ms(shared.whileFilling)}; while the filler is refused ${JSON.stringify(shared.whileRefused.statuses)} ${ms(shared.whileRefused)}`,
);
console.log(
  `          filler ${JSON.stringify(shared.filler)}; world used ${mb(shared.world.used_bytes / MB)}, held ${mb(shared.world.held_bytes / MB)} of ${mb(shared.world.limit_bytes / MB)}; filler borrowed ${mb(shared.fillerRow.borrowed_bytes / MB)}, writer ${mb(shared.writer.world_bytes / MB)} of its ${mb(shared.writer.guarantee_bytes / MB)}; RSS ${mb(shared.memory.rssMB)}`,
);
console.log(`          the filler's first refusal: ${shared.firstRefusal}`);
