// What invalid request bodies cost: N concurrent POST /v1/accounts (default 4), each an invalid body of up to the
// 1 MiB limit, against the CLI in its own process on loopback. Samples the server's RSS every 10 ms and reads its
// peak (VmHWM) at the end; prints the answers (status, code, size), the time they took, and the RSS before, at its
// peak and after. Shapes (--shape):
//   zeros         `wallets` holding --items zeros (default 500,000: just under 1 MiB), each item the wrong type
//   at-bound      `payment_methods` holding 500 `{}` (just within a public body's budget of 10,000, an object
//                 counting 19): every item checked, each missing its three required fields
//   unknown-keys  `wallets` holding objects of 19,999 unknown keys each, up to ~1 MiB: one error per key (over the
//                 budget: refused before validation)
//   control-orders  PUT /__control/state whose `orders` hold 7,800 `{}` (within the control plane's budget of
//                 150,000, an object counting 19), each missing its 13 required fields
//   control-zeros PUT /__control/state whose `orders` hold 149,000 zeros (within the budget)
//
//   npm run build && node bench/invalid-bodies.mjs
//   node bench/invalid-bodies.mjs --concurrent=4 --rounds=3 --shape=unknown-keys
import http from 'node:http';
import { parseArgs } from 'node:util';
import { fetchToken, progress, requireBuild, rssOf, sleep, startCli } from './lib.mjs';

const { values } = parseArgs({
  options: {
    concurrent: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '1' },
    items: { type: 'string', default: '500000' },
    shape: { type: 'string', default: 'zeros' },
  },
});
const concurrent = Number(values.concurrent);
const rounds = Number(values.rounds);
const items = Number(values.items);

const repeat = (count, item) => Array.from({ length: count }, () => item).join(',');
const unknownKeys = (from) => `{${Array.from({ length: 19_999 }, (_, i) => `"k${from + i}":0`).join(',')}}`;

function bodyOf(shape) {
  switch (shape) {
    case 'zeros':
      return `{"type":"individual","wallets":[${repeat(items, '0')}]}`;
    case 'at-bound':
      return `{"type":"individual","payment_methods":[${repeat(500, '{}')}]}`;
    case 'control-orders':
      return `{"feeder_funds":[],"share_classes":[],"assets":[],"custom_offerings":[],"documents":[],"accounts":[],"wallets":[],"payment_method_details":[],"orders":[${repeat(7_800, '{}')}]}`;
    case 'control-zeros':
      return `{"feeder_funds":[],"share_classes":[],"assets":[],"custom_offerings":[],"documents":[],"accounts":[],"wallets":[],"payment_method_details":[],"orders":[${repeat(149_000, '0')}]}`;
    case 'unknown-keys': {
      const objects = [];
      let size = 0;
      while (size + 300_000 < 1024 * 1024 - 100) {
        objects.push(unknownKeys(objects.length * 19_999));
        size += objects.at(-1).length + 1;
      }
      return `{"type":"individual","wallets":[${objects.join(',')}]}`;
    }
    default:
      throw new Error(`--shape must be zeros, at-bound, unknown-keys, control-orders or control-zeros, got "${shape}"`);
  }
}
const body = Buffer.from(bodyOf(values.shape));
if (body.length > 1024 * 1024) throw new Error(`the body is ${body.length} B, over the 1 MiB limit`);

const small = Buffer.from('{"type":"individual","wallets":[0]}');

function post(url, token, payload = body) {
  return new Promise((resolve, reject) => {
    const control = values.shape.startsWith('control-') && payload === body;
    const req = http.request(
      `${url}${control ? '/__control/state' : '/v1/accounts'}`,
      {
        method: control ? 'PUT' : 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
        agent: false,
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.once('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let code;
          try {
            code = JSON.parse(text).code;
          } catch {
            code = '(not JSON)';
          }
          resolve({ status: res.statusCode, code, bytes: text.length });
        });
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

requireBuild();
const fake = await startCli({ env: { LOG_LEVEL: 'silent' } });
try {
  const token = await fetchToken(fake.url);
  // one small invalid request first, so the operation's validator is compiled before the baseline is read
  await post(fake.url, token, small);
  await sleep(500);
  const baseline = rssOf(fake.pid);
  progress(
    `invalid bodies (${values.shape}): ${concurrent} at once × ${rounds} round(s), ${(body.length / 1024 / 1024).toFixed(2)} MiB each; RSS before ${baseline.rss.toFixed(0)} MB`,
  );
  let sampledPeak = baseline.rss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, rssOf(fake.pid).rss);
  }, 10);
  const answers = {};
  const roundMs = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    for (const answer of await Promise.all(Array.from({ length: concurrent }, () => post(fake.url, token)))) {
      const key = `${answer.status} ${answer.code} (${answer.bytes} B)`;
      answers[key] = (answers[key] ?? 0) + 1;
    }
    roundMs.push(Math.round(performance.now() - started));
  }
  await sleep(200);
  clearInterval(sampler);
  const after = rssOf(fake.pid);
  console.log(
    `Node ${process.version}, ${concurrent} concurrent ${values.shape.startsWith('control-') ? 'PUT /__control/state' : 'POST /v1/accounts'} × ${rounds} round(s), each ${body.length} B (${values.shape}${values.shape === 'zeros' ? `: ${items} items` : ''})`,
  );
  console.log(`answers          ${JSON.stringify(answers)}`);
  console.log(`round times      ${roundMs.join(' / ')} ms`);
  console.log(`RSS before       ${baseline.rss.toFixed(0)} MB (peak so far ${baseline.peak.toFixed(0)} MB)`);
  console.log(
    `RSS peak         ${after.peak.toFixed(0)} MB (VmHWM; sampled every 10 ms: ${sampledPeak.toFixed(0)} MB)`,
  );
  console.log(`RSS after        ${after.rss.toFixed(0)} MB`);
  console.log(`peak − before    ${(after.peak - baseline.rss).toFixed(0)} MB`);
  process.exitCode = after.peak < 512 ? 0 : 1;
} finally {
  await fake.stop();
}
