#!/usr/bin/env node
// The benchmark suite of issue #6: the fake beside bare Express and Prism, in one run, one table.
//
//   npm run build && node bench/run.mjs                   full run (~16 min: ≥ 10 s per autocannon run, 60 s soak)
//   node bench/run.mjs --quick    (or BENCH_QUICK=1)      smoke run, < 2 min; figures not comparable to the targets
//   node bench/run.mjs --write-results                    also writes bench/RESULTS.md
//   node bench/run.mjs --only=startup,throughput          a subset: startup, container, throughput, session, scale, memory, tenants
//   node bench/profile.mjs <scenario>                     where the time goes (see that file)
//
// Knobs (environment): BENCH_STARTUP_RUNS, BENCH_DURATION, BENCH_WARMUP, BENCH_ROUNDS, BENCH_CONNECTIONS,
// BENCH_SCALE_ORDERS, BENCH_SCALE_ACCOUNTS, BENCH_SCALE_REQUESTS, BENCH_SOAK, BENCH_PRISM=0, BENCH_PRISM_DIR,
// BENCH_PRISM_BIN, BENCH_SNAPSHOT=0 (measure dist/ in place instead of a copy taken at the start), BENCH_NODE24=0
// or =<node binary> (Node 24 beside this Node: startup, throughput against bare Express, issue 29's loads, idle RSS),
// BENCH_ROUNDS_24, BENCH_CONTAINER=0, BENCH_CONTAINER_RUNS, BENCH_TENANTS, BENCH_SESSION_ROUNDS, BENCH_SESSION_LOADS
// (see partner-session.mjs).
//
// Every server under test runs in a child process; the load generator (autocannon) runs in this one. On a 2-core
// machine the two compete for the cores anyway: absolute req/s are of this machine, the ratios are the point.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchConfig, ensureNode24, progress, requireBuild, ROOT, snapshotDist } from './lib.mjs';
import { measureContainer } from './container.mjs';
import { measureIdleRss, measureMemory } from './memory.mjs';
import { measurePartnerSession, sessionLoads } from './partner-session.mjs';
import { measureTenants } from './tenants.mjs';
import { measureScale } from './scale.mjs';
import { measureStartup } from './startup.mjs';
import { buildRows, machineHeader, noiseNotes, renderTable, summarize } from './table.mjs';
import { measureThroughput } from './throughput.mjs';

const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

function gitDescription() {
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    const head = git('log', '-1', '--format=%h %s');
    const dirty = git('status', '--porcelain', '--', 'src', 'fixtures', 'scripts').split('\n').filter(Boolean).length;
    return `${head}${dirty ? ` (+ ${dirty} uncommitted file(s) under src/, fixtures/ or scripts/; dist/ as last built)` : ''}`;
  } catch {
    return undefined;
  }
}

const config = benchConfig();
const sections = ['startup', 'container', 'throughput', 'session', 'scale', 'memory', 'tenants'].filter(
  (s) => config.only.length === 0 || config.only.includes(s),
);
requireBuild();
if (process.env.BENCH_SNAPSHOT !== '0') progress(`measuring a copy of dist/ taken now: ${snapshotDist()}`);

const startedAt = new Date();
const loadBefore = os.loadavg()[0];
const git = gitDescription();
const results = {};
const failures = [];

// Node 24 (the image's Node) beside this one, for the sections that compare the two.
let node24;
if (config.node24 && sections.some((s) => ['startup', 'throughput', 'session', 'memory'].includes(s))) {
  const found = await ensureNode24();
  if (found.node) node24 = found;
  else results.node24Note = `not measured: ${found.error}`;
} else if (!config.node24) results.node24Note = 'not measured (BENCH_NODE24=0)';
if (node24) results.node24Note = `${node24.version} (${node24.node}), measured after this Node in each section`;

const measure = {
  startup: async () => {
    results.startup = await measureStartup(config);
    if (node24)
      results.startup24 = await measureStartup(config, {
        node: node24.node,
        label: node24.version,
        runs: Math.max(3, Math.ceil((config.startupRuns * 2) / 3)),
      });
  },
  container: async () => {
    results.container = config.container
      ? await measureContainer(config)
      : { unavailable: 'skipped (BENCH_CONTAINER=0)' };
  },
  throughput: async () => {
    results.throughput = await measureThroughput(config);
    if (node24)
      results.throughput24 = await measureThroughput(config, {
        node: node24.node,
        full: false,
        rounds: config.rounds24,
        label: node24.version,
      });
  },
  // issue 29: a partner's session, the orders list with every URL distinct, POST /v1/accounts; req/s and CPU per request
  session: async () => {
    results.session = await measurePartnerSession(config, { loads: sessionLoads() });
    if (node24)
      results.session24 = await measurePartnerSession(config, {
        node: node24.node,
        label: node24.version,
        loads: sessionLoads(),
      });
  },
  scale: async () => {
    results.scale = await measureScale(config);
  },
  memory: async () => {
    results.memory = await measureMemory(config);
    if (node24) results.memory24 = await measureIdleRss(config, { node: node24.node });
  },
  tenants: async () => {
    results.tenants = await measureTenants(config);
  },
};
for (const section of sections) {
  progress(`— ${section} —`);
  try {
    await measure[section]();
  } catch (error) {
    failures.push(`${section}: ${error.stack ?? error}`);
    progress(`${section} failed: ${error.message}`);
  }
}
const finishedAt = new Date();
const loadAfter = os.loadavg()[0];

