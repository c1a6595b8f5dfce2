// Specmatic's contract tests of the fake, from the examples of its own OpenAPI document, as a partner's QA team would
// run them (docs/contract-testing.md) and as .ci/run does: fresh seed-1 fakes (the built CLI), a token from
// POST /oauth2/token for the security scheme, example-based tests only (specmatic.yaml: strict, no generated tests).
// Prints Specmatic's totals and exits non-zero unless every test ran and passed.
//
//   node scripts/specmatic-contract.mjs                       SPECMATIC_JAR names the jar, else the pinned npm
//                                                             package `specmatic` is installed in a temporary folder
//   node scripts/specmatic-contract.mjs --install-jar <dir>   installs the pinned package there; prints the jar's path
//
// Java 17 or later runs the jar (.ci/run installs Debian's openjdk-17-jre-headless when it is missing).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  answerCode,
  bodyText,
  documentedExamples,
  INVALID_TOKEN,
  maxTenantBytesOf,
  readDocument,
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
 * Which examples Specmatic runs, and where. A body padded in a member the body's schema does not have (no member of
 * the body can hold a megabyte) would be refused by Specmatic's own request check; a `state_dir` example needs a
 * fake of its own.
 */
export function specmaticPlan(document) {
  const examples = documentedExamples(document);
  const bodySchemaHas = (e, member) => {
    const operation = document.paths[e.path][e.method.toLowerCase()];
    const schema = resolved(document, Object.values(operation.requestBody?.content ?? {})[0]?.schema);
    return schema?.properties?.[member] !== undefined;
  };
  const notRun = [];
  const fresh = [];
  const refusingWrites = [];
  for (const e of examples) {
    if (e.given.padded && !bodySchemaHas(e, e.given.padded.member))
      notRun.push({ example: e, why: 'no member of the body can hold a megabyte and meet its schema' });
    else if (e.given.state_dir) refusingWrites.push(e);
    else fresh.push(e);
  }
  return { examples, fresh, refusingWrites, notRun };
}

/**
 * The example as a file (Specmatic's external example, which takes the place of the inline one of the same name):
 * the request parts the document cannot hold, such as a token of this run, a megabyte, or a body sent as another
 * media type (Specmatic tests a 415 only from such a file).
 */
function externalExample(e, authorization) {
  const headers = {
    ...(authorization ? { Authorization: authorization } : {}),
    ...(e.request.contentType ? { 'Content-Type': e.request.contentType } : {}),
  };
  const body = e.given.content_type ? bodyText(e.request) : e.request.body;
  return {
    'http-request': {
      method: e.method,
      path: e.request.path,
      query: e.request.query,
      headers,
      ...(body === undefined ? {} : { body }),
    },
    'http-response': { status: e.status, headers: { 'Content-Type': e.mediaType }, body: e.answer },
  };
}

