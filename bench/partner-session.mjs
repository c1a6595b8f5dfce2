#!/usr/bin/env node
// Issue 29's loads, the fake beside bare Express answering the fake's own bytes, on this Node and on Node 24:
//   session         a partner's suite, scripted: each of `connections` connections runs sessions one after the other
//                   (create an account, read it, patch it, find it by external_id, register a wallet, list and mark
//                   it, add payment method details, read and mark them, list share classes and assets, place an
//                   order, list the account's orders and a page of all orders, cancel the order). Every step's status
//                   is checked (a wrong one fails the run); every URL or body carries the session's own number or
//                   ids, so nothing is asked twice.
//   ordersDistinct  GET /v1/orders?limit=100, each request one of 200 URLs of the same answer in turn (throughput.mjs's
//                   DISTINCT_ORDER_PATHS: leading zeros).
//   createAccount   POST /v1/accounts, the same body each time.
// Each server runs in its own child process (the fake: its CLI with its defaults; bare Express: servers/bare-express.mjs
// with the routes of the load, each answering the bytes, status and content type the fake answered once to that step).
// Rounds alternate the servers' order; the fake is reset before each run. Figures: req/s, and CPU per request of the
// server's main thread (utime + stime of /proc/<pid>/task/<pid>/stat before and after each run, in clock ticks), the
// figure that still compares the servers when the load generator saturates first (Node 24). Medians of rounds; ratios
// per round, then median.
//
//   npm run build && node bench/partner-session.mjs [--quick] [--json]
//   knobs: BENCH_DURATION, BENCH_WARMUP, BENCH_SESSION_ROUNDS, BENCH_CONNECTIONS, BENCH_NODE24=0 | <node binary>,
//          BENCH_SNAPSHOT=0, BENCH_SESSION_LOADS=session,ordersDistinct,createAccount
//
// The driver is autocannon with a `requests` array (setupRequest builds each step from the ids the earlier steps'
// answers gave, onResponse checks the status and takes the ids): the suite's load generator, which sends prebuilt
// buffers over raw sockets, so it spends less of the shared cores than an http.Agent or undici driver would, and it
// runs in this process, apart from the servers.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  benchConfig,
  CLK_TCK,
  cpuOf,
  ensureNode24,
  fetchToken,
  json,
  median,
  progress,
  request,
  requireBuild,
  snapshotDist,
  startBareExpress,
  startCli,
  summary,
} from './lib.mjs';
import { ACCOUNT_BODY, DISTINCT_ORDER_PATHS } from './throughput.mjs';

export const SESSION_LOADS = ['session', 'ordersDistinct', 'createAccount'];

// ---------------------------------------------------------------------------------------------------------------
// The session. `n` numbers sessions across the whole run (all servers, warm-ups and rounds), so no URL or body recurs.

const pad = (zeros, value) => `${'0'.repeat(zeros)}${value}`;
/** A German IBAN of account number `n` (ISO 13616 check digits), distinct per session. */
function iban(n) {
  const bban = `37040044${String(n).padStart(10, '0')}`;
  const digits = `${bban}131400`; // DE00 moved to the end, letters as numbers (D = 13, E = 14)
  const check = 98n - (BigInt(digits) % 97n);
  return `DE${String(check).padStart(2, '0')}${bban}`;
}
// Pages of all orders whose answers keep their size while sessions add orders (each session places a primary BUY of
// an individual account): filters that no session's order matches, pages within the default world's 30 orders.
const STABLE_FILTERS = ['', 'side=SELL&', 'market=SECONDARY&', 'account_type=business&', 'order_status=COMPLETED&'];

/**
 * The steps: `method`, `route` (bare Express's path), `expect` (status), `path(s)` and `body(s)` from the session's
 * state `s` (its number `n`, and the ids earlier answers gave), `take(answer, s)`, `control` (the control plane: a
 * partner's suite adds payment methods and places orders there, the real interface has no way), `ifQuery` (bare
 * Express tells this step from another of the same route by this query parameter).
 */
