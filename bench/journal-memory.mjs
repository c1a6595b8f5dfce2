#!/usr/bin/env -S node --expose-gc
// What the request journal costs now that it keeps bodies (issue 20): the ring's memory, full, at 1,000 and 10,000
// entries, for two mixes of requests.
//
//   npm run build && node --expose-gc bench/journal-memory.mjs
//
// typical: GET /v1/orders?limit=100 (an answer of ~40 KB, kept as its first 8 KiB), GET /v1/share-classes, a small
//          PATCH /v1/accounts/{id}, a token request, in turn
// worst:   PATCH /v1/accounts/{id} with a 9,000-character first_name: request and answer both kept at the 8 KiB cut
//
// Each (size, mix) runs in a child process of its own, against dist/ on loopback; nothing grows but the journal (the
// PATCHes replace one account). Figures after a full GC: heap and RSS with the ring full, minus the same process after
// a warm-up with the ring emptied (reset). Knob: SIZES (default 1000,10000).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dist, requireBuild } from './lib.mjs';

const MB = 1024 * 1024;
const settled = () => {
  for (let i = 0; i < 3; i++) globalThis.gc();
  // the journal keeps bodies as the pipeline handed them: Buffers (outside the JS heap) as well as strings
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
  return { heapUsed: heapUsed + arrayBuffers, rss };
};

async function child(size, mix) {
  const { startServer } = await import(dist.index);
  const fake = await startServer({ journalSize: size });
  const token = await fake.token();
  const account = fake.state().accounts[0];
  const auth = { authorization: `Bearer ${token}` };
  const patch = (firstName) => ({
    method: 'PATCH',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: firstName }),
  });
  const long = 'x'.repeat(9000);
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline',
    client_id: 'sandbox-client',
    client_secret: 'sandbox-secret',
    audience: new URL(fake.url).host,
  });
  const typical = [
    () => fetch(`${fake.url}/v1/orders?limit=100`, { headers: auth }),
    () => fetch(`${fake.url}/v1/share-classes`, { headers: auth }),
    () => fetch(`${fake.url}/v1/accounts/${account.id}`, patch('Ada')),
    () => fetch(`${fake.url}/oauth2/token`, { method: 'POST', body: form }),
  ];
  const worst = [() => fetch(`${fake.url}/v1/accounts/${account.id}`, patch(long))];
  const calls = mix === 'worst' ? worst : typical;
  const send = async (count) => {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const response = await calls[next++ % calls.length]();
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  };
  await send(Math.min(size, 2000)); // warm-up: compiled validators, caches, the allocator's pages
  fake.reset();
  fake.clearRequests(); // a reset keeps the journal
  await fake.token();
  const empty = settled();
  await send(size);
  await new Promise((resolve) => setTimeout(resolve, 100)); // the last entries are journaled on `close`
  const full = settled();
  const kept = (await fake.control.requests({ since: 'start' })).length;
  await fake.stop();
  process.stdout.write(
    JSON.stringify({ size, mix, kept, heap: full.heapUsed - empty.heapUsed, rss: full.rss - empty.rss }),
  );
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]), process.argv[4]);
} else {
  requireBuild();
  const sizes = (process.env.SIZES ?? '1000,10000').split(',').map(Number);
  const rows = [];
  for (const mix of ['typical', 'worst']) {
    for (const size of sizes) {
      const out = execFileSync(
        process.execPath,
        ['--expose-gc', fileURLToPath(import.meta.url), '--child', String(size), mix],
        { encoding: 'utf8', maxBuffer: 1024 * 1024 },
      );
      rows.push(JSON.parse(out));
    }
  }
  console.log('| mix | ring size | entries kept | heap (MB) | RSS (MB) | heap per entry (KB) | RSS per entry (KB) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.mix} | ${r.size} | ${r.kept} | ${(r.heap / MB).toFixed(1)} | ${(r.rss / MB).toFixed(1)} | ${(r.heap / r.kept / 1024).toFixed(2)} | ${(r.rss / r.kept / 1024).toFixed(2)} |`,
    );
  }
}