/** One `specmatic test` against `url`; its totals. */
function runSpecmatic(jar, { url, token, examplesDir, filter, log }) {
  // from the root, where specmatic.yaml's paths start; Specmatic writes its reports to build/reports/specmatic
  const args = [
    '-jar',
    jar,
    'test',
    `--config=${CONFIG}`,
    `--testBaseURL=${url}`,
    `--filter=${filter}`,
    ...(examplesDir ? [`--examples=${examplesDir}`] : []),
  ];
  const run = spawnSync('java', args, {
    cwd: ROOT,
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

async function main() {
  const at = process.argv.indexOf('--install-jar');
  if (at >= 0) {
    console.log(installJar(process.argv[at + 1] ?? mkdtempSync(join(tmpdir(), 'specmatic-'))));
    return;
  }
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.status !== 0)
    throw new Error(
      'Specmatic runs on Java 17 or later, and `java` is not on PATH (Debian: apt-get install openjdk-17-jre-headless)',
    );
  const work = mkdtempSync(join(tmpdir(), 'specmatic-contract-'));
  const jar = process.env.SPECMATIC_JAR || installJar(join(work, 'tool'));
  if (!existsSync(jar)) throw new Error(`SPECMATIC_JAR ${jar} does not exist`);
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, stdio: 'inherit' });

  const plan = specmaticPlan(readDocument());
  const results = [];

  // 1. A fresh seed-1 fake: every example but the 503s. A token without scope, and a client whose every
  // operation a fault answers 429 once (then Specmatic retries after Retry-After, as a client should), are the
  // request parts an example cannot hold: they go to Specmatic as external examples of the same names.
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
      let authorization;
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
      } else if (e.given.padded || e.given.content_type) authorization = `Bearer ${token}`;
      else continue;
      writeFileSync(join(examplesDir, `${e.name}.json`), JSON.stringify(externalExample(e, authorization)));
    }
    const skipped = plan.notRun.map(({ example }) => ` && EXAMPLE-NAME!='${example.name}'`).join('');
    const result = runSpecmatic(jar, {
      url: fresh.url,
      token,
      examplesDir,
      filter: `STATUS!='503'${skipped}`,
      log: join(work, 'specmatic-fresh.log'),
    });
    results.push({ where: 'a fresh seed-1 fake', expected: plan.fresh.length, ...result });
  } finally {
    await fresh.stop();
  }

  // 2. A seed-1 fake whose STATE_DIR cannot take writes (its tenants folder replaced by a file): the 503 examples.
  const stateDir = join(work, 'state');
  const refusing = await startFake(['--state-dir', stateDir]);
  try {
    const token = await tokenOf(refusing.url, DEFAULT_CLIENT);
    renameSync(join(stateDir, 'tenants'), join(stateDir, 'tenants.away'));
    writeFileSync(join(stateDir, 'tenants'), '');
    await control(refusing.url, '/clients', { client_id: 'specmatic-state', client_secret: 'specmatic-state' });
    for (let i = 0; i < 100 && (await fetch(`${refusing.url}/__control/health`)).status !== 503; i++) await sleep(100);
    const result = runSpecmatic(jar, {
      url: refusing.url,
      token,
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

  const sum = (key) => results.reduce((total, r) => total + r[key], 0);
  console.log(
    `Specmatic ${SPECMATIC_VERSION}: the examples of src/api/openapi.yaml (/v1 and POST /oauth2/token) against seed-1 fakes`,
  );
  for (const r of results) {
    console.log(`  ${r.where}: ${r.line}${r.tests === r.expected ? '' : ` (expected ${r.expected} tests)`}`);
    for (const failed of r.failed) console.log(`    ${failed}`);
  }
  console.log(
    `  in all: Tests run: ${sum('tests')}, Successes: ${sum('successes')}, Failures: ${sum('failures')}, WIP: ${sum('wip')}, Errors: ${sum('errors')}`,
  );
  const byWhy = new Map();
  for (const { example, why } of plan.notRun) byWhy.set(why, [...(byWhy.get(why) ?? []), example.name]);
  const notRun = [...byWhy].map(([why, names]) => `${names.join(', ')} (${why})`);
  if (notRun.length)
    console.log(`  not run by Specmatic, replayed by test/contract/examples.test.ts: ${notRun.join('; ')}`);
  const codes = plan.examples.filter((e) => e.status >= 400).length;
  console.log(
    `  ${plan.examples.length} examples in the document, ${codes} of them errors each naming its code (${new Set(plan.examples.map((e) => answerCode(e.answer)).filter(Boolean)).size} codes)`,
  );
  const ok = results.every(
    (r) => r.tests === r.expected && r.successes === r.tests && r.failures === 0 && r.errors === 0,
  );
  console.log(`${sum('successes')} passed, ${sum('tests') - sum('successes')} failed`);
  if (!ok) {
    console.error(
      `Specmatic's contract tests did not all pass; its output: ${results.map((r) => r.where).join(', ')} in ${work}`,
    );
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
