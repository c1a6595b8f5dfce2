// STATE_DIR and a large tenant (issue 30): what keeping a large tenant on disk costs another tenant's requests.
//
//   node bench/state-dir-isolation.mjs   (after `npm run build`; about a minute; --quick: fewer seconds per phase)
//
// The CLI with STATE_DIR and a large generated world (FIXTURE_ACCOUNTS/FIXTURE_ORDERS: every tenant starts with it;
// its file is printed). A client `big` acts twice a second while autocannon measures another tenant's small read
// (GET /v1/accounts?limit=1, 4 connections): first `big` only reads (its file must never be rewritten), then it
// writes (a create: its file is rewritten after each, serialized in slices). The baseline is the same load on the
// same world without STATE_DIR. What to look at: the other tenant's p99 in each phase against the baseline.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfig, cannon, fetchToken, progress, request, requireBuild, sleep, startCli } from './lib.mjs';
import { ACCOUNT_BODY } from './throughput.mjs';

const config = benchConfig();
const duration = config.quick ? 4 : 10;
const WORLD = { FIXTURE_ACCOUNTS: '20000', FIXTURE_ORDERS: '60000' };

requireBuild();
const dir = mkdtempSync(join(tmpdir(), 'bench-isolation-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

const json = { 'content-type': 'application/json' };

async function phase(fake, bigToken, otherToken, act) {
  let acting = true;
  const acts = (async () => {
    while (acting) {
      await act(fake.url, bigToken);
      await sleep(500);
    }
  })();
  const other = await cannon({
    url: `${fake.url}/v1/accounts?limit=1`,
    headers: { authorization: `Bearer ${otherToken}` },
    duration,
    connections: 4,
  });
  acting = false;
  await acts;
  return other;
}

const readBig = (url, token) => request(`${url}/v1/orders?limit=1`, { headers: { authorization: `Bearer ${token}` } });
const writeBig = (url, token) => {
  const body = ACCOUNT_BODY.replace('bench-1', `bench-${Math.random()}`);
  return request(`${url}/v1/accounts`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(body) },
    body,
  });
};

async function run(stateDir) {
  const fake = await startCli({ env: { LOG_LEVEL: 'silent', ...WORLD, ...(stateDir && { STATE_DIR: stateDir }) } });
  try {
    for (const id of ['big', 'other']) {
      const body = JSON.stringify({ client_id: id, client_secret: 's' });
      await request(`${fake.url}/__control/clients`, {
        method: 'POST',
        headers: { ...json, 'content-length': Buffer.byteLength(body) },
        body,
      });
    }
    const bigToken = await fetchToken(fake.url, { clientId: 'big', clientSecret: 's' });
    const otherToken = await fetchToken(fake.url, { clientId: 'other', clientSecret: 's' });
    await writeBig(fake.url, bigToken);
    // warm-up: the worlds just made are collected before anything is measured
    await cannon({
      url: `${fake.url}/v1/accounts?limit=1`,
      headers: { authorization: `Bearer ${otherToken}` },
      duration: 3,
      connections: 4,
    });
    await sleep(1000);
    const file = stateDir && join(stateDir, 'tenants', 'big.json');
    const ino = file && statSync(file).ino;
    const reads = await phase(fake, bigToken, otherToken, readBig);
    const rewrittenByReads = file ? statSync(file).ino !== ino : undefined;
    const writes = await phase(fake, bigToken, otherToken, writeBig);
    return { reads, writes, rewrittenByReads, fileBytes: file ? statSync(file).size : undefined };
  } finally {
    await fake.stop();
  }
}

progress('baseline (memory only)');
const memory = await run(undefined);
progress('STATE_DIR');
const kept = await run(dir);
const row = (name, r) => `| ${name} | ${r.p50} | ${r.p99} | ${r.rps.toFixed(0)} |`;
process.stdout.write(
  [
    `big tenant file: ${(kept.fileBytes / 1e6).toFixed(1)} MB; rewritten by reads: ${kept.rewrittenByReads ? 'yes' : 'no'}`,
    '',
    "| the other tenant's GET /v1/accounts?limit=1 while `big` acts twice a second | p50 ms | p99 ms | req/s |",
    '|---|---|---|---|',
    row('memory only, big reads', memory.reads),
    row('STATE_DIR, big reads', kept.reads),
    row('memory only, big writes', memory.writes),
    row('STATE_DIR, big writes', kept.writes),
    '',
  ].join('\n'),
);
