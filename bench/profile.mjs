#!/usr/bin/env node
// Where the time (or the memory) goes, for the targets the suite misses. Needs `npm run build`.
//
//   node bench/profile.mjs orders            CPU profile of the CLI under GET /v1/orders?limit=100 load
//   node bench/profile.mjs orders-distinct   … the same list, 200 distinct URLs of the same answer in turn
//   node bench/profile.mjs session           … a partner's session (partner-session.mjs; every step's status checked)
//   node bench/profile.mjs share-classes     … GET /v1/share-classes
//   node bench/profile.mjs create-account    … POST /v1/accounts
//   node bench/profile.mjs cli-startup       CPU profile of the CLI from the start of the process to healthy
//   node bench/profile.mjs second-start      CPU profile of startServer() → first 200 in a process that has one
//   node bench/profile.mjs scale             CPU profile of the 100k-order CLI answering the filtered lists
//   node bench/profile.mjs memory            RSS and heap after each module and step of the CLI's startup
//                                            (--orders=100000 --accounts=20000: also the parts of a big world)
//
// Options: --seconds=N (load, default 10), --top=N (rows, default 25), --keep=<dir> (keep the .cpuprofile files,
// to open in Chrome DevTools), --interval=µs (sampling, default 200). LOG_LEVEL etc. pass through to the CLI.
// Load profiles cover the load only (after a 3 s warm-up), not the startup. Locations are mapped back to
// src/*.ts with the source maps of dist/ where there are some; else they are node_modules/… or node:… files.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, mkdirSync, copyFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACCOUNT_BODY, DISTINCT_ORDER_PATHS } from './throughput.mjs';
import { sessionLoad } from './partner-session.mjs';
import {
  cannon,
  dist,
  fetchToken,
  freePort,
  json,
  progress,
  request,
  requireBuild,
  ROOT,
  snapshotDist,
  spawnNode,
  waitUntilUp,
} from './lib.mjs';

const PROFILED_CLI = fileURLToPath(new URL('./servers/profiled-cli.mjs', import.meta.url));
const PROFILED_STARTUP = fileURLToPath(new URL('./servers/profiled-startup.mjs', import.meta.url));
const MEMORY_ATTRIBUTION = fileURLToPath(new URL('./servers/memory-attribution.mjs', import.meta.url));

// ---------------------------------------------------------------------------------------------------------------
// Analysis of a .cpuprofile: self and inclusive time per function, self time per package or file.

const sourceMaps = new Map();
function mapLocation(url, line, column) {
  if (!url) return undefined;
  let file = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (!file.startsWith('/')) return `${file}:${line + 1}`; // node:internal/…
  // a snapshot of dist/ stands for dist/ itself
  if (file.startsWith(`${dist.root}/`)) file = join(ROOT, 'dist', file.slice(dist.root.length + 1));
  const mapFile = `${file.startsWith(join(ROOT, 'dist')) ? file.replace(join(ROOT, 'dist'), dist.root) : file}.map`;
  if (!sourceMaps.has(mapFile)) {
    let map = null;
    try {
      if (existsSync(mapFile)) map = new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(mapFile, map);
  }
  const map = sourceMaps.get(mapFile);
  const entry = map?.findEntry(line, column);
  if (entry?.originalSource) {
    const original = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(file), entry.originalSource);
    return `${relative(ROOT, original)}:${entry.originalLine + 1}`;
  }
  return `${relative(ROOT, file)}:${line + 1}`;
}

function areaOf(url) {
  if (!url) return undefined;
  if (url.startsWith('node:')) return 'node: (core)';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file.replace(dist.root, join(ROOT, 'dist')));
  if (m && !file.startsWith(dist.root)) return m[1];
  return mapLocation(url, 0, 0)?.replace(/:\d+$/, '') ?? file;
}