const rows = buildRows(results);
const { pass, total, missed, pass24, total24, missed24 } = summarize(rows);
const summary24 = total24
  ? `Node 24: ${pass24} of ${total24} PASS${missed24.length ? `; MISS: ${missed24.join('; ')}` : ''}`
  : '';
const header = machineHeader({ startedAt, finishedAt, quick: config.quick, loadBefore, loadAfter, git });
const notes = noiseNotes(results, { loadBefore, loadAfter });
const report = [
  header,
  '',
  renderTable(rows),
  '',
  `Targets: ${pass} of ${total} PASS${missed.length ? `; MISS: ${missed.join('; ')}` : ''}`,
  ...(summary24 ? [summary24] : []),
  ...(failures.length ? ['', 'Sections that failed:', ...failures.map((f) => `  ${f}`)] : []),
  '',
  'Noise:',
  ...notes.map((n) => `- ${n}`),
].join('\n');
console.log(report);

if (config.writeResults) {
  const body = [
    '# Benchmark results',
    '',
    'Written by `node bench/run.mjs --write-results` (after `npm run build`; `npm run bench` builds first). Re-run it to',
    'refresh this file. Quick runs (`--quick`) are smoke tests, not results.',
    '',
    '```text',
    header,
    '```',
    '',
    renderTable(rows),
    '',
    `**Targets: ${pass} of ${total} PASS**${missed.length ? `; MISS: ${missed.join('; ')}` : ''}`,
    ...(summary24 ? ['', `**${summary24.replace(':', ':**')}`] : []),
    ...(failures.length ? ['', '**Sections that failed:**', '', '```text', ...failures, '```'] : []),
    '',
    '## How noisy it was',
    '',
    ...notes.map((n) => `- ${n}`),
    '- The machine is shared: other work on it shows up as spread between rounds and runs. Every server under test runs',
    '  in its own child process and autocannon in the bench process; on 2 cores they compete, so absolute req/s are',
    '  low and move with the load of the machine; the ratios, taken within one round, move much less.',
    '- Latencies of autocannon are whole milliseconds. Scale latencies are client-side times of sequential requests over',
    '  one keep-alive connection (no competition between client and server), so they include HTTP and JSON on both ends.',
    '',
    '## Method',
    '',
    '- Startup: each run is a fresh process (`bench/servers/startup-child.mjs`): `import()` of dist/bundle/index.js, then',
    '  `startServer()` → `token()` → `GET /v1/share-classes` answering 200, twice (first instance, then a second one in',
    "  the same process). The client's fetch is warmed up before the clock starts. Then 20 × `reset()` of the default",
    '  world on the second instance. CLI: spawn of `node dist/bundle/cli.js` until `GET /__control/health` answers 200',
    '  (polled every 5 ms); its baselines are spawned and polled the same way: a bare Express process and a plain',
    "  node:http server (the floor: Node's own startup on this machine). Then, from healthy, a token and",
    '  `GET /v1/share-classes`: spawn → first authenticated 200, since health answers before the key and validators are ready.',
    "  The first start's baseline (`bench/servers/startup-bare-child.mjs`) is a fresh process importing Express, building",
    '  an app with a JSON body parser and one route, listening and answering its first request; ratio per pair of runs.',
    '- Throughput: the fake is the CLI with its defaults (LOG_LEVEL=info; its stdout to /dev/null). The bare Express',
    '  baseline (`bench/servers/bare-express.mjs`) answers the bytes the fake answered to the same request, with',
    "  `express.json()` in front; Prism mocks dist/src/api/openapi.json and answers the document's examples (one",
    '  item per list), so its bodies are smaller than ours. All get the same Authorization header (Prism only checks',
    "  that one is there). The fake's world is reset before each run (POST /v1/accounts adds an account per request).",
    "  The mixed load takes 40 distinct list queries (filters of the document's enums at four pages) in turn across the",
    "  connections, bare Express answering each URL the fake's bytes for it.",
    "- Issue 29's loads (`bench/partner-session.mjs`): a partner's session of 16 steps (create, read, patch and find an",
    '  account; register, list and mark a wallet; add payment method details on the control plane, read and mark them;',
    "  list share classes and assets; place an order on the control plane, list the account's orders and a page of all",
    "  orders, cancel the order), each step's status checked and every URL or body the session's own; the orders list",
    '  taking 200 URLs of the same answer (leading zeros) in turn; `POST /v1/accounts`. Bare Express answers each step',
    "  the status, content type and bytes the fake answered it once. Beside req/s, the CPU time of the server's main",
    '  thread (utime + stime of /proc/<pid>/task/<pid>/stat) over a round, divided by the answers of that round.',
    '- Scale: the CLI with FIXTURE_ORDERS / FIXTURE_ACCOUNTS; filter values are drawn (seeded) from the world itself.',
    '- Memory: RSS (VmRSS of /proc) of the CLI process; the load is read-only GETs, so the world does not grow and only',
    '  the bounded journal (1000 entries) churns.',
    '',
  ].join('\n');
  // The sections written by hand below the generated ones (a figure of one issue, measured by its own script) stay.
  const generated = new Set(['How noisy it was', 'Method']);
  const kept = existsSync(RESULTS_FILE)
    ? readFileSync(RESULTS_FILE, 'utf8')
        .split(/^(?=## )/m)
        .slice(1)
        .filter((section) => !generated.has(section.slice(3, section.indexOf('\n')).trim()))
    : [];
  writeFileSync(RESULTS_FILE, [body, ...kept.map((section) => `${section.trimEnd()}\n`)].join('\n'));
  progress(`wrote ${RESULTS_FILE}`);
}
process.exitCode = failures.length ? 1 : 0;
