#!/usr/bin/env node
// A partner test's overhead beside WireMock's (issue 52): what a test's beforeEach and body cost against each,
// over HTTP: reset + token + 3 reads, the fake's CLI beside WireMock 3.13.2 serving the same answers as stubs.
//
//   npm run build && node bench/wiremock-overhead.mjs [--iterations=2000] [--starts=7] [--json]
//
// The fake's answers (the token request's, three reads': the catalog, one account, a page of orders) are taken from
// a fake of the same build at the start and written as WireMock stubs (each read's stub asks for a Bearer header, as
// a partner's would), so both answer the same bytes. WireMock runs as partners run it standalone
// (`java -jar wiremock-standalone-3.13.2.jar`, its defaults: request journal on), its stubs loaded from a root dir,
// its reset `POST /__admin/reset` (stubs back to the files, journal emptied); the fake's `POST /__control/reset`.
//
// Figures, side by side in one run:
//   - overhead: one iteration = reset, then POST /oauth2/token, then the three reads with that token, in turn over
//     one keep-alive connection per side; iterations alternate sides (which goes first alternates too), so both meet
//     the same machine. No warm-up: a suite's first tests are part of its overhead. p50, p99, max, the first
//     iteration, and each step's p50/p99;
//   - first answer: a fresh process (`node dist/bundle/cli.js`, `java -jar …`) spawned, the token request polled
//     every 5 ms over fresh connections until it answers 200 (the fake's health answers before its key is ready;
//     its token does not), median of --starts processes per side, alternating;
//   - reset p50 (within the overhead loop).
// Targets: overhead p99 ≤ WireMock's, p50 ≤ 0.5 × WireMock's; first answer ≤ 0.3 × WireMock's.
//
// WireMock is fetched with npm (the `wiremock` package, a jar) into <tmpdir>/investment-api-fake-bench/wiremock-3.13.2
// on first use, not a dependency (as Prism is: prism.mjs). Needs `java` 11+ on PATH.
//   BENCH_WIREMOCK_JAR=<file>   an already downloaded wiremock-standalone jar
//   BENCH_WIREMOCK_DIR=<dir>    where to install the package
// Profiling the fake under the loop: --fake-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof" (written when the fake
// exits at the end), --fake-node-args=--trace-gc --fake-stdout=/tmp/gc.log (the CLI's log lines land there too);
// --only=overhead or --only=first to run one part. --series=<file> writes each iteration's start (µs of the monotonic
// clock, as a .cpuprofile's sample times) and step times, per side, so a profile's samples can be laid on the slow ones.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  cpuOf,
  dist,
  freePort,
  median,
  percentile,
  progress,
  sleep,
  snapshotDist,
  spawnNode,
  startCli,
  waitUntilUp,
} from './lib.mjs';

const WIREMOCK_VERSION = '3.13.2';
const PACKAGE = `wiremock@${WIREMOCK_VERSION}`;

const option = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};
const ITERATIONS = Number(option('iterations', 2000));
const STARTS = Number(option('starts', 7));
const ONLY = option('only', '');
const FAKE_NODE_ARGS = option('fake-node-args', '').split(' ').filter(Boolean);
const FAKE_STDOUT = option('fake-stdout', undefined);
const SERIES = option('series', undefined);
// another build of the fake beside this one, in the same loop: its dist/ folder (a copy made before a change)
const BASELINE = option('baseline', undefined);
const WITH_WIREMOCK = !process.argv.includes('--no-wiremock');
const JSON_OUT = process.argv.includes('--json');

const CLIENT = { id: 'sandbox-client', secret: 'sandbox-secret' };
const READS = (accountId) => ['/v1/share-classes?limit=100', `/v1/accounts/${accountId}`, '/v1/orders?limit=100'];

// ---------------------------------------------------------------------------------------------------------------
// WireMock: the npm package's jar, installed once outside the project