export function analyzeProfile(profile, top = 25) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n) => {
    const f = n.callFrame;
    return `${f.functionName || '(anonymous)'}\u0000${f.url}\u0000${f.lineNumber}\u0000${f.columnNumber}`;
  };
  const SPECIAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);
  const self = new Map();
  const inclusive = new Map();
  const areas = new Map();
  const special = new Map();
  let total = 0;
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000; // ms
    total += dt;
    const leaf = nodes.get(profile.samples[i]);
    const leafName = leaf.callFrame.functionName;
    if (SPECIAL.has(leafName)) {
      special.set(leafName, (special.get(leafName) ?? 0) + dt);
      continue;
    }
    const k = keyOf(leaf);
    self.set(k, (self.get(k) ?? 0) + dt);
    const area = areaOf(leaf.callFrame.url) ?? '(native or builtin)';
    areas.set(area, (areas.get(area) ?? 0) + dt);
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const n = nodes.get(id);
      if (SPECIAL.has(n.callFrame.functionName)) continue;
      const key = keyOf(n);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
    }
  }
  const describe = (key) => {
    const [name, url, line, column] = key.split('\u0000');
    return `${name}  ${mapLocation(url, Number(line), Number(column)) ?? '(native)'}`;
  };
  const list = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, ms]) => ({ what: describe(k), ms, pct: (ms / total) * 100 }));
  const areaList = [...areas.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n(top))
    .map(([what, ms]) => ({ what, ms, pct: (ms / total) * 100 }));
  const own = new Map(
    [...inclusive.entries()].filter(([k]) => /^(src|fixtures)\//.test(describe(k).split('  ').at(-1))),
  );
  return {
    totalMs: total,
    own: list(own, top),
    special: Object.fromEntries([...special.entries()].map(([k, v]) => [k, { ms: v, pct: (v / total) * 100 }])),
    self: list(self, top),
    inclusive: list(inclusive, top),
    areas: areaList,
  };
}
const n = (top) => Math.min(top, 20);

export function printAnalysis(title, a) {
  const line = (r) => `  ${r.pct.toFixed(1).padStart(5)} %  ${r.ms.toFixed(0).padStart(7)} ms  ${r.what}`;
  console.log(`\n## ${title}: ${a.totalMs.toFixed(0)} ms sampled`);
  console.log(
    `   ${Object.entries(a.special)
      .map(([k, v]) => `${k} ${v.pct.toFixed(1)} %`)
      .join(', ')}`,
  );
  console.log('\nSelf time by package or file:');
  for (const r of a.areas) console.log(line(r));
  console.log('\nTop functions by self time:');
  for (const r of a.self) console.log(line(r));
  console.log('\nTop functions by inclusive time (each counted once per sample):');
  for (const r of a.inclusive) console.log(line(r));
  console.log("\nThe project's own functions (src/, fixtures/) by inclusive time:");
  for (const r of a.own) console.log(line(r));
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios

function option(name, fallback) {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3) : fallback;
}