export function sessionSteps({ tag, isin, value }) {
  return [
    {
      key: 'createAccount',
      method: 'POST',
      route: '/v1/accounts',
      expect: 201,
      path: () => '/v1/accounts',
      body: (s) =>
        JSON.stringify({
          type: 'individual',
          external_id: `partner-${tag}-${s.n}`,
          first_name: 'Ada',
          last_name: `Lovelace ${s.n}`,
          dob_day: 10,
          dob_month: 12,
          dob_year: 1985,
          country: 'DE',
          city: 'Berlin',
          line1: `Unter den Linden ${s.n}`,
          postal_code: '10117',
        }),
      take: (a, s) => void (s.account = a.id),
    },
    {
      key: 'getAccount',
      method: 'GET',
      route: '/v1/accounts/:account_id',
      expect: 200,
      path: (s) => `/v1/accounts/${s.account}`,
    },
    {
      key: 'patchAccount',
      method: 'PATCH',
      route: '/v1/accounts/:account_id',
      expect: 200,
      path: (s) => `/v1/accounts/${s.account}`,
      body: (s) => JSON.stringify({ city: 'Hamburg', line2: `Floor ${s.n}` }),
    },
    {
      key: 'findAccount',
      method: 'GET',
      route: '/v1/accounts',
      expect: 200,
      path: (s) => `/v1/accounts?external_id=partner-${tag}-${s.n}`,
    },
    {
      key: 'registerWallet',
      method: 'POST',
      route: '/v1/accounts/:account_id/wallets',
      expect: 201,
      path: (s) => `/v1/accounts/${s.account}/wallets`,
      body: (s) =>
        JSON.stringify({
          chain: 'polygon',
          wallet_address: `0x${tag}${s.n.toString(16).padStart(32, '0')}`,
          is_primary: true,
        }),
      take: (a, s) => void (s.wallet = a.id),
    },
    {
      key: 'listWallets',
      method: 'GET',
      route: '/v1/accounts/:account_id/wallets',
      expect: 200,
      path: (s) => `/v1/accounts/${s.account}/wallets`,
    },
    {
      key: 'markWallet',
      method: 'PATCH',
      route: '/v1/accounts/:account_id/wallets/:wallet_id',
      expect: 200,
      path: (s) => `/v1/accounts/${s.account}/wallets/${s.wallet}`,
      body: () => '{"is_primary":true}',
    },
    {
      key: 'addPaymentMethod',
      method: 'POST',
      route: '/__control/accounts/:account_id/payment-method-details',
      expect: 201,
      control: true,
      path: (s) => `/__control/accounts/${s.account}/payment-method-details`,
      body: (s) =>
        JSON.stringify({ type: 'sepa', iban: iban(s.n), account_holder_name: `Ada Lovelace ${s.n}`, is_primary: true }),
      take: (a, s) => void (s.paymentMethod = a.id),
    },
    {
      key: 'getPaymentMethod',
      method: 'GET',
      route: '/v1/accounts/:account_id/payment-method-details/:id',
      expect: 200,
      path: (s) => `/v1/accounts/${s.account}/payment-method-details/${s.paymentMethod}`,
    },
    {
      key: 'markPaymentMethod',
      method: 'PATCH',
      route: '/v1/accounts/:account_id/payment-method-details/:id',
      expect: 200,
      path: (s) => `/v1/accounts/${s.account}/payment-method-details/${s.paymentMethod}`,
      body: () => '{"is_primary":true}',
    },
    // every share class (the default world has 8) and the asset to order (1), with limits no other session asks
    {
      key: 'listShareClasses',
      method: 'GET',
      route: '/v1/share-classes',
      expect: 200,
      path: (s) => `/v1/share-classes?limit=${pad(Math.floor(s.n / 900), 100 + (s.n % 900))}`,
    },
    {
      key: 'listAssets',
      method: 'GET',
      route: '/v1/assets',
      expect: 200,
      path: (s) => `/v1/assets?isin=${isin}&limit=${pad(Math.floor(s.n / 999), 2 + (s.n % 999))}`,
    },
    {
      key: 'placeOrder',
      method: 'POST',
      route: '/__control/orders',
      expect: 201,
      control: true,
      path: () => '/__control/orders',
      body: (s) =>
        JSON.stringify({
          account_id: s.account,
          isin,
          side: 'BUY',
          market: 'PRIMARY',
          amount_of_units: 1 + (s.n % 1000),
          value,
        }),
      take: (a, s) => void (s.order = a.id),
    },
    {
      key: 'accountOrders',
      method: 'GET',
      route: '/v1/orders',
      ifQuery: 'account_id',
      expect: 200,
      path: (s) => `/v1/orders?account_id=${s.account}`,
    },
    {
      key: 'ordersPage',
      method: 'GET',
      route: '/v1/orders',
      expect: 200,
      path: (s) => {
        const k = s.n % 15;
        const z = Math.floor(s.n / 15);
        return `/v1/orders?${STABLE_FILTERS[k % 5]}limit=${pad(z % 20, 5)}&skip=${pad(Math.floor(z / 20), Math.floor(k / 5))}`;
      },
    },
    {
      key: 'cancelOrder',
      method: 'DELETE',
      route: '/v1/orders/:order_id/',
      expect: 200,
      path: (s) => `/v1/orders/${s.order}/`,
    },
  ];
}