function jarIn(dir) {
  const pkg = join(dir, 'node_modules', 'wiremock', 'package.json');
  if (!existsSync(pkg) || JSON.parse(readFileSync(pkg, 'utf8')).version !== WIREMOCK_VERSION) return undefined;
  const jar = join(dir, 'node_modules', 'wiremock', 'build', `wiremock-standalone-${WIREMOCK_VERSION}.jar`);
  return existsSync(jar) ? jar : undefined;
}

/** Resolves to { jar } or { error }. */
async function ensureWiremock() {
  if (process.env.BENCH_WIREMOCK_JAR) {
    return existsSync(process.env.BENCH_WIREMOCK_JAR)
      ? { jar: process.env.BENCH_WIREMOCK_JAR }
      : { error: `BENCH_WIREMOCK_JAR ${process.env.BENCH_WIREMOCK_JAR} does not exist` };
  }
  const dir =
    process.env.BENCH_WIREMOCK_DIR || join(tmpdir(), 'investment-api-fake-bench', `wiremock-${WIREMOCK_VERSION}`);
  const cached = jarIn(dir);
  if (cached) return { jar: cached };
  mkdirSync(dir, { recursive: true });
  progress(`fetching ${PACKAGE} into ${dir} (once)…`);
  const args = ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'];
  const error = await new Promise((resolve) =>
    execFile('npm', [...args, '--prefix', dir, PACKAGE], { timeout: 300_000 }, (e, _out, stderr) =>
      resolve(e && `npm install ${PACKAGE} failed: ${(stderr || e.message).trim().split('\n').slice(-3).join(' ')}`),
    ),
  );
  if (error) return { error };
  const jar = jarIn(dir);
  return jar ? { jar } : { error: `${PACKAGE} installed, but its jar was not found in ${dir}` };
}

function javaVersion() {
  return new Promise((resolve) =>
    execFile('java', ['-version'], (error, _out, stderr) =>
      resolve(error ? undefined : String(stderr).split('\n')[0]?.trim()),
    ),
  );
}

/** A WireMock root dir whose mappings answer `answers` (the fake's), each read only with a Bearer header. */
function wiremockRoot(answers) {
  const root = mkdtempSync(join(tmpdir(), 'wiremock-overhead-'));
  mkdirSync(join(root, 'mappings'));
  mkdirSync(join(root, '__files'));
  answers.forEach((answer, i) => {
    const [path, query] = answer.path.split('?');
    const request = {
      method: answer.method,
      urlPath: path,
      ...(query && {
        queryParameters: Object.fromEntries([...new URLSearchParams(query)].map(([k, v]) => [k, { equalTo: v }])),
      }),
      ...(answer.method === 'GET' && { headers: { Authorization: { matches: 'Bearer .+' } } }),
      ...(answer.method === 'POST' && {
        bodyPatterns: [{ contains: 'grant_type=client_credentials' }],
      }),
    };
    const mapping = {
      request,
      response: { status: answer.status, headers: { 'Content-Type': answer.contentType }, body: answer.body },
    };
    writeFileSync(join(root, 'mappings', `${i}.json`), JSON.stringify(mapping));
  });
  return root;
}

function spawnWiremock(jar, root, port) {
  const args = ['-jar', jar, '--port', String(port), '--bind-address', '127.0.0.1', '--root-dir', root];
  const child = spawn('java', [...args, '--disable-banner'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.once('exit', () => child.kill('SIGKILL'));
  return {
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP: one keep-alive connection per side

function client(base) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (method, path, { headers = {}, body } = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request(`${base}${path}`, { method, headers, agent, timeout: 30_000 }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.once('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.once('error', reject);
      });
      req.once('timeout', () => req.destroy(new Error(`${method} ${base}${path}: timed out`)));
      req.once('error', reject);
      req.end(body);
    });
}

const tokenForm = (host) =>
  new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline',
    client_id: CLIENT.id,
    client_secret: CLIENT.secret,
    audience: host,
  }).toString();

