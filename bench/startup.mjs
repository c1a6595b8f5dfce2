// Startup figures: startServer() → first authenticated 200 (first instance in a fresh process, and another
// instance in a process that already has one), and CLI spawn → healthy. Medians of RUNS runs. Needs `npm run build`.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';

const RUNS = Number(process.env.RUNS ?? 10);
const root = new URL('..', import.meta.url);
const dist = new URL('dist/src/index.js', root).href;
const cli = new URL('dist/src/cli.js', root).pathname;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** In a child process, so that "first instance" really is the first in a fresh process. */
const IN_PROCESS = `
const t0 = performance.now();
const { startServer } = await import(${JSON.stringify(dist)});
const firstOk = async () => {
  const start = performance.now();
  const fake = await startServer();
  const token = await fake.token();
  const response = await fetch(fake.url + '/v1/share-classes', { headers: { authorization: 'Bearer ' + token } });
  if (response.status !== 200) throw new Error('status ' + response.status);
  const ms = performance.now() - start;
  return { fake, ms };
};
const first = await firstOk();
const second = await firstOk();
console.log(JSON.stringify({ importMs: first.ms === 0 ? 0 : performance.now() - t0 - first.ms - second.ms, first: first.ms, second: second.ms }));
await first.fake.stop(); await second.fake.stop();
`;

const freePort = () => new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
});

async function cliToHealthy() {
  const port = await freePort();
  const start = performance.now();
  const child = spawn(process.execPath, [cli], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/__control/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - start;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return ms;
}

const lib = [];
for (let i = 0; i < RUNS; i++) {
  lib.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', IN_PROCESS]).toString()));
}
const cliRuns = [];
for (let i = 0; i < RUNS; i++) cliRuns.push(await cliToHealthy());

const rows = [
  ['import of the library (fresh process)', median(lib.map((r) => r.importMs))],
  ['first startServer() → first authenticated 200', median(lib.map((r) => r.first))],
  ['second startServer() in the same process → first authenticated 200', median(lib.map((r) => r.second))],
  ['CLI spawn → healthy', median(cliRuns)],
];
console.log(`startup, median of ${RUNS} runs (Node ${process.version}, ${new Date().toISOString()})`);
for (const [name, ms] of rows) console.log(`${name.padEnd(72)} ${ms.toFixed(0).padStart(6)} ms`);
