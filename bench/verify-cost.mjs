#!/usr/bin/env node
// What the proof calls cost at the documented limits (issue 30): how long each holds the event loop with a tenant's
// journal full (JOURNAL_SIZE entries, each with a JSON request body just within the 8 KiB the journal keeps), for
// a verify pattern at every limit (100 query parameters; a body of 1,000 members, 16 levels, 16 KiB), for patterns
// far past them (refused), and for the report, the exports and the journal's list. Budget: ~50 ms per call.
//
//   npm run build && node bench/verify-cost.mjs
//
// Standalone on purpose (no bench/lib.mjs): the fake runs in this process (dist/bundle/index.js), so the event loop
// it blocks is this one; each call is timed from outside (loopback HTTP, one at a time) and its longest event-loop
// block is read from perf_hooks' monitorEventLoopDelay (resolution 1 ms). Knobs: JOURNAL_SIZE (default 1000),
// ROUNDS (default 5; the median and the worst round are printed).
import { existsSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bundle/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) throw new Error('dist/ is missing: run `npm run build` first.');
const { startServer } = await import(entry.href);

const JOURNAL_SIZE = Number(process.env.JOURNAL_SIZE ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const fake = await startServer({ journalSize: JOURNAL_SIZE });
const token = await fake.token();
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

// A body just within the journal's 8 KiB: kept whole, so verify parses it (the costliest case).
const nested = (depth) => (depth === 0 ? { leaf: 'x'.repeat(40) } : { level: depth, next: nested(depth - 1) });
const body = JSON.stringify({
  type: 'individual',
  external_id: 'bench',
  first_name: 'A'.repeat(7000),
  extra: nested(12),
  items: Array.from({ length: 40 }, (_, i) => i),
});
if (Buffer.byteLength(body) > 8192)
  throw new Error(`the body is ${Buffer.byteLength(body)} bytes: it must stay within the journal's cut`);

async function fill() {
  let sent = 0;
  const worker = async () => {
    while (sent < JOURNAL_SIZE) {
      sent++;
      const response = await fetch(`${fake.url}/v1/accounts?limit=5&order_status=AWAITING_TOKEN_DELIVERY`, {
        method: 'POST',
        headers: auth,
        body,
      });
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

// A pattern at every limit: 100 query parameters, and a body of 1,000 members and items, 16 levels, under 16 KiB.
function patternAtLimits() {
  const query = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, `v${i}`]));
  let deep = { leaf: 1 };
  for (let i = 0; i < 14; i++) deep = { d: deep };
  const bodyPattern = { type: 'individual', deep, items: Array.from({ length: 1000 - 18 }, (_, i) => i) };
  return { request: { method: 'POST', path: '/v1/accounts', query, body: bodyPattern }, count: { at_least: 1 } };
}
const manyKeys = (n) => ({
  request: { query: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])) },
});

const control = (path, init = {}) => fetch(`${fake.url}/__control${path}`, init);
const post = (path, value) =>
  control(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });

const calls = [
  ['verify: pattern at every limit (409, 5 near misses)', () => post('/verify', patternAtLimits()), 409],
  [
    'verify: operation + status only (200)',
    () => post('/verify', { request: { operation: 'createAccount' }, count: { at_least: 1 } }),
    200,
  ],
  ['verify: 20,000 query keys, 243 KiB (refused)', () => post('/verify', manyKeys(20_000)), 422],
  ['verify: 78,000 query keys, ~1 MiB (refused)', () => post('/verify', manyKeys(78_000)), 422],
  ['report (whole journal)', () => control('/report'), 200],
  ['export HAR', () => control('/export?format=har'), 200],
  ['export .http', () => control('/export?format=http'), 200],
  ['GET /__control/requests', () => control('/requests?since=start'), 200],
];

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
await fill();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(
  `Node ${process.version}; journal of ${JOURNAL_SIZE} entries, request bodies of ${Buffer.byteLength(body)} bytes; ${ROUNDS} rounds`,
);
console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${os.availableParallelism()} cores (wall figures grow with it; CPU ms less so)`,
);
console.log(
  '| call | status | wall ms (median / worst) | longest event-loop block ms (median / worst) | CPU ms of the call (median) |',
);
console.log('|---|---|---|---|---|');
for (const [name, call, expected] of calls) {
  const walls = [];
  const blocks = [];
  const cpus = [];
  let status = 0;
  for (let round = 0; round < ROUNDS + 1; round++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    histogram.reset();
    const started = performance.now();
    const cpu = process.cpuUsage();
    const response = await call();
    await response.arrayBuffer();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    status = response.status;
    if (status !== expected) throw new Error(`${name}: expected ${expected}, got ${status}`);
    // the first round warms up (compiles the validator of the operation)
    if (round === 0) continue;
    walls.push(wall);
    blocks.push(histogram.max / 1e6);
    cpus.push((used.user + used.system) / 1000);
  }
  const f = (x) => x.toFixed(1);
  console.log(
    `| ${name} | ${status} | ${f(median(walls))} / ${f(Math.max(...walls))} | ${f(median(blocks))} / ${f(Math.max(...blocks))} | ${f(median(cpus))} |`,
  );
}
histogram.disable();
await fake.stop();