/** One side of the loop: its base URL, its reset and the reads; `iteration()` resolves to the ms of each step. */
function side(name, base, { resetPath, resetStatus, reads, host, pid }) {
  const ask = client(base);
  const form = tokenForm(host);
  const formHeaders = {
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': Buffer.byteLength(form),
  };
  const expect = (response, status, what) => {
    if (response.status !== status) throw new Error(`${name} ${what}: ${response.status} ${response.body}`);
    return response;
  };
  return {
    name,
    pid,
    async iteration() {
      const t0 = performance.now();
      expect(await ask('POST', resetPath), resetStatus, 'reset');
      const t1 = performance.now();
      const token = JSON.parse(
        expect(await ask('POST', '/oauth2/token', { headers: formHeaders, body: form }), 200, 'token').body,
      ).access_token;
      const t2 = performance.now();
      const authorization = { authorization: `Bearer ${token}` };
      for (const path of reads) expect(await ask('GET', path, { headers: authorization }), 200, path);
      const t3 = performance.now();
      return { total: t3 - t0, reset: t1 - t0, token: t2 - t1, reads: t3 - t2 };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The answers, from the fake

async function answersOf(fake) {
  const ask = client(fake.url);
  const host = new URL(fake.url).host;
  const form = tokenForm(host);
  await ask('POST', '/__control/reset');
  const token = await ask('POST', '/oauth2/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  if (token.status !== 200) throw new Error(`fake token: ${token.status} ${token.body}`);
  const authorization = { authorization: `Bearer ${JSON.parse(token.body).access_token}` };
  const accounts = JSON.parse((await ask('GET', '/v1/accounts?limit=1', { headers: authorization })).body);
  const reads = READS(accounts.data[0].id);
  const answers = [
    {
      method: 'POST',
      path: '/oauth2/token',
      status: 200,
      contentType: token.headers['content-type'],
      body: token.body,
    },
  ];
  for (const path of reads) {
    const read = await ask('GET', path, { headers: authorization });
    if (read.status !== 200) throw new Error(`fake ${path}: ${read.status}`);
    answers.push({ method: 'GET', path, status: 200, contentType: read.headers['content-type'], body: read.body });
  }
  return { answers, reads };
}

// ---------------------------------------------------------------------------------------------------------------
// First answer: spawn → the first 200 of the token request

async function untilToken(port, child) {
  const host = `127.0.0.1:${port}`;
  const form = tokenForm(host);
  const start = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server on ${port} exited with ${child.exitCode}`);
    const status = await new Promise((resolve) => {
      const req = http.request(
        `http://${host}/oauth2/token`,
        {
          method: 'POST',
          agent: false,
          timeout: 5000,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode));
        },
      );
      req.once('timeout', () => req.destroy());
      req.once('error', () => resolve(0));
      req.end(form);
    });
    if (status === 200) return performance.now() - start;
    if (performance.now() - start > 60_000) throw new Error(`no token from ${host} within 60 s`);
    await sleep(5);
  }
}

/** The servers whose start is timed: each `spawn(port)` resolves to a process with `child` and `stop()`. */
async function firstAnswers(starters) {
  const runs = Object.fromEntries(starters.map(({ name }) => [name, []]));
  for (let i = 0; i < STARTS; i++) {
    // which starts first turns round, so a machine busier at one moment does not weigh on one server
    const order = starters.map((_, k) => starters[(k + i) % starters.length]);
    for (const { name, spawnAt } of order) {
      const port = await freePort();
      const proc = spawnAt(port);
      runs[name].push(await untilToken(port, proc.child));
      await proc.stop();
    }
    progress(
      `first answer ${i + 1}/${STARTS}: ${starters.map(({ name }) => `${name} ${runs[name].at(-1).toFixed(0)} ms`).join(', ')}`,
    );
  }
  return runs;
}

// ---------------------------------------------------------------------------------------------------------------

const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const quantiles = (xs) => ({
  p50: percentile(xs, 50),
  p90: percentile(xs, 90),
  p99: percentile(xs, 99),
  max: Math.max(...xs),
  first: xs[0],
});
const STEPS = ['total', 'reset', 'token', 'reads'];

