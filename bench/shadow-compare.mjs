#!/usr/bin/env node
// Shadow mode's comparison at 7 MB (issue 38): what comparing large upstream answers costs the other requests of the
// fake in shadow mode.
//
//   npm run build && node bench/shadow-compare.mjs [--items=7000] [--answers=16] [--rounds=3]
//   BENCH_DIST_ROOT=/path/to/other/dist node bench/shadow-compare.mjs   (the same figures for another build)
//
// Two child processes: an upstream (a plain node:http server answering a token to any client and, to
// GET /v1/accounts, one prebuilt list of --items accounts of ~1 KB each: 6.8 MiB for 7,000) and the fake in shadow
// mode in front of it. Each item has a field of its own and an enum value outside the document: the worst case for
// the comparison (a difference and a document violation per item, none in common). After one warm-up answer
// (validators compiled) and 3 s of health checks alone (the machine's own noise), this process asks --answers such
// lists at once and, meanwhile, GET /__control/health every 10 ms; it prints the health checks' p50/p99/max, the
// fake's longest event-loop block (perf_hooks' monitorEventLoopDelay in the shadow process), and the time until the
// fidelity report has compared them all. Also: the engine's JSON.parse of one such answer, which shadow mode uses
// only below 256 KiB (above, it parses in slices: src/shadow/json-slices.ts).
// SHADOW_NODE_FLAGS (e.g. --trace-gc, --cpu-prof): flags of the shadow process.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { dist, requireBuild } from './lib.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const ITEMS = arg('items', 7000);
const ANSWERS = arg('answers', 16);
const ROUNDS = arg('rounds', 3);

requireBuild();

const UPSTREAM = `
import http from 'node:http';
const { startServer } = await import(${JSON.stringify(dist.index)});
// the items' shape: a real fake's accounts
const source = await startServer({ seed: 1 });
const token = await source.token();
const page = await (await fetch(source.url + '/v1/accounts?limit=100', { headers: { authorization: 'Bearer ' + token } })).json();
await source.stop();
const data = Array.from({ length: ${ITEMS} }, (_, i) => {
  const account = page.data[i % page.data.length];
  return { ...account, id: account.id.slice(0, 30) + String(i).padStart(6, '0'), type: 'robot', note: 'n'.repeat(600), ['field_' + i]: i };
});
const list = Buffer.from(JSON.stringify({ ...page, data }));
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url === '/oauth2/token') {
      const scope = new URLSearchParams(Buffer.concat(chunks).toString()).get('scope') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'upstream-token-' + Math.random().toString(36).slice(2), token_type: 'Bearer', expires_in: 3600, scope }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(list);
    }
  });
});
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port + ' ' + list.length));
`;

const SHADOW = (upstream) => `
import { monitorEventLoopDelay } from 'node:perf_hooks';
const { startServer } = await import(${JSON.stringify(dist.index)});
const fake = await startServer({ seed: 1, upstream: ${JSON.stringify(upstream)}, logLevel: 'silent' });
let delay = monitorEventLoopDelay({ resolution: 5 });
process.on('message', (message) => {
  if (message === 'reset') {
    delay.disable();
    delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    process.send({ reset: true });
  } else if (message === 'read') process.send({ maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6 });
});
process.on('SIGTERM', () => process.exit(0));
console.log(fake.url);
`;