async function startProfiledCli(env = {}, fromStart = false) {
  const port = await freePort();
  const proc = spawnNode([PROFILED_CLI, dist.cli, option('interval', '200')], {
    env: { PORT: String(port), HOST: '127.0.0.1', ...(fromStart && { BENCH_PROFILE_FROM_START: '1' }), ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = `http://127.0.0.1:${port}`;
  const startupMs = await waitUntilUp(`${url}/__control/health`, { timeoutMs: 600_000, child: proc.child });
  const ask = (message, reply) =>
    new Promise((resolve) => {
      const on = (m) => {
        if (m[reply] !== undefined) {
          proc.child.off('message', on);
          resolve(m[reply]);
        }
      };
      proc.child.on('message', on);
      proc.child.send(message);
    });
  return {
    ...proc,
    url,
    startupMs,
    start: () => ask({ cmd: 'start' }, 'started'),
    stop2: (file) => ask({ cmd: 'stop', file }, 'stopped'),
  };
}

async function loadProfile(tmp, label, op) {
  const seconds = Number(option('seconds', '10'));
  const cli = await startProfiledCli();
  try {
    const token = await fetchToken(cli.url);
    const headers = { authorization: `Bearer ${token}`, ...(op.body && { 'content-type': 'application/json' }) };
    const session = op.session ? await sessionLoad(cli.url, `Bearer ${token}`) : undefined;
    const load = {
      url: cli.url + (op.path ?? ''),
      method: op.method,
      headers,
      body: op.body,
      paths: op.paths,
      requests: session?.requests,
    };
    progress(`warm-up 3 s, then ${seconds} s profiled: ${label}`);
    await cannon({ ...load, duration: 3 });
    await cli.start();
    const result = await cannon({ ...load, duration: seconds });
    const file = await cli.stop2(join(tmp, `${label.replace(/\W+/g, '-')}.cpuprofile`));
    if (session?.failures().length)
      throw new Error(`wrong statuses in the session:\n  ${session.failures().join('\n  ')}`);
    progress(`${result.rps.toFixed(0)} req/s while profiled (the profiler slows it down)`);
    return { file, note: `${result.rps.toFixed(0)} req/s under the profiler, ${result.non2xx} non-2xx` };
  } finally {
    await cli.stop();
  }
}

const SCENARIOS = {
  orders: (tmp) => loadProfile(tmp, 'GET /v1/orders?limit=100', { method: 'GET', path: '/v1/orders?limit=100' }),
  'orders-distinct': (tmp) =>
    loadProfile(tmp, 'GET /v1/orders?limit=100, distinct URLs', {
      method: 'GET',
      path: DISTINCT_ORDER_PATHS[0],
      paths: DISTINCT_ORDER_PATHS,
    }),
  session: (tmp) => loadProfile(tmp, "a partner's session", { session: true }),
  'share-classes': (tmp) => loadProfile(tmp, 'GET /v1/share-classes', { method: 'GET', path: '/v1/share-classes' }),
  'create-account': (tmp) =>
    loadProfile(tmp, 'POST /v1/accounts', { method: 'POST', path: '/v1/accounts', body: ACCOUNT_BODY }),

  async 'cli-startup'(tmp) {
    const files = [];
    const times = [];
    // a few starts, one profile each: analyzed together they are less noisy
    for (let i = 0; i < 3; i++) {
      const cli = await startProfiledCli({}, true);
      times.push(cli.startupMs);
      files.push(await cli.stop2(join(tmp, `cli-startup-${i}.cpuprofile`)));
      await cli.stop();
    }
    return { files, note: `spawn → healthy under the profiler: ${times.map((t) => t.toFixed(0)).join(', ')} ms` };
  },

  async 'second-start'(tmp) {
    const file = join(tmp, 'second-start.cpuprofile');
    const out = await new Promise((resolveRun, reject) =>
      execFile(
        process.execPath,
        [PROFILED_STARTUP, dist.index, file, option('interval', '100'), '10'],
        { timeout: 120_000 },
        (e, stdout, stderr) =>
          e ? reject(new Error(`${e.message}\n${stderr}`)) : resolveRun(JSON.parse(stdout.trim().split('\n').at(-1))),
      ),
    );
    return { file, note: `10 further instances → first 200: ${out.times.map((t) => t.toFixed(0)).join(', ')} ms` };
  },

  async scale(tmp) {
    const orders = Number(process.env.BENCH_SCALE_ORDERS ?? 100_000);
    const accounts = Number(process.env.BENCH_SCALE_ACCOUNTS ?? 20_000);
    progress(`starting the CLI with ${orders} orders and ${accounts} accounts…`);
    const cli = await startProfiledCli({ FIXTURE_ORDERS: String(orders), FIXTURE_ACCOUNTS: String(accounts) });
    try {
      const token = await fetchToken(cli.url);
      const headers = { authorization: `Bearer ${token}` };
      const page = json(
        await request(`${cli.url}/v1/orders?skip=${Math.floor(orders / 2)}&limit=1000`, { headers }),
      ).data;
      const paths = [
        ...page.slice(0, 50).map((o) => `/v1/orders?account_id=${o.account_id}`),
        ...page.slice(0, 50).map((o) => `/v1/orders?isin=${o.isin}`),
        ...['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'].flatMap((s) =>
          Array(10).fill(`/v1/orders?order_status=${s}`),
        ),
        ...Array(25).fill('/v1/orders?account_type=individual'),
        ...Array(25).fill('/v1/orders?account_type=business'),
        ...Array(50).fill(`/v1/orders?skip=${Math.floor(orders * 0.9)}`),
      ];
      for (const p of paths.slice(0, 50)) await request(cli.url + p, { headers });
      await cli.start();
      for (let round = 0; round < 3; round++) for (const p of paths) await request(cli.url + p, { headers });
      const file = await cli.stop2(join(tmp, 'scale.cpuprofile'));
      return { file, note: `${paths.length * 3} sequential filtered requests` };
    } finally {
      await cli.stop();
    }
  },

  async memory() {
    const steps = await new Promise((resolveRun, reject) =>
      execFile(
        process.execPath,
        ['--expose-gc', MEMORY_ATTRIBUTION, dist.root, option('orders', '0'), option('accounts', '0')],
        { timeout: 600_000, cwd: ROOT, maxBuffer: 1 << 24 },
        (e, stdout, stderr) =>
          e ? reject(new Error(`${e.message}\n${stderr}`)) : resolveRun(JSON.parse(stdout.trim().split('\n').at(-1))),
      ),
    );
    console.log("\n## Memory after each step of the CLI's startup (after gc; MB; Δ = growth of the step)\n");
    console.log(
      `  ${'step'.padEnd(74)} ${'RSS'.padStart(7)} ${'Δ RSS'.padStart(7)} ${'heap'.padStart(7)} ${'Δ heap'.padStart(7)} ${'external'.padStart(8)}`,
    );
    let prev = { rss: 0, heapUsed: 0 };
    for (const s of steps) {
      console.log(
        `  ${s.step.padEnd(74)} ${s.rss.toFixed(1).padStart(7)} ${(s.rss - prev.rss).toFixed(1).padStart(7)} ${s.heapUsed.toFixed(1).padStart(7)} ${(s.heapUsed - prev.heapUsed).toFixed(1).padStart(7)} ${s.external.toFixed(1).padStart(8)}`,
      );
      prev = s;
    }
    return {};
  },
};

// ---------------------------------------------------------------------------------------------------------------

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const scenario = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (!scenario || !SCENARIOS[scenario]) {
    console.error(
      `usage: node bench/profile.mjs <${Object.keys(SCENARIOS).join(' | ')}> [--seconds=N] [--top=N] [--keep=dir] [--interval=µs]`,
    );
    process.exit(2);
  }
  requireBuild();
  if (process.env.BENCH_SNAPSHOT !== '0') snapshotDist();
  const tmp = mkdtempSync(join(tmpdir(), 'bench-profile-'));
  try {
    const { file, files = file ? [file] : [], note } = await SCENARIOS[scenario](tmp);
    if (files.length > 0) {
      const top = Number(option('top', '25'));
      // several profiles: their samples together
      const merged = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
      for (const [i, p] of merged.entries()) {
        if (i === 0) continue;
        const offset = Math.max(...merged[0].nodes.map((x) => x.id)) + 1;
        for (const node of p.nodes) {
          node.id += offset;
          node.children = node.children?.map((c) => c + offset);
        }
        merged[0].nodes.push(...p.nodes);
        merged[0].samples.push(...p.samples.map((s) => s + offset));
        merged[0].timeDeltas.push(...p.timeDeltas);
      }
      console.log(`# CPU profile: ${scenario}${note ? ` (${note})` : ''}; Node ${process.version}`);
      printAnalysis(scenario, analyzeProfile(merged[0], top));
      const keep = option('keep', undefined);
      if (keep) {
        mkdirSync(keep, { recursive: true });
        for (const f of files) copyFileSync(f, join(keep, basename(f)));
        progress(`kept ${files.length} .cpuprofile file(s) in ${keep}`);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
