// Specmatic's contract tests of the fake, from the examples of its own OpenAPI document, as a partner's QA team would
// run them (docs/contract-testing.md) and as .ci/run does: fresh seed-1 fakes (the built CLI), a token from
// POST /oauth2/token for the security scheme, example-based tests only (specmatic.yaml: strict, no generated tests).
// Prints Specmatic's totals and exits non-zero unless every test ran and passed.
//
//   node scripts/specmatic-contract.mjs                       the full run: the document's examples and the external
//                                                             files of src/api/examples/, on the fakes they ask for
//   node scripts/specmatic-contract.mjs --plain               a partner's first run: the served document, the docs'
//                                                             specmatic.yaml, a token, no filter, no files
//   node scripts/specmatic-contract.mjs --install-jar <dir>   installs the pinned package there; prints the jar's path
//
// SPECMATIC_JAR names the jar, else the pinned npm package `specmatic` is installed in a temporary folder.
//
// Java 17 or later runs the jar (.ci/run installs Debian's openjdk-17-jre-headless when it is missing).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  answerCode,
  documentedExamples,
  INVALID_TOKEN,
  maxTenantBytesOf,
  readDocument,
  readExampleFiles,
  resolved,
} from './contract-examples.mjs';

/** The Specmatic this project tests with: the npm package `specmatic`, which ships the jar. */
export const SPECMATIC_VERSION = '2.55.1';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = join(ROOT, 'specmatic.yaml');
const CLI = join(ROOT, 'dist', 'bundle', 'cli.js');
const DEFAULT_CLIENT = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' };
const NO_SCOPE = { client_id: 'specmatic-no-scope', client_secret: 'specmatic-no-scope', scopes: [] };
const THROTTLED = { client_id: 'specmatic-throttled', client_secret: 'specmatic-throttled' };
const TOTALS = /Tests run: (\d+), Successes: (\d+), Failures: (\d+), WIP: (\d+), Errors: (\d+)/;

/** Installs the pinned `specmatic` package under `dir` (npm's own client), answering its jar. */
export function installJar(dir) {
  execFileSync(
    'npm',
    ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', `specmatic@${SPECMATIC_VERSION}`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const jar = join(dir, 'node_modules', 'specmatic', 'specmatic.jar');
  if (!existsSync(jar)) throw new Error(`specmatic@${SPECMATIC_VERSION} installed no specmatic.jar under ${dir}`);
  return jar;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address();
        server.close(() => resolve(port));
      });
  });
}

/** A seed-1 fake from the built CLI on a free port, called as `http://localhost:<port>` (the examples' audience). */
async function startFake(extraArgs = []) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [CLI, '--port', String(port), '--seed', '1', '--log-level', 'warn', ...extraArgs],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://localhost:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the fake exited (${child.exitCode}) before it answered`);
    try {
      if ((await fetch(`${url}/__control/health`)).status < 500) return { url, stop: () => stopFake(child) };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the fake did not answer its health check within 30 s');
}

function stopFake(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

async function call(url, path, init, expected) {
  const response = await fetch(`${url}${path}`, init);
  const text = await response.text();
  if (response.status !== expected)
    throw new Error(`${init?.method ?? 'GET'} ${path} answered ${response.status}, not ${expected}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const control = (url, path, body, clientId) =>
  call(
    url,
    `/__control${path}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(clientId ? { 'x-client-id': clientId } : {}) },
      body: JSON.stringify(body),
    },
    201,
  );

async function tokenOf(url, { client_id, client_secret }) {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline',
    client_id,
    client_secret,
    audience: new URL(url).host,
  });
  return (await call(url, '/oauth2/token', { method: 'POST', body: form }, 200)).access_token;
}

/**
 * Which examples Specmatic runs, and where. The document's own need only the token: every run takes them. The
 * external files need what their `x-given` says: a body padded in a member the body's schema does not have (no
 * member of the body can hold a megabyte) would be refused by Specmatic's own request check; a `state_dir` example
 * needs a fake of its own.
 */