/** The world's facts a session needs: a subscribeable asset and a value its share class's minimum allows. */
async function discoverWorld(url, auth) {
  const get = async (path) => {
    const r = await request(url + path, { headers: { authorization: auth } });
    if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}: ${r.body}`);
    return json(r).data;
  };
  const shareClasses = new Map((await get('/v1/share-classes?limit=1000')).map((c) => [c.id, c]));
  const asset = (await get('/v1/assets?subscribeable=true&limit=1000')).find((a) => shareClasses.has(a.share_class_id));
  if (!asset) throw new Error('the default world has no subscribeable asset of a listed share class');
  const min = shareClasses.get(asset.share_class_id).min_investment ?? 0;
  return { isin: asset.isin, value: Math.max(min, 1_000_000) };
}

const headersOf = (step, auth) => ({
  ...(!step.control && { authorization: auth }),
  ...(step.body && { 'content-type': 'application/json' }),
});

/** One session over one keep-alive connection, step by step: each step's { status, body, contentType }. */
async function oneSession(url, steps, auth, n) {
  const s = { n };
  const answers = [];
  for (const step of steps) {
    const r = await request(url + step.path(s), {
      method: step.method,
      headers: headersOf(step, auth),
      body: step.body?.(s),
    });
    if (r.status !== step.expect)
      throw new Error(
        `session step ${step.key} (${step.method} ${step.path(s)}) answered ${r.status}, not ${step.expect}: ${r.body.toString('utf8').slice(0, 300)}`,
      );
    step.take?.(json(r), s);
    answers.push({ status: r.status, body: r.body.toString('utf8'), contentType: r.headers['content-type'] });
  }
  return answers;
}

/** autocannon's `requests` of the session; wrong statuses land in `failures` (the run then fails). */
function sessionRequests(steps, auth, next, failures) {
  return steps.map((step, i) => ({
    method: step.method,
    headers: headersOf(step, auth),
    setupRequest: (req, context) => {
      if (i === 0) context.s = { n: next() };
      const s = context.s;
      return { ...req, path: step.path(s), ...(step.body && { body: step.body(s) }) };
    },
    onResponse: (status, body, context) => {
      if (status !== step.expect) {
        if (failures.length < 20)
          failures.push(
            `${step.key} (session ${context.s?.n}) answered ${status}, not ${step.expect}: ${String(body).slice(0, 200)}`,
          );
        return;
      }
      if (step.take) step.take(JSON.parse(body), context.s);
    },
  }));
}

/**
 * The session as autocannon's `requests` against a running fake at `url` (for profile.mjs): `failures()` lists the
 * wrong statuses seen so far.
 */
export async function sessionLoad(url, auth) {
  const steps = sessionSteps({ tag: randomBytes(4).toString('hex'), ...(await discoverWorld(url, auth)) });
  let counter = 0;
  const failures = [];
  return { requests: sessionRequests(steps, auth, () => counter++, failures), failures: () => failures };
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

function autocannonRun(options) {
  return new Promise((resolve, reject) =>
    autocannon({ timeout: 10, ...options }, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

async function startBare(routes, node, tmp, name) {
  const file = join(tmp, `${name}.json`);
  writeFileSync(file, JSON.stringify(routes));
  return startBareExpress(file, 'bytes', node);
}

/**
 * Measures `loads` on the fake and on bare Express with the Node binary `node` (default: this one). Resolves to
 * { node, config, loads: { [key]: { label, fake, bare, rpsRatio, cpuRatio, requestsPerSession? } } }.
 */
export async function measurePartnerSession(
  config = benchConfig(),
  { node, label = process.version, loads = SESSION_LOADS, rounds = sessionRounds(config) } = {},
) {
  requireBuild();
  const tmp = mkdtempSync(join(tmpdir(), 'bench-session-'));
  const started = [];
  const tag = randomBytes(4).toString('hex');
  let counter = 0;
  const next = () => counter++;
  try {
    const fake = await startCli({ node });
    started.push(fake);
    const auth = `Bearer ${await fetchToken(fake.url)}`;
    const reset = async () => {
      const r = await request(`${fake.url}/__control/reset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (r.status !== 204) throw new Error(`reset answered ${r.status}`);
    };
    const world = await discoverWorld(fake.url, auth);
    const steps = sessionSteps({ tag, ...world });

    // What each load sends, and the routes bare Express answers it with (the fake's answers, recorded once, each on the
    // default world).
    const plans = {};
    if (loads.includes('session')) {
      await reset();
      const answers = await oneSession(fake.url, steps, auth, next());
      const routes = steps.map((step, i) => ({
        method: step.method,
        path: step.route,
        status: answers[i].status,
        body: answers[i].body,
        ...(step.ifQuery && { ifQuery: step.ifQuery }),
        contentType: answers[i].contentType,
      }));
      plans.session = {
        label: `a partner's session: ${steps.length} requests (${steps.filter((x) => x.method !== 'GET').length} writes, ${steps.filter((x) => x.control).length} of the control plane), nothing asked twice`,
        routes,
        options: (failures) => ({ requests: sessionRequests(steps, auth, next, failures) }),
        check: async (url) => {
          const got = await oneSession(url, steps, auth, next());
          got.forEach((a, i) => {
            if (a.status !== routes[i].status || a.contentType !== routes[i].contentType)
              throw new Error(
                `bare Express answered ${steps[i].key} with ${a.status} ${a.contentType}, the fake ${routes[i].status} ${routes[i].contentType}`,
              );
          });
        },
      };
    }
    if (loads.includes('ordersDistinct')) {
      await reset();
      const r = await request(fake.url + DISTINCT_ORDER_PATHS[0], { headers: { authorization: auth } });
      if (r.status !== 200) throw new Error(`GET ${DISTINCT_ORDER_PATHS[0]} answered ${r.status}`);
      let i = 0;
      plans.ordersDistinct = {
        label: `GET /v1/orders?limit=100, every request one of ${DISTINCT_ORDER_PATHS.length} URLs of the same answer in turn (${r.body.length} B)`,
        routes: [{ method: 'GET', path: '/v1/orders', status: 200, body: r.body.toString('utf8') }],
        expect: 200,
        options: () => ({
          requests: [
            {
              method: 'GET',
              headers: { authorization: auth },
              setupRequest: (req) => ({ ...req, path: DISTINCT_ORDER_PATHS[i++ % DISTINCT_ORDER_PATHS.length] }),
            },
          ],
        }),
      };
    }
    if (loads.includes('createAccount')) {
      await reset();
      const r = await request(`${fake.url}/v1/accounts`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: ACCOUNT_BODY,
      });
      if (r.status !== 201) throw new Error(`POST /v1/accounts answered ${r.status}: ${r.body}`);
      plans.createAccount = {
        label: `POST /v1/accounts (${Buffer.byteLength(ACCOUNT_BODY)} B in, ${r.body.length} B out)`,
        routes: [{ method: 'POST', path: '/v1/accounts', status: 201, body: r.body.toString('utf8') }],
        expect: 201,
        options: () => ({
          requests: [
            {
              method: 'POST',
              path: '/v1/accounts',
              headers: { authorization: auth, 'content-type': 'application/json' },
              body: ACCOUNT_BODY,
            },
          ],
        }),
      };
    }
    await reset();

    const bares = {};
    for (const [key, plan] of Object.entries(plans)) {
      bares[key] = await startBare(plan.routes, node, tmp, key);
      started.push(bares[key]);
      await plan.check?.(bares[key].url);
    }

    const run = async (key, server, duration) => {
      const plan = plans[key];
      const isFake = server === fake;
      if (isFake) await reset();
      const failures = [];
      const before = cpuOf(server.pid);
      const result = await autocannonRun({
        url: server.url,
        duration,
        connections: config.connections,
        ...plan.options(failures),
      });
      const after = cpuOf(server.pid);
      const answered = [1, 2, 3, 4, 5].reduce((n, c) => n + (result[`${c}xx`] ?? 0), 0);
      const where = `${key} on ${isFake ? 'the fake' : 'bare Express'} (${label})`;
      if (failures.length > 0) throw new Error(`${where}: wrong statuses:\n  ${failures.join('\n  ')}`);
      if (plan.expect && result.non2xx > 0)
        throw new Error(`${where}: ${result.non2xx} answers were not 2xx (${JSON.stringify(result.statusCodeStats)})`);
      if (result.errors > 0 || result.timeouts > 0)
        throw new Error(`${where}: ${result.errors} errors, ${result.timeouts} timeouts`);
      return {
        rps: (result['2xx'] ?? 0) / result.duration,
        answered,
        p50: result.latency.p50,
        p99: result.latency.p99,
        cpuMainUs: ((after.main - before.main) / answered) * 1e6,
        cpuAllUs: ((after.all - before.all) / answered) * 1e6,
      };
    };
    const servers = [
      ['fake', fake],
      ['bare', null],
    ];
    if (config.warmup > 0) {
      for (const key of Object.keys(plans)) {
        for (const [name, server] of servers) {
          progress(`warm-up ${config.warmup} s: ${key} on ${name} (${label})`);
          await run(key, server ?? bares[key], config.warmup);
        }
      }
    }
    const runs = {};
    for (let round = 0; round < rounds; round++) {
      for (const key of Object.keys(plans)) {
        for (const [name, server] of round % 2 ? [...servers].reverse() : servers) {
          const result = await run(key, server ?? bares[key], config.duration);
          ((runs[key] ??= {})[name] ??= []).push(result);
          progress(
            `round ${round + 1}/${rounds} ${key} on ${name} (${label}): ${result.rps.toFixed(0)} req/s, main thread ${result.cpuMainUs.toFixed(0)} µs/request (all threads ${result.cpuAllUs.toFixed(0)})`,
          );
        }
      }
    }
    await reset();

    const out = {};
    for (const [key, plan] of Object.entries(plans)) {
      const { fake: f, bare: b } = runs[key];
      const figures = (list) => ({
        rps: summary(list.map((r) => r.rps)),
        cpuMainUs: summary(list.map((r) => r.cpuMainUs)),
        cpuAllUs: summary(list.map((r) => r.cpuAllUs)),
        p50: median(list.map((r) => r.p50)),
        p99: median(list.map((r) => r.p99)),
      });
      out[key] = {
        label: plan.label,
        fake: figures(f),
        bare: figures(b),
        rpsRatio: summary(f.map((r, i) => r.rps / b[i].rps)),
        cpuRatio: summary(f.map((r, i) => r.cpuMainUs / b[i].cpuMainUs)),
      };
    }
    return {
      node: label,
      config: {
        duration: config.duration,
        warmup: config.warmup,
        rounds,
        connections: config.connections,
        clockTicks: CLK_TCK,
      },
      sessions: counter,
      loads: out,
    };
  } finally {
    for (const s of started.reverse()) await s.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function sessionRounds(config) {
  const value = process.env.BENCH_SESSION_ROUNDS;
  if (value !== undefined && value !== '') {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`BENCH_SESSION_ROUNDS must be a positive integer, got "${value}"`);
    return n;
  }
  return config.quick ? 2 : 3;
}

