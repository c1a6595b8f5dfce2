// How long the process's RSA key pair takes, the other half of a fresh process's first token (the token endpoint
// waits for it; RS256 is the interface's): N 2048-bit generations on libuv's thread pool, as the library and the CLI
// make theirs, one after another (no other work in the process), then N more while the main thread is busy for
// --busy-ms (as it is loading modules), timed until the key is there. Prints the quantiles of both.
//
//   node bench/key-pair.mjs [--runs=40] [--busy-ms=200]
import { generateKeyPair } from 'node:crypto';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '40' }, 'busy-ms': { type: 'string', default: '200' } },
});
const runs = Number(values.runs);
const busyMs = Number(values['busy-ms']);

/** Resolves to the milliseconds of one generation; the main thread spins for `spinMs` meanwhile. */
function oneKeyPair(spinMs) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    generateKeyPair('rsa', { modulusLength: 2048 }, (error) =>
      error ? reject(error) : resolve(performance.now() - start),
    );
    // The callback runs once the main thread is free: what a first token waits, the key's time or the busy time,
    // whichever is longer.
    const end = start + spinMs;
    while (performance.now() < end);
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
function line(label, times) {
  const s = [...times].sort((a, b) => a - b);
  const f = (q) => quantile(s, q).toFixed(0).padStart(5);
  console.log(
    `${label.padEnd(46)} p10 ${f(0.1)}  p50 ${f(0.5)}  p75 ${f(0.75)}  p90 ${f(0.9)}  max ${s.at(-1).toFixed(0).padStart(5)} ms`,
  );
}

const idle = [];
for (let i = 0; i < runs; i++) idle.push(await oneKeyPair(0));
const busy = [];
for (let i = 0; i < runs; i++) busy.push(await oneKeyPair(busyMs));
console.log(`RSA 2048 key pairs, ${runs} each, Node ${process.version}`);
line('main thread idle', idle);
line(`main thread busy for ${busyMs} ms (at least that)`, busy);
