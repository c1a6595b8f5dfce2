// STATE_DIR (issue #21): what keeping tenants on disk costs the request path, and what a SIGKILL loses.
//
//   node bench/state-dir.mjs            (after `npm run build`; about 2 minutes; --quick: about 40 s)
//
// 1. Throughput: the CLI with and without STATE_DIR, GET /v1/orders?limit=100 and POST /v1/accounts (autocannon,
//    10 connections), rounds alternating the two servers. Each create makes the world bigger, so the writes of the
//    STATE_DIR server grow through the run: the create figure is the worst case of a tenant being filled.
// 2. SIGKILL: creates one account at a time (each acknowledged with 201) and kills the process with SIGKILL at a
//    random instant; after the restart, counts the acknowledged accounts that are gone and how long before the kill
//    the oldest of them was acknowledged: the window a SIGKILL can lose.
// 3. Memory per tenant on disk: the size of a tenant file of the default world.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchConfig,
  cannon,
  fetchToken,
  json,
  median,
  progress,
  request,
  requireBuild,
  sleep,
  startCli,
} from './lib.mjs';
import { ACCOUNT_BODY } from './throughput.mjs';

const config = benchConfig();
const duration = config.quick ? 3 : 8;
const rounds = config.quick ? 1 : 3;
const kills = config.quick ? 3 : 8;

requireBuild();
const dirs = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-state-'));
  dirs.push(dir);
  return dir;
};
process.once('exit', () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const QUIET = { LOG_LEVEL: 'silent' };

async function throughput() {
  const figures = { memory: { orders: [], create: [] }, stateDir: { orders: [], create: [] } };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['memory', 'stateDir'] : ['stateDir', 'memory'];
    for (const mode of order) {
      const fake = await startCli({ env: { ...QUIET, ...(mode === 'stateDir' && { STATE_DIR: freshDir() }) } });
      try {
        const authorization = `Bearer ${await fetchToken(fake.url)}`;
        await cannon({ url: `${fake.url}/v1/orders?limit=100`, headers: { authorization }, duration: 1 });
        const orders = await cannon({ url: `${fake.url}/v1/orders?limit=100`, headers: { authorization }, duration });
        const create = await cannon({
          url: `${fake.url}/v1/accounts`,
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: ACCOUNT_BODY,
          duration,
        });
        figures[mode].orders.push(orders);
        figures[mode].create.push(create);
        progress(
          `round ${round + 1} ${mode}: orders ${orders.rps.toFixed(0)} req/s, create ${create.rps.toFixed(0)} req/s (${create.non2xx} non-2xx)`,
        );
      } finally {
        await fake.stop();
      }
    }
  }
  const row = (mode, op) => {
    const runs = figures[mode][op];
    return {
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
    };
  };
  return Object.fromEntries(
    ['orders', 'create'].map((op) => [op, { memory: row('memory', op), stateDir: row('stateDir', op) }]),
  );
}

async function sigkillLoss() {
  const results = [];
  for (let run = 0; run < kills; run++) {
    const dir = freshDir();
    const fake = await startCli({ env: { ...QUIET, STATE_DIR: dir } });
    const authorization = `Bearer ${await fetchToken(fake.url)}`;
    const acknowledged = [];
    const killAt = 1500 + Math.random() * 1500;
    const started = Date.now();
    let killedAt = 0;
    const killer = sleep(killAt).then(() => {
      killedAt = Date.now();
      fake.child.kill('SIGKILL');
    });
    for (let i = 0; !killedAt; i++) {
      const body = ACCOUNT_BODY.replace('"bench-1"', `"kill-${i}"`);
      try {
        const response = await request(`${fake.url}/v1/accounts`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          body,
        });
        if (response.status === 201) acknowledged.push({ id: json(response).id, at: Date.now() });
      } catch {
        break; // the connection died with the process
      }
    }
    await killer;
    await fake.exited;
    const again = await startCli({ env: { ...QUIET, STATE_DIR: dir } });
    const token = await fetchToken(again.url);
    const kept = new Set();
    for (let skip = 0; ; skip += 1000) {
      const page = json(
        await request(`${again.url}/v1/accounts?limit=1000&skip=${skip}`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      ).data;
      for (const a of page) kept.add(a.id);
      if (page.length < 1000) break;
    }
    await again.stop();
    const lost = acknowledged.filter((a) => !kept.has(a.id));
    const windowMs = lost.length === 0 ? 0 : killedAt - Math.min(...lost.map((a) => a.at));
    results.push({ acknowledged: acknowledged.length, lost: lost.length, windowMs, ranMs: killedAt - started });
    progress(
      `kill ${run + 1}: ${acknowledged.length} creates acknowledged, ${lost.length} lost, the oldest lost acknowledged ${windowMs} ms before the kill`,
    );
  }
  return results;
}

async function tenantFileSize() {
  const dir = freshDir();
  const fake = await startCli({ env: { ...QUIET, STATE_DIR: dir } });
  await fetchToken(fake.url);
  await fake.stop();
  const folder = join(dir, 'tenants');
  return readdirSync(folder).map((name) => statSync(join(folder, name)).size)[0];
}

progress('STATE_DIR: throughput with and without');
const speed = await throughput();
progress('STATE_DIR: SIGKILL at a random instant under creates');
const loss = await sigkillLoss();
const bytes = await tenantFileSize();

const fmt = (r) =>
  `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(3)} ms`;
console.log(`\nSTATE_DIR benchmark (Node ${process.version}, ${rounds} round(s) of ${duration} s, 10 connections)\n`);
for (const [op, label] of [
  ['orders', 'GET /v1/orders?limit=100'],
  ['create', 'POST /v1/accounts'],
]) {
  const { memory, stateDir } = speed[op];
  console.log(`${label.padEnd(26)} memory only: ${fmt(memory)}`);
  console.log(
    `${''.padEnd(26)} STATE_DIR:   ${fmt(stateDir)}  (${((stateDir.rps / memory.rps) * 100).toFixed(0)} % of memory only)`,
  );
}
const worst = Math.max(...loss.map((l) => l.windowMs));
console.log(
  `\nSIGKILL under one-at-a-time creates, ${loss.length} kills: lost ${loss.map((l) => `${l.lost}/${l.acknowledged}`).join(', ')} acknowledged creates;`,
);
console.log(
  `the oldest lost create was acknowledged at most ${worst} ms before the kill (median ${median(loss.map((l) => l.windowMs))} ms).`,
);
console.log(`A tenant file of the default world: ${(bytes / 1024).toFixed(1)} KB.`);