export function specmaticPlan(document, files = readExampleFiles()) {
  const examples = documentedExamples(document, files);
  const bodySchemaHas = (e, member) => {
    const operation = document.paths[e.path][e.method.toLowerCase()];
    const schema = resolved(document, Object.values(operation.requestBody?.content ?? {})[0]?.schema);
    return schema?.properties?.[member] !== undefined;
  };
  const inline = examples.filter((e) => !e.file);
  const notRun = [];
  const fresh = [];
  const refusingWrites = [];
  for (const e of examples.filter((x) => x.file)) {
    if (e.given.padded && !bodySchemaHas(e, e.given.padded.member))
      notRun.push({ example: e, why: 'no member of the body can hold a megabyte and meet its schema' });
    else if (e.given.state_dir) refusingWrites.push(e);
    else fresh.push(e);
  }
  return { examples, inline, fresh, refusingWrites, notRun, files };
}

/**
 * The example file as this run sends it: the shipped file (its `summary` and `x-given` left out) with what its
 * `x-given` asks for filled in: a token of this run, the padded body.
 */
function externalExample(e, file, authorization) {
  const { method, path, query, headers } = file['http-request'];
  const body = e.request.body;
  return {
    'http-request': {
      method,
      path,
      ...(query ? { query } : {}),
      headers: { ...headers, ...(authorization ? { Authorization: authorization } : {}) },
      ...(body === undefined ? {} : { body }),
    },
    'http-response': file['http-response'],
  };
}

/**
 * The tests Specmatic makes of the document alone: one per response example (its request is the parameter and body
 * examples of the same name; a request example without an answer of its name, such as a 204's, is ignored).
 */
export function inlineTestCount(document) {
  let count = 0;
  for (const item of Object.values(document.paths))
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      for (const response of Object.values(operation.responses))
        for (const media of Object.values(resolved(document, response).content ?? {}))
          count += Object.keys(media.examples ?? {}).length;
    }
  return count;
}

/** docs/contract-testing.md's `specmatic.yaml`, as a partner copies it: its first YAML block. */
export function documentedConfig() {
  const page = readFileSync(join(ROOT, 'docs', 'contract-testing.md'), 'utf8');
  const block = /```yaml\n(version: 2\n[\s\S]*?)```/.exec(page);
  if (!block)
    throw new Error('docs/contract-testing.md shows no specmatic.yaml (a ```yaml block starting `version: 2`)');
  return block[1];
}

/** One `specmatic test` against `url`; its totals. */
function runSpecmatic(jar, { url, token, cwd = ROOT, config = CONFIG, examplesDir, filter, log }) {
  // Specmatic writes its reports under its working folder (build/reports/specmatic)
  const args = [
    '-jar',
    jar,
    'test',
    ...(config ? [`--config=${config}`] : []),
    `--testBaseURL=${url}`,
    ...(filter ? [`--filter=${filter}`] : []),
    ...(examplesDir ? [`--examples=${examplesDir}`] : []),
  ];
  const run = spawnSync('java', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, FAKE_ACCESS_TOKEN: token, SPECMATIC_DISABLE_TELEMETRY: 'true' },
  });
  writeFileSync(log, `${run.stdout ?? ''}${run.stderr ?? ''}`);
  if (run.error) throw run.error;
  const totals = TOTALS.exec(run.stdout ?? '');
  if (!totals) throw new Error(`Specmatic printed no totals (exit ${run.status}); its output: ${log}`);
  const [, tests, successes, failures, wip, errors] = totals.map(Number);
  const failed = [...(run.stdout ?? '').matchAll(/^Scenario: .* has FAILED$/gm)].map((m) => m[0]);
  return { line: totals[0], tests, successes, failures, wip, errors, failed };
}

/**
 * A partner's first run, as docs/contract-testing.md writes it: the document a fresh seed-1 fake serves
 * (`GET /openapi.yaml`), the page's `specmatic.yaml` beside it, a token of the default client, and nothing else: no
 * filter, no example files.
 */
