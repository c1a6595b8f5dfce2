#!/usr/bin/env node
// How far a fake that serializes its answers can get beside bare Express answering fixed bytes: the distinct-URL
// orders list of bench/partner-session.mjs (200 URLs of one answer in turn) on three servers, each in its own
// process, in alternating rounds:
//   bytes  bare Express sending the fake's answer as fixed bytes (partner-session.mjs's baseline)
//   json   bare Express answering the same value with res.json: serializing it on every request, nothing else
//   fake   the fake's CLI (token check, parameter check, journal, log line, …)
// Figures: req/s and main-thread CPU per request (utime + stime of /proc/<pid>/task/<pid>/stat), medians of rounds,
// on this Node and on Node 24 (BENCH_NODE24=0 to leave it out, or a path to another binary).
//
//   npm run build && node bench/serialize-ceiling.mjs [--rounds=4] [--seconds=5]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cannon,
  cpuOf,
  fetchToken,
  median,
  onThisNodeAndNode24,
  progress,
  request,
  requireBuild,
  startBareExpress,
  startCli,
} from './lib.mjs';
import { DISTINCT_ORDER_PATHS } from './throughput.mjs';

const option = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const ROUNDS = option('rounds', 4);
const SECONDS = option('seconds', 5);

async function measure(node, label) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ceiling-'));
  const servers = {};
  try {
    servers.fake = await startCli({ node });
    const auth = `Bearer ${await fetchToken(servers.fake.url)}`;
    const answer = await request(servers.fake.url + DISTINCT_ORDER_PATHS[0], { headers: { authorization: auth } });
    if (answer.status !== 200) throw new Error(`GET ${DISTINCT_ORDER_PATHS[0]} answered ${answer.status}`);
    const routes = join(dir, 'routes.json');
    writeFileSync(
      routes,
      JSON.stringify([{ method: 'GET', path: '/v1/orders', status: 200, body: answer.body.toString('utf8') }]),
    );
    for (const mode of ['bytes', 'json']) servers[mode] = await startBareExpress(routes, mode, node);
    const run = async (name, duration) => {
      const server = servers[name];
      const before = cpuOf(server.pid).main;
      const result = await cannon({
        url: server.url,
        paths: DISTINCT_ORDER_PATHS,
        headers: { authorization: auth },
        duration,
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${name} (${label}): ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      return { rps: result.rps, cpuUs: ((cpuOf(server.pid).main - before) * 1e6) / result.ok };
    };
    const names = ['bytes', 'json', 'fake'];
    for (const name of names) await run(name, 2);
    const runs = { bytes: [], json: [], fake: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 ? [...names].reverse() : names) {
        const result = await run(name, SECONDS);
        runs[name].push(result);
        progress(
          `round ${round + 1}/${ROUNDS} ${name} (${label}): ${result.rps.toFixed(0)} req/s, main thread ${result.cpuUs.toFixed(0)} µs/request`,
        );
      }
    }
    const rps = Object.fromEntries(names.map((n) => [n, median(runs[n].map((r) => r.rps))]));
    const cpu = Object.fromEntries(names.map((n) => [n, median(runs[n].map((r) => r.cpuUs))]));
    console.log(
      `\n${label}: GET /v1/orders?limit=100, every URL distinct (${answer.body.length} B), ${ROUNDS} × ${SECONDS} s, medians`,
    );
    for (const name of names) {
      console.log(
        `  ${name.padEnd(5)} ${rps[name].toFixed(0).padStart(6)} req/s (${(rps[name] / rps.bytes).toFixed(2)}× bytes)  ${cpu[name].toFixed(0).padStart(4)} µs/request main thread`,
      );
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

requireBuild();
await onThisNodeAndNode24(measure);
process.exit(0);
