// Throughput and latency (autocannon, `connections` connections, `duration` s per run after a warm-up) of three
// authenticated, validated operations of the fake (its CLI, in a child process, with its defaults), beside:
//   - bare Express answering the same bytes (servers/bare-express.mjs), in a child process;
//   - Prism mocking our own OpenAPI document (fetched on demand, see prism.mjs).
// For GET /v1/orders?limit=100 also: the fake with LOG_LEVEL=silent (the cost of the per-request log line), with clock
// progression, with STATE_DIR, and bare Express serializing the same value on each request (res.json) instead of
// sending fixed bytes. And 40 distinct list queries in turn, beside bare Express only. Issue 29's loads (a partner's
// session, the orders list with every URL distinct, POST /v1/accounts with CPU per request) are partner-session.mjs's.
// Runs are round-robin: each round runs every (operation, server) once, the server order rotating, so that the
// noise of the shared machine spreads over all of them; ratios are taken within a round, then the median of rounds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchConfig,
  cannon,
  fetchToken,
  median,
  progress,
  request,
  requireBuild,
  startBareExpress,
  startCli,
  summary,
} from './lib.mjs';
import { ensurePrism, PRISM_VERSION, startPrism } from './prism.mjs';

const DEFAULT_CLIENT = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' };

export const ACCOUNT_BODY = JSON.stringify({
  type: 'individual',
  external_id: 'bench-1',
  first_name: 'Ada',
  last_name: 'Lovelace',
  dob_day: 10,
  dob_month: 12,
  dob_year: 1985,
  country: 'DE',
  city: 'Berlin',
  line1: 'Unter den Linden 1',
  postal_code: '10117',
});

/**
 * 200 URLs of the same list, answered with the same bytes (leading zeros are the same numbers to the validator), taken
 * in turn across the connections: issue 29's orders list with every URL distinct (measured by partner-session.mjs).
 */
export const DISTINCT_ORDER_PATHS = Array.from(
  { length: 200 },
  (_, i) => `/v1/orders?limit=${'0'.repeat(i % 20)}100&skip=${'0'.repeat(Math.floor(i / 20))}0`,
);

/**
 * 40 distinct list queries (each filter of the document's enums, and none, at four pages), taken in turn: the mixed
 * load of a partner's polling job; bare Express answers each URL the fake's bytes.
 */
const FILTERS = [
  '',
  'side=BUY',
  'side=SELL',
  'market=PRIMARY',
  'market=SECONDARY',
  'order_status=PLACED',
  'order_status=AWAITING_PAYMENT',
  'order_status=AWAITING_TOKEN_DELIVERY',
  'order_status=COMPLETED',
  'order_status=CANCELLED',
  'account_type=individual',
  'account_type=business',
];
const PAGES = ['limit=100', 'limit=20', 'limit=100&skip=10', 'limit=50&skip=5'];
export const MIXED_ORDER_PATHS = PAGES.flatMap((page) =>
  FILTERS.map((filter) => `/v1/orders?${filter ? `${filter}&` : ''}${page}`),
).slice(0, 40);

export const OPERATIONS = [
  {
    key: 'orders',
    label: 'GET /v1/orders?limit=100',
    method: 'GET',
    path: '/v1/orders?limit=100',
    route: '/v1/orders',
    extras: true,
  },
  {
    key: 'ordersMixed',
    label: 'GET /v1/orders, 40 distinct list queries in turn (filters and pages)',
    method: 'GET',
    path: MIXED_ORDER_PATHS[0],
    paths: MIXED_ORDER_PATHS,
    route: '/v1/orders',
    bytesPerUrl: true,
    againstBareOnly: true,
  },
  {
    key: 'shareClasses',
    label: 'GET /v1/share-classes',
    method: 'GET',
    path: '/v1/share-classes',
    route: '/v1/share-classes',
  },
  {
    key: 'createAccount',
    label: 'POST /v1/accounts',
    method: 'POST',
    path: '/v1/accounts',
    route: '/v1/accounts',
    body: ACCOUNT_BODY,
  },
];

const headersFor = (op, authorization) => ({
  authorization,
  ...(op.body !== undefined && { 'content-type': 'application/json' }),
});

/**
 * `node`: the Node binary of the servers (default: this one); `full: false` measures the fake and bare Express only
 * (no Prism, no silent-log or res.json variants), over `rounds` rounds: the Node 24 column.
 */