async function plainRun(jar, work) {
  const fake = await startFake();
  try {
    const dir = join(work, 'plain');
    mkdirSync(dir);
    const served = await fetch(`${fake.url}/openapi.yaml`);
    const document = await served.text();
    writeFileSync(join(dir, 'openapi.yaml'), document);
    writeFileSync(join(dir, 'specmatic.yaml'), documentedConfig());
    const token = await tokenOf(fake.url, DEFAULT_CLIENT);
    const result = runSpecmatic(jar, {
      url: fake.url,
      token,
      cwd: dir,
      config: null,
      log: join(work, 'specmatic-plain.log'),
    });
    return { where: 'the served document alone (a plain run)', expected: inlineTestCount(parse(document)), ...result };
  } finally {
    await fake.stop();
  }
}

/** The full run: every exchange, the external files' too, on the fakes their `x-given` asks for. */
async function fullRun(jar, work) {
  const plan = specmaticPlan(readDocument());
  const inlineTests = inlineTestCount(readDocument());
  const fileOf = new Map(plan.files.map((f) => [f.file, f]));
  const results = [];

  // 1. A fresh seed-1 fake: the document's examples and every file but the 503s'. A token without scope, and a
  // client whose every operation a fault answers 429 once (then Specmatic retries after Retry-After, as a client
  // should), are the request parts a file cannot hold: the files go to Specmatic with them filled in.
  const maxTenantBytes = maxTenantBytesOf(plan.fresh);
  const fresh = await startFake(maxTenantBytes === undefined ? [] : ['--max-tenant-bytes', String(maxTenantBytes)]);
  try {
    const token = await tokenOf(fresh.url, DEFAULT_CLIENT);
    await control(fresh.url, '/clients', NO_SCOPE);
    await control(fresh.url, '/clients', THROTTLED);
    const tokens = {
      without_scope: await tokenOf(fresh.url, NO_SCOPE),
      throttled: await tokenOf(fresh.url, THROTTLED),
    };
    const examplesDir = join(work, 'examples');
    mkdirSync(examplesDir);
    for (const e of plan.fresh) {
      let authorization = `Bearer ${token}`;
      if (e.given.token === 'invalid') authorization = `Bearer ${INVALID_TOKEN}`;
      else if (e.given.token === 'without_scope') authorization = `Bearer ${tokens.without_scope}`;
      else if (e.given.fault) {
        await control(
          fresh.url,
          '/faults',
          { method: e.method, path: e.path, status: e.given.fault, count: 1 },
          THROTTLED.client_id,
        );
        authorization = `Bearer ${tokens.throttled}`;
      }
      writeFileSync(join(examplesDir, e.file), JSON.stringify(externalExample(e, fileOf.get(e.file), authorization)));
    }
    const result = runSpecmatic(jar, {
      url: fresh.url,
      token,
      examplesDir,
      log: join(work, 'specmatic-fresh.log'),
    });
    results.push({ where: 'a fresh seed-1 fake', expected: inlineTests + plan.fresh.length, ...result });
  } finally {
    await fresh.stop();
  }

  // 2. A seed-1 fake whose STATE_DIR cannot take writes (its tenants folder replaced by a file): the 503 files.
  const stateDir = join(work, 'state');
  const refusing = await startFake(['--state-dir', stateDir]);
  try {
    const token = await tokenOf(refusing.url, DEFAULT_CLIENT);
    const examplesDir = join(work, 'examples-503');
    mkdirSync(examplesDir);
    for (const e of plan.refusingWrites)
      writeFileSync(
        join(examplesDir, e.file),
        JSON.stringify(externalExample(e, fileOf.get(e.file), `Bearer ${token}`)),
      );
    renameSync(join(stateDir, 'tenants'), join(stateDir, 'tenants.away'));
    writeFileSync(join(stateDir, 'tenants'), '');
    await control(refusing.url, '/clients', { client_id: 'specmatic-state', client_secret: 'specmatic-state' });
    for (let i = 0; i < 100 && (await fetch(`${refusing.url}/__control/health`)).status !== 503; i++) await sleep(100);
    const result = runSpecmatic(jar, {
      url: refusing.url,
      token,
      examplesDir,
      // the files' tests only: the document's would meet a fake that refuses every write
      filter: `STATUS='503'`,
      log: join(work, 'specmatic-refusing-writes.log'),
    });
    results.push({
      where: 'a seed-1 fake whose STATE_DIR cannot take writes',
      expected: plan.refusingWrites.length,
      ...result,
    });
  } finally {
    rmSync(join(stateDir, 'tenants'), { force: true });
    if (existsSync(join(stateDir, 'tenants.away')))
      renameSync(join(stateDir, 'tenants.away'), join(stateDir, 'tenants'));
    await refusing.stop();
  }
  return { plan, results };
}