async function child(script, flags = []) {
  const process_ = spawn(process.execPath, [...flags, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const lines = createInterface({ input: process_.stdout });
  for await (const line of lines) {
    if (!line.startsWith('http')) continue;
    // what the child prints later (--trace-gc) goes on to this process's output
    lines.on('line', (more) => console.log(more));
    return { line: line.trim(), process: process_ };
  }
  throw new Error('the child process ended before it listened');
}

const ask = (process_, message) =>
  new Promise((resolve) => {
    process_.once('message', resolve);
    process_.send(message);
  });

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function request(base, method, path, headers = {}, body) {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      { hostname: url.hostname, port: url.port, method, path: `${url.pathname}${url.search}`, headers, agent },
      (res) => {
        let size = 0;
        const chunks = [];
        res.on('data', (c) => {
          size += c.length;
          if (size < 1_000_000) chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            size,
            text: Buffer.concat(chunks).toString(),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const fixed = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

const upstream = await child(UPSTREAM);
const [upstreamUrl, listBytes] = upstream.line.split(' ');
const shadow = await child(SHADOW(upstreamUrl), process.env.SHADOW_NODE_FLAGS?.split(' ').filter(Boolean));
const base = shadow.line;
try {
  const host = new URL(base).host;
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid read:accounts',
    client_id: 'bench-client',
    client_secret: 'bench-secret',
    audience: host,
  }).toString();
  const granted = await request(
    base,
    'POST',
    '/oauth2/token',
    { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
    form,
  );
  const token = JSON.parse(granted.text).access_token;
  const auth = { authorization: `Bearer ${token}` };
  const compared = async () => JSON.parse((await request(base, 'GET', '/__control/fidelity')).text).exchanges;
  const waitCompared = async (count) => {
    while ((await compared()) < count) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  // warm-up: the document check's validators compiled, the twin made
  await request(base, 'GET', '/v1/accounts', auth);
  let expected = 2;
  await waitCompared(expected);

  console.log(
    `Node ${process.version}; ${dist.root}; ${ANSWERS} answers of ${ITEMS} items (${(Number(listBytes) / 1048576).toFixed(2)} MiB each) at once, ${ROUNDS} round(s)`,
  );
  // the machine's own noise: the same health checks for 3 s with nothing forwarded
  {
    await ask(shadow.process, 'reset');
    const health = [];
    const until = performance.now() + 3000;
    while (performance.now() < until) {
      health.push((await request(base, 'GET', '/__control/health')).ms);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const loop = await ask(shadow.process, 'read');
    health.sort((a, b) => a - b);
    console.log(
      `idle: health (${health.length} checks) p50 ${fixed(quantile(health, 0.5))} / p99 ${fixed(quantile(health, 0.99))} / max ${fixed(health.at(-1))} ms; longest event-loop block ${fixed(loop.maxMs)} ms`,
    );
  }
  for (let round = 1; round <= ROUNDS; round++) {
    await ask(shadow.process, 'reset');
    const health = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        health.push((await request(base, 'GET', '/__control/health')).ms);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: ANSWERS }, () => request(base, 'GET', '/v1/accounts', auth)),
    );
    const answeredMs = performance.now() - started;
    // an answer the fake could not read in time (its event loop held) is a 502 upstream_unreachable, not compared
    const forwarded = answers.filter((a) => a.status === 200 && a.size === Number(listBytes)).length;
    const refused = answers.filter((a) => a.status !== 200).map((a) => a.status);
    expected += forwarded;
    await waitCompared(expected);
    const comparedMs = performance.now() - started;
    polling = false;
    await poller;
    const loop = await ask(shadow.process, 'read');
    health.sort((a, b) => a - b);
    console.log(
      `round ${round}: all answered ${fixed(answeredMs)} ms${refused.length > 0 ? ` (${refused.length} of them ${[...new Set(refused)].join('/')})` : ''}, all compared ${fixed(comparedMs)} ms; ` +
        `health (${health.length} checks) p50 ${fixed(quantile(health, 0.5))} / p99 ${fixed(quantile(health, 0.99))} / max ${fixed(health.at(-1))} ms; ` +
        `longest event-loop block ${fixed(loop.maxMs)} ms (p99 ${fixed(loop.p99Ms)} ms)`,
    );
  }
  // the one block that is not sliced: the forwarding step's JSON.parse of the upstream's answer (measured here, in
  // this process, on the same bytes)
  const body = await new Promise((resolve) =>
    http.get(`${upstreamUrl}/v1/accounts`, (res) => {
      const c = [];
      res.on('data', (d) => c.push(d));
      res.on('end', () => resolve(Buffer.concat(c)));
    }),
  );
  const parses = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    JSON.parse(body.toString('utf8'));
    parses.push(performance.now() - t);
  }
  parses.sort((a, b) => a - b);
  console.log(
    `JSON.parse of one answer (toString included), median of 7: ${fixed(quantile(parses, 0.5))} ms (max ${fixed(parses.at(-1))})`,
  );
} finally {
  shadow.process.kill('SIGTERM');
  upstream.process.kill('SIGKILL');
  agent.destroy();
}