export async function measureThroughput(
  config = benchConfig(),
  { node, full = true, rounds = config.rounds, label = process.version } = {},
) {
  requireBuild();
  const tmp = mkdtempSync(join(tmpdir(), 'bench-throughput-'));
  const started = [];
  try {
    const fake = await startCli({ node });
    started.push(fake);
    const fakeSilent = full ? await startCli({ env: { LOG_LEVEL: 'silent' }, node }) : undefined;
    if (fakeSilent) started.push(fakeSilent);
    // issue 22: the orders list with clock progression and with STATE_DIR
    const fakeClock = full
      ? await startCli({
          env: { CLIENTS: JSON.stringify([{ ...DEFAULT_CLIENT, settings: { order_progression: 'clock' } }]) },
          node,
        })
      : undefined;
    if (fakeClock) started.push(fakeClock);
    const stateDir = full ? mkdtempSync(join(tmp, 'state-')) : undefined;
    const fakeState = full ? await startCli({ env: { STATE_DIR: stateDir }, node }) : undefined;
    if (fakeState) started.push(fakeState);
    const variants = [fakeSilent, fakeClock, fakeState].filter(Boolean);
    const tokens = new Map([[fake, await fetchToken(fake.url)]]);
    for (const variant of variants) tokens.set(variant, await fetchToken(variant.url));
    const resetFake = async (server) => {
      const r = await request(`${server.url}/__control/reset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (r.status !== 204) throw new Error(`reset answered ${r.status}`);
    };

    // The fake's own answers: the bytes the baseline sends.
    const routes = [];
    for (const op of OPERATIONS) {
      const r = await request(fake.url + op.path, {
        method: op.method,
        headers: headersFor(op, `Bearer ${tokens.get(fake)}`),
        body: op.body,
      });
      if (r.status < 200 || r.status > 299) throw new Error(`${op.label} answered ${r.status} on the fake: ${r.body}`);
      const route = { method: op.method, path: op.route, status: r.status, body: r.body.toString('utf8') };
      if (op.bytesPerUrl) {
        route.byUrl = {};
        for (const path of op.paths) {
          const each = await request(fake.url + path, {
            method: op.method,
            headers: headersFor(op, `Bearer ${tokens.get(fake)}`),
          });
          if (each.status !== 200) throw new Error(`${path} answered ${each.status} on the fake: ${each.body}`);
          route.byUrl[path] = each.body.toString('utf8');
        }
      }
      routes.push(route);
    }
    await resetFake(fake);
    const routesFile = join(tmp, 'routes.json');
    writeFileSync(routesFile, JSON.stringify(routes));
    const bare = await startBareExpress(routesFile, 'bytes', node);
    started.push(bare);
    const bareJson = full ? await startBareExpress(routesFile, 'json', node) : undefined;
    if (bareJson) started.push(bareJson);

    let prism;
    let prismNote;
    if (!full) prismNote = undefined;
    else if (config.prism) {
      const found = await ensurePrism();
      if (found.bin) {
        try {
          prism = await startPrism(found.bin);
          started.push(prism);
        } catch (error) {
          prismNote = `Prism ${PRISM_VERSION} did not start: ${error.message}`;
        }
      } else prismNote = `Prism ${PRISM_VERSION} could not be fetched: ${found.error}`;
    } else prismNote = 'Prism skipped (BENCH_PRISM=0)';
    if (prismNote) progress(prismNote);

    // Prism only checks that an Authorization header is there; the others get the real token too (same request).
    const servers = [
      {
        key: 'fake',
        label: `fake (CLI, LOG_LEVEL=info, ${label})`,
        server: fake,
        auth: `Bearer ${tokens.get(fake)}`,
        reset: true,
      },
      { key: 'bare', label: `bare Express, same bytes (${label})`, server: bare, auth: `Bearer ${tokens.get(fake)}` },
      ...(prism ? [{ key: 'prism', label: `Prism ${PRISM_VERSION} mock`, server: prism, auth: 'Bearer bench' }] : []),
      ...(fakeSilent
        ? [
            {
              key: 'fakeSilent',
              label: 'fake (CLI, LOG_LEVEL=silent)',
              server: fakeSilent,
              auth: `Bearer ${tokens.get(fakeSilent)}`,
              reset: true,
              extra: true,
            },
          ]
        : []),
      ...(fakeClock
        ? [
            {
              key: 'fakeClock',
              label: 'fake (CLI, order_progression clock)',
              server: fakeClock,
              auth: `Bearer ${tokens.get(fakeClock)}`,
              reset: true,
              extra: true,
            },
          ]
        : []),
      ...(fakeState
        ? [
            {
              key: 'fakeState',
              label: 'fake (CLI, STATE_DIR)',
              server: fakeState,
              auth: `Bearer ${tokens.get(fakeState)}`,
              reset: true,
              extra: true,
            },
          ]
        : []),
      ...(bareJson
        ? [
            {
              key: 'bareJson',
              label: 'bare Express, res.json(value)',
              server: bareJson,
              auth: `Bearer ${tokens.get(fake)}`,
              extra: true,
            },
          ]
        : []),
    ];
    const pairs = OPERATIONS.flatMap((op) =>
      servers
        .filter((s) => (!s.extra || op.extras) && (!op.againstBareOnly || s.key === 'fake' || s.key === 'bare'))
        .map((s) => ({ op, s })),
    );

    // One request each: status and body size (Prism answers its examples, so its bodies are not ours).
    const sample = {};
    for (const { op, s } of pairs) {
      const r = await request(s.server.url + op.path, {
        method: op.method,
        headers: headersFor(op, s.auth),
        body: op.body,
      });
      (sample[op.key] ??= {})[s.key] = { status: r.status, bytes: r.body.length };
      if (
        s.key.startsWith('bare') &&
        s.key !== 'bareJson' &&
        r.body.toString('utf8') !== routes[OPERATIONS.indexOf(op)].body
      ) {
        throw new Error(`bare Express did not answer the fake's bytes for ${op.label}`);
      }
      if (op.bytesPerUrl && s.key === 'bare') {
        for (const path of op.paths) {
          const other = await request(s.server.url + path, { method: op.method, headers: headersFor(op, s.auth) });
          if (other.body.toString('utf8') !== routes[OPERATIONS.indexOf(op)].byUrl[path])
            throw new Error(`bare Express did not answer the fake's bytes for ${path}`);
        }
      }
    }

    const run = async ({ op, s }, duration) => {
      if (s.reset) await resetFake(s.server);
      return cannon({
        url: s.server.url + op.path,
        paths: op.paths,
        method: op.method,
        headers: headersFor(op, s.auth),
        body: op.body,
        duration,
        connections: config.connections,
      });
    };

    if (config.warmup > 0) {
      for (const pair of pairs) {
        progress(`warm-up ${config.warmup} s: ${pair.op.label} on ${pair.s.label}`);
        await run(pair, config.warmup);
      }
    }
    const runs = {}; // runs[op][server] = [result per round]
    for (let round = 0; round < rounds; round++) {
      for (const op of OPERATIONS) {
        const here = pairs.filter((p) => p.op === op);
        const rotated = here.map((_, i) => here[(i + round) % here.length]);
        for (const pair of rotated) {
          const result = await run(pair, config.duration);
          ((runs[op.key] ??= {})[pair.s.key] ??= []).push(result);
          progress(
            `round ${round + 1}/${rounds} ${op.label} on ${pair.s.label}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms` +
              (result.non2xx || result.errors ? ` (non-2xx ${result.non2xx}, errors ${result.errors})` : ''),
          );
        }
      }
    }
    await resetFake(fake);

    const results = {};
    for (const op of OPERATIONS) {
      const byServer = {};
      for (const s of servers) {
        const list = runs[op.key]?.[s.key];
        if (!list) continue;
        byServer[s.key] = {
          label: s.label,
          rps: summary(list.map((r) => r.rps)),
          p50: median(list.map((r) => r.p50)),
          p99: median(list.map((r) => r.p99)),
          non2xx: list.reduce((n, r) => n + r.non2xx, 0),
          errors: list.reduce((n, r) => n + r.errors, 0),
          ...sample[op.key][s.key],
        };
      }
      // ratio within each round, then the median over rounds
      const ratio = (a, b) => {
        const xs = runs[op.key]?.[a];
        const ys = runs[op.key]?.[b];
        return xs && ys ? summary(xs.map((x, i) => x.rps / ys[i].rps)) : undefined;
      };
      results[op.key] = {
        label: op.label,
        servers: byServer,
        fakeOverBare: ratio('fake', 'bare'),
        fakeOverPrism: ratio('fake', 'prism'),
        fakeOverBareJson: ratio('fake', 'bareJson'),
        silentOverInfo: ratio('fakeSilent', 'fake'),
        clockOverManual: ratio('fakeClock', 'fake'),
        stateDirOverMemory: ratio('fakeState', 'fake'),
      };
    }
    return {
      node: label,
      config: { duration: config.duration, warmup: config.warmup, rounds, connections: config.connections },
      prismNote,
      results,
    };
  } finally {
    for (const s of started.reverse()) await s.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureThroughput(), (k, v) => (k === 'values' ? undefined : v), 2));
}
