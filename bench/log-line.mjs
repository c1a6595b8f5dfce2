#!/usr/bin/env node
// What the request log line costs the main thread, apart from the rest of the fake: a plain node:http server
// answering `ok` (servers/log-line.mjs) with no log line, with pino's default (asynchronous) destination, with
// `sync: true` and with a 4 KB buffer; each in its own process, stdout to /dev/null, alternating rounds; main-thread
// CPU per request (utime + stime of /proc/<pid>/task/<pid>/stat), medians, on this Node and on Node 24.
//
//   node bench/log-line.mjs [--rounds=6] [--seconds=3]
import { fileURLToPath } from 'node:url';
import { cannon, cpuOf, freePort, median, onThisNodeAndNode24, progress, spawnNode, waitUntilUp } from './lib.mjs';

const SERVER = fileURLToPath(new URL('./servers/log-line.mjs', import.meta.url));
const MODES = ['none', 'default', 'sync', 'buffered'];
const option = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const ROUNDS = option('rounds', 6);
const SECONDS = option('seconds', 3);

async function measure(node, label) {
  const servers = {};
  try {
    for (const mode of MODES) {
      const port = await freePort();
      const proc = spawnNode([SERVER, mode], { env: { PORT: String(port) }, node });
      servers[mode] = { ...proc, url: `http://127.0.0.1:${port}` };
      await waitUntilUp(`${servers[mode].url}/`, { timeoutMs: 30_000, child: proc.child });
    }
    const run = async (mode, duration) => {
      const server = servers[mode];
      const before = cpuOf(server.pid).main;
      const result = await cannon({ url: server.url, paths: ['/v1/orders', '/v1/accounts'], headers: {}, duration });
      return ((cpuOf(server.pid).main - before) * 1e6) / result.ok;
    };
    for (const mode of MODES) await run(mode, 1);
    const runs = Object.fromEntries(MODES.map((mode) => [mode, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of round % 2 ? [...MODES].reverse() : MODES) runs[mode].push(await run(mode, SECONDS));
      progress(`round ${round + 1}/${ROUNDS} (${label})`);
    }
    const none = median(runs.none);
    console.log(`\n${label}: main-thread CPU per request, ${ROUNDS} × ${SECONDS} s, medians (min–max)`);
    for (const mode of MODES) {
      const cpu = median(runs[mode]);
      const extra = mode === 'none' ? '' : `  the log line: ${(cpu - none).toFixed(1)} µs`;
      console.log(
        `  ${mode.padEnd(9)} ${cpu.toFixed(1).padStart(6)} µs (${Math.min(...runs[mode]).toFixed(0)}–${Math.max(...runs[mode]).toFixed(0)})${extra}`,
      );
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

await onThisNodeAndNode24(measure);
process.exit(0);