async function main() {
  const at = process.argv.indexOf('--install-jar');
  if (at >= 0) {
    console.log(installJar(process.argv[at + 1] ?? mkdtempSync(join(tmpdir(), 'specmatic-'))));
    return;
  }
  const plain = process.argv.includes('--plain');
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.status !== 0)
    throw new Error(
      'Specmatic runs on Java 17 or later, and `java` is not on PATH (Debian: apt-get install openjdk-17-jre-headless)',
    );
  const work = mkdtempSync(join(tmpdir(), 'specmatic-contract-'));
  const jar = process.env.SPECMATIC_JAR || installJar(join(work, 'tool'));
  if (!existsSync(jar)) throw new Error(`SPECMATIC_JAR ${jar} does not exist`);
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, stdio: 'inherit' });

  let results;
  if (plain) {
    results = [await plainRun(jar, work)];
    console.log(
      `Specmatic ${SPECMATIC_VERSION}: the document a fresh seed-1 fake serves, with a token and nothing else`,
    );
  } else {
    const full = await fullRun(jar, work);
    results = full.results;
    console.log(
      `Specmatic ${SPECMATIC_VERSION}: the examples of src/api/openapi.yaml and src/api/examples/ against seed-1 fakes`,
    );
    const byWhy = new Map();
    for (const { example, why } of full.plan.notRun) byWhy.set(why, [...(byWhy.get(why) ?? []), example.name]);
    const notRun = [...byWhy].map(([why, names]) => `${names.join(', ')} (${why})`);
    if (notRun.length)
      console.log(`  not run by Specmatic, replayed by test/contract/examples.test.ts: ${notRun.join('; ')}`);
    const { examples } = full.plan;
    const codes = examples.filter((e) => e.status >= 400).length;
    console.log(
      `  ${examples.length} exchanges of /v1 and the token endpoint (${full.plan.inline.length} in the document, ${full.plan.files.length} in files), ${codes} of them errors each naming its code (${new Set(examples.map((e) => answerCode(e.answer)).filter(Boolean)).size} codes)`,
    );
  }
  const sum = (key) => results.reduce((total, r) => total + r[key], 0);
  for (const r of results) {
    console.log(`  ${r.where}: ${r.line}${r.tests === r.expected ? '' : ` (expected ${r.expected} tests)`}`);
    for (const failed of r.failed) console.log(`    ${failed}`);
  }
  if (results.length > 1)
    console.log(
      `  in all: Tests run: ${sum('tests')}, Successes: ${sum('successes')}, Failures: ${sum('failures')}, WIP: ${sum('wip')}, Errors: ${sum('errors')}`,
    );
  const ok = results.every(
    (r) => r.tests === r.expected && r.successes === r.tests && r.failures === 0 && r.errors === 0,
  );
  console.log(`${sum('successes')} passed, ${sum('tests') - sum('successes')} failed`);
  if (!ok) {
    console.error(`Specmatic's contract tests did not all pass; its output: ${work}`);
    process.exitCode = 1;
  } else {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