async function overhead(sides) {
  const runs = Object.fromEntries(sides.map((s) => [s.name, []]));
  const cpuBefore = Object.fromEntries(sides.map((s) => [s.name, cpuOf(s.pid)]));
  for (let i = 0; i < ITERATIONS; i++) {
    for (let k = 0; k < sides.length; k++) {
      const s = sides[(k + i) % sides.length];
      const at = Number(process.hrtime.bigint() / 1000n);
      runs[s.name].push({ ...(await s.iteration()), at });
    }
    if ((i + 1) % 500 === 0) progress(`overhead ${i + 1}/${ITERATIONS}`);
  }
  if (SERIES) writeFileSync(SERIES, JSON.stringify(runs));
  // the server's CPU per iteration: less swayed by a busy machine than its latency (a GC pause's helper threads count)
  const cpuPerIteration = (s) => {
    const after = cpuOf(s.pid);
    const before = cpuBefore[s.name];
    return {
      main: ((after.main - before.main) * 1000) / ITERATIONS,
      all: ((after.all - before.all) * 1000) / ITERATIONS,
    };
  };
  return Object.fromEntries(
    sides.map((s) => [
      s.name,
      {
        ...Object.fromEntries(STEPS.map((step) => [step, quantiles(runs[s.name].map((r) => r[step]))])),
        cpu: cpuPerIteration(s),
        series: runs[s.name].map((r) => r.total),
      },
    ]),
  );
}

/** A fake's CLI from a dist/ folder: this build's (snapshot) or the baseline's. */
const cliOf = (root) => (root ? join(root, 'bundle', 'cli.js') : dist.cli);

async function main() {
  let wm;
  if (WITH_WIREMOCK) {
    const java = await javaVersion();
    if (!java) throw new Error('java is not on PATH: WireMock needs Java 11+ (or --no-wiremock)');
    wm = { java, ...(await ensureWiremock()) };
    if (wm.error) throw new Error(wm.error);
  }
  if (process.env.BENCH_SNAPSHOT !== '0') snapshotDist();
  const fakes = [{ name: 'fake', cli: cliOf() }, ...(BASELINE ? [{ name: 'baseline', cli: cliOf(BASELINE) }] : [])];

  const sample = await startCli();
  const { answers, reads } = await answersOf(sample);
  await sample.stop();
  const root = WITH_WIREMOCK && wiremockRoot(answers);
  if (root) process.once('exit', () => rmSync(root, { recursive: true, force: true }));

  const report = {
    node: process.version,
    java: wm?.java,
    iterations: ITERATIONS,
    reads,
    bytes: answers.map((a) => Buffer.byteLength(a.body)),
    names: [...fakes.map((f) => f.name), ...(WITH_WIREMOCK ? ['wiremock'] : [])],
  };

  if (ONLY !== 'first') {
    const stdio = FAKE_STDOUT ? ['ignore', openSync(FAKE_STDOUT, 'w'), 'inherit'] : undefined;
    const running = [];
    const sides = [];
    for (const { name, cli } of fakes) {
      // the profiling flags and the log file are this build's only
      const own = name === 'fake';
      const fake = await startCli({ cli, nodeArgs: own ? FAKE_NODE_ARGS : [], ...(own && stdio && { stdio }) });
      running.push(fake);
      sides.push(
        side(name, fake.url, {
          resetPath: '/__control/reset',
          resetStatus: 204,
          reads,
          host: new URL(fake.url).host,
          pid: fake.pid,
        }),
      );
    }
    if (WITH_WIREMOCK) {
      const port = await freePort();
      const wiremock = spawnWiremock(wm.jar, root, port);
      const url = `http://127.0.0.1:${port}`;
      await waitUntilUp(`${url}/__admin/health`, { timeoutMs: 60_000, child: wiremock.child });
      running.push(wiremock);
      sides.push(
        side('wiremock', url, {
          resetPath: '/__admin/reset',
          resetStatus: 200,
          reads,
          host: `127.0.0.1:${port}`,
          pid: wiremock.child.pid,
        }),
      );
    }
    progress(`${sides.map((s) => s.name).join(', ')}: ${ITERATIONS} iterations each, in turn`);
    report.overhead = await overhead(sides);
    await Promise.all(running.map((r) => r.stop()));
  }
  if (ONLY !== 'overhead') {
    report.firstAnswer = await firstAnswers([
      ...fakes.map(({ name, cli }) => ({
        name,
        spawnAt: (port) => spawnNode([cli], { env: { PORT: String(port), HOST: '127.0.0.1' } }),
      })),
      ...(WITH_WIREMOCK ? [{ name: 'wiremock', spawnAt: (port) => spawnWiremock(wm.jar, root, port) }] : []),
    ]);
  }

  print(report);
  if (JSON_OUT) {
    const { overhead: o, ...rest } = report;
    const trimmed = o && Object.fromEntries(Object.entries(o).map(([k, { series, ...v }]) => [k, v]));
    console.log(JSON.stringify({ ...rest, overhead: trimmed }));
  }
}

