// Orders that move by themselves (issue 18): what progression costs a list of 100k orders. The same world (FIXTURE_ORDERS
// / FIXTURE_ACCOUNTS) is asked the same questions in each mode, one request after another on one keep-alive
// connection, rounds interleaved so the machine's noise falls on every mode alike:
//   manual      the default: progression must cost one comparison a read
//   clock       clock progression on a running clock: 100k orders take their steps as real time passes
//   clock+jump  a frozen clock moved 1 s before each request (untimed): every read settles the steps that second holds,
//               the worst case of a test driving the clock
//   activity    clock progression and 3,600 investor orders an hour on a running clock
//   baseline    (with --baseline=<dist root of an earlier build>) the manual mode of a build without progression
// Usage: node bench/progression.mjs [--quick] [--baseline=/path/to/other/dist]   (after `npm run build`)
import { fileURLToPath } from 'node:url';
import { benchConfig, dist, fetchToken, json, percentile, progress, request, requireBuild, startCli } from './lib.mjs';

const STATUSES = ['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'];

function lcg(seed) {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

/** A fake in its own process, and how to ask it questions. */
async function startFake(config, cli) {
  const fake = await startCli({
    env: {
      FIXTURE_ORDERS: String(config.scaleOrders),
      FIXTURE_ACCOUNTS: String(config.scaleAccounts),
      LOG_LEVEL: 'silent',
    },
    timeoutMs: 600_000,
    stdio: ['ignore', 'ignore', 'inherit'],
    ...(cli && { cli }),
  });
  let headers = { authorization: `Bearer ${await fetchToken(fake.url)}` };
  const call = async (method, path, body) => {
    const r = await request(fake.url + path, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
    return r;
  };
  return { fake, call, renewToken: async () => (headers = { authorization: `Bearer ${await fetchToken(fake.url)}` }) };
}

/** The question shapes of bench/scale.mjs that a polling partner asks, values drawn from the world. */
async function shapesOf(call, orders) {
  const accountIds = new Set();
  for (let skip = 0; skip < orders; skip += Math.max(1000, Math.floor(orders / 8))) {
    for (const order of json(await call('GET', `/v1/orders?skip=${skip}&limit=1000`)).data)
      accountIds.add(order.account_id);
  }
  const ids = [...accountIds];
  const pick = lcg(42);
  const deepSkip = Math.floor(orders * 0.9);
  return [
    { label: 'GET /v1/orders (first page of 100)', path: () => '/v1/orders' },
    { label: 'by account_id', path: () => `/v1/orders?account_id=${ids[pick(ids.length)]}` },
    { label: 'by order_status', path: () => `/v1/orders?order_status=${STATUSES[pick(STATUSES.length)]}` },
    { label: `deep skip (skip=${deepSkip})`, path: () => `/v1/orders?skip=${deepSkip}` },
  ];
}

/** Times `n` requests of each shape; `before` runs (untimed) before each request. */
async function measure(call, shapes, n, before = async () => {}) {
  const out = {};
  for (const shape of shapes) {
    const times = [];
    for (let i = 0; i < n; i++) {
      await before();
      const r = await call('GET', shape.path());
      times.push(r.ms);
    }
    out[shape.label] = times;
  }
  return out;
}

export async function measureProgression(config = benchConfig(), baselineRoot) {
  requireBuild();
  const n = config.quick ? 40 : 150;
  const rounds = config.quick ? 1 : 3;
  progress(
    `progression: ${config.scaleOrders} orders, ${config.scaleAccounts} accounts, ${n} requests per shape and mode, ${rounds} round(s)`,
  );
  const current = await startFake(config);
  const modes = {};
  const add = (mode, results) => {
    modes[mode] ??= {};
    for (const [label, times] of Object.entries(results)) (modes[mode][label] ??= []).push(...times);
  };
  let baseline;
  try {
    if (baselineRoot) baseline = await startFake(config, `${baselineRoot}/src/cli.js`);
    const shapes = await shapesOf(current.call, config.scaleOrders);
    const settings = (s) => current.call('PATCH', '/__control/clients/sandbox-client', { settings: s });
    // warm-up, untimed: both processes' code paths compiled before anything counts
    await measure(current.call, shapes, 30);
    if (baseline) await measure(baseline.call, shapes, 30);
    for (let round = 1; round <= rounds; round++) {
      progress(`progression round ${round}: manual`);
      await settings({ order_progression: 'manual', investor_activity_per_hour: 0 });
      await current.call('POST', '/__control/clock', { frozen: false });
      add('manual', await measure(current.call, shapes, n));
      if (baseline) {
        progress(`progression round ${round}: baseline`);
        add('baseline (no progression)', await measure(baseline.call, shapes, n));
      }
      progress(`progression round ${round}: clock`);
      await settings({ order_progression: 'clock' });
      add('clock', await measure(current.call, shapes, n));
      progress(`progression round ${round}: clock+jump`);
      await current.call('POST', '/__control/clock', { frozen: true });
      add(
        'clock+jump (1 s a request)',
        await measure(current.call, shapes, n, () => current.call('POST', '/__control/clock', { advance_seconds: 1 })),
      );
      await current.call('POST', '/__control/clock', { frozen: false });
      progress(`progression round ${round}: activity`);
      await settings({ investor_activity_per_hour: 3600 });
      add('clock + 3,600 investor orders/h', await measure(current.call, shapes, n));
      // a token lives on the tenant's clock, which the jumps moved
      await current.renewToken();
    }
    const table = [];
    for (const [mode, byShape] of Object.entries(modes)) {
      for (const [label, times] of Object.entries(byShape))
        table.push({
          mode,
          shape: label,
          n: times.length,
          p50: percentile(times, 50),
          p99: percentile(times, 99),
          max: Math.max(...times),
        });
    }
    const completed = json(await current.call('GET', '/v1/orders?order_status=COMPLETED&limit=1')).data.length;
    return { orders: config.scaleOrders, accounts: config.scaleAccounts, table, completedAfter: completed };
  } finally {
    await current.fake.stop();
    await baseline?.fake.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const baselineArg = process.argv.find((a) => a.startsWith('--baseline='));
  const result = await measureProgression(benchConfig(), baselineArg?.slice('--baseline='.length));
  console.log(`progression over ${result.orders} orders / ${result.accounts} accounts (ms; built dist: ${dist.root})`);
  console.log('| mode | shape | n | p50 | p99 | max |');
  console.log('|---|---|---|---|---|---|');
  for (const r of result.table)
    console.log(
      `| ${r.mode} | ${r.shape} | ${r.n} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(1)} |`,
    );
}
