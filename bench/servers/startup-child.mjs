// One fresh process of the startup figures (spawned by bench/startup.mjs; prints one JSON line).
// argv: <file URL of dist/bundle/index.js> <resets>
import { once } from 'node:events';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const [distIndex, resetsArg] = process.argv.slice(2);
const RESETS = Number(resetsArg ?? 20);

// The client side's fetch (undici) loads lazily on first use, tens of ms that belong to the caller, not to the
// fake: warm it against a throwaway server before any clock starts.
const warm = http.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
await once(warm, 'listening');
await (await fetch(`http://127.0.0.1:${warm.address().port}/`)).text();
await new Promise((resolve) => warm.close(resolve));

const t0 = performance.now();
const { startServer } = await import(distIndex);
const importMs = performance.now() - t0;

/** startServer() → token from the token endpoint → an authenticated, validated GET answering 200. */
async function firstOk() {
  const start = performance.now();
  const fake = await startServer();
  const listening = performance.now() - start;
  const token = await fake.token();
  const response = await fetch(`${fake.url}/v1/share-classes`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /v1/share-classes answered ${response.status}`);
  return { fake, ms: performance.now() - start, listeningMs: listening };
}

const first = await firstOk();
const second = await firstOk();

// reset() of the default world, on the second instance (modules loaded, the first reset included as "cold").
const resets = [];
for (let i = 0; i < RESETS; i++) {
  const start = performance.now();
  second.fake.reset();
  resets.push(performance.now() - start);
}

console.log(
  JSON.stringify({
    importMs,
    firstMs: first.ms,
    firstListeningMs: first.listeningMs,
    secondMs: second.ms,
    secondListeningMs: second.listeningMs,
    resetColdMs: resets[0],
    resetsMs: resets.slice(1),
  }),
);
await first.fake.stop();
await second.fake.stop();