const LABELS = { fake: 'fake', baseline: 'baseline', wiremock: 'WireMock' };
const tailAfter = (series, skip) => percentile(series.slice(skip), 99);

function print(report) {
  const { names } = report;
  const against = names.includes('wiremock') ? 'wiremock' : undefined;
  console.log(
    `\nA partner test's overhead (reset + token + 3 reads): ${names.map((n) => LABELS[n]).join(', ')}; one run`,
  );
  console.log(`Node ${report.node}${report.java ? `; ${report.java}; WireMock ${WIREMOCK_VERSION}` : ''}`);
  console.log(`reads: ${report.reads.join(', ')}`);
  console.log(`answers: token ${report.bytes[0]} B, reads ${report.bytes.slice(1).join(' / ')} B\n`);
  const head = names.map((n) => LABELS[n].padStart(9)).join(' ');
  console.log(`${''.padEnd(50)} ${head}${against ? '  fake/WireMock  target' : ''}`);
  const line = (label, values, target = '') => {
    const cells = names.map((n) => ms(values[n]).padStart(9)).join(' ');
    const ratio = against ? `${(values.fake / values[against]).toFixed(2)}×`.padStart(14) : '';
    console.log(`${label.padEnd(50)} ${cells}${ratio}  ${target}`);
  };
  const verdict = (ok) => (ok ? 'PASS' : 'MISS');
  const o = report.overhead;
  if (o) {
    const pick = (f) => Object.fromEntries(names.map((n) => [n, f(o[n])]));
    const p50 = pick((x) => x.total.p50);
    const p99 = pick((x) => x.total.p99);
    line(
      `overhead p50 (ms; ${report.iterations} iterations)`,
      p50,
      against ? `≤ 0.5× ${verdict(p50.fake <= 0.5 * p50[against])}` : '',
    );
    line(
      'overhead p90',
      pick((x) => x.total.p90),
    );
    line('overhead p99', p99, against ? `≤ 1× ${verdict(p99.fake <= p99[against])}` : '');
    line(
      'overhead max',
      pick((x) => x.total.max),
    );
    line(
      'overhead, first iteration',
      pick((x) => x.total.first),
    );
    line(
      'overhead p99 past the first 100 iterations',
      pick((x) => tailAfter(x.series, 100)),
    );
    line(
      'server CPU per iteration, all threads (ms)',
      pick((x) => x.cpu.all),
    );
    line(
      '  of which the main thread (ms; WireMock: its main)',
      pick((x) => x.cpu.main),
    );
    for (const step of ['reset', 'token', 'reads']) {
      line(
        `  ${step} p50`,
        pick((x) => x[step].p50),
      );
      line(
        `  ${step} p99`,
        pick((x) => x[step].p99),
      );
    }
  }
  const fa = report.firstAnswer;
  if (fa) {
    const medians = Object.fromEntries(names.map((n) => [n, median(fa[n])]));
    line(
      `first answer (spawn → token 200; median of ${STARTS})`,
      medians,
      against ? `≤ 0.3× ${verdict(medians.fake <= 0.3 * medians[against])}` : '',
    );
    for (const n of names) console.log(`  ${LABELS[n]}: ${fa[n].map((x) => x.toFixed(0)).join(' ')} ms`);
  }
}

await main();