/** Loads chosen by BENCH_SESSION_LOADS (default all three). */
export function sessionLoads() {
  const chosen = (process.env.BENCH_SESSION_LOADS ?? '').split(',').filter(Boolean);
  for (const load of chosen)
    if (!SESSION_LOADS.includes(load))
      throw new Error(`BENCH_SESSION_LOADS: unknown load "${load}" (one of ${SESSION_LOADS.join(', ')})`);
  return chosen.length ? chosen : SESSION_LOADS;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { buildSessionRows, renderTable, summarize } = await import('./table.mjs');
  const config = benchConfig();
  requireBuild();
  if (process.env.BENCH_SNAPSHOT !== '0') progress(`measuring a copy of dist/ taken now: ${snapshotDist()}`);
  const loads = sessionLoads();
  const startedAt = new Date();
  const loadBefore = os.loadavg()[0];
  const session = await measurePartnerSession(config, { loads });
  let session24;
  let note24;
  if (config.node24) {
    const found = await ensureNode24();
    if (found.node) session24 = await measurePartnerSession(config, { loads, node: found.node, label: found.version });
    else note24 = `Node 24 not measured: ${found.error}`;
  } else note24 = 'Node 24 not measured (BENCH_NODE24=0)';
  if (process.argv.includes('--json'))
    console.log(JSON.stringify({ session, session24 }, (k, v) => (k === 'values' ? undefined : v), 2));
  const rows = buildSessionRows(session, session24);
  const { pass, total, missed, pass24, total24, missed24 } = summarize(rows);
  console.log(
    [
      `${startedAt.toISOString()} → ${new Date().toISOString()}; ${os.cpus().length} cores; load average (1 min) ${loadBefore.toFixed(2)} → ${os.loadavg()[0].toFixed(2)}${config.quick ? '; QUICK (short rounds: a smoke run)' : ''}`,
      ...(note24 ? [note24] : []),
      '',
      renderTable(rows),
      '',
      `Targets (${session.node}): ${pass} of ${total} PASS${missed.length ? `; MISS: ${missed.join('; ')}` : ''}`,
      ...(total24
        ? [
            `Targets (${session24.node}): ${pass24} of ${total24} PASS${missed24.length ? `; MISS: ${missed24.join('; ')}` : ''}`,
          ]
        : []),
    ].join('\n'),
  );
}
