#!/usr/bin/env node
// Shadow mode's cost (issue 32): what a forwarded exchange takes through the fake in shadow mode beyond the
// upstream's own time. Target: ≤ 2 ms added at p50.
//
//   npm run build && node bench/shadow.mjs [--requests=2000] [--warmup=300] [--remote-requests=300] [--remote-ms=20]
//
// Two fakes in child processes (same seed): the upstream, and the fake in shadow mode in front of it
// (--upstream). This process asks a mixed read session (orders, assets, share classes, accounts, each with its own
// query) over one keep-alive connection to each, alternating direct and shadowed requests so that both meet the same
// machine state, and prints the quantiles of each and their difference. The comparison with the twin runs in the
// shadow process after each answer, so a back-to-back client meets it too: that cost is in the figures.
//
// Two rounds: a local upstream that answers at once (the worst case: the comparison's work has no upstream time to
// hide in, and the three processes share this machine's cores), then the same upstream answering after --remote-ms
// (an injected latency on its tenant, as a sandbox across a network answers), where the comparison of one exchange
// runs while the next one waits for the upstream.
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { once } from 'node:events';
import { dist, requireBuild } from './lib.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const REQUESTS = arg('requests', 2000);
const WARMUP = arg('warmup', 300);
const REMOTE_REQUESTS = arg('remote-requests', 300);
const REMOTE_MS = arg('remote-ms', 20);

requireBuild();

async function serve(options) {
  const script = `const { startServer } = await import(${JSON.stringify(dist.index)}); const fake = await startServer(${JSON.stringify(options)}); console.log(fake.url); process.on('SIGTERM', async () => { await fake.stop(); process.exit(0); });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await once(child.stdout, 'data');
  return { url: line.toString().trim(), child };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function request(base, method, path, headers = {}, body) {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      { hostname: url.hostname, port: url.port, method, path: `${url.pathname}${url.search}`, headers, agent },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            body: Buffer.concat(chunks).toString(),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function tokenAt(base) {
  const host = new URL(base).host;
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline read:accounts read:orders read:assets',
    client_id: 'sandbox-client',
    client_secret: 'sandbox-secret',
    audience: host,
  }).toString();
  const answer = await request(
    base,
    'POST',
    '/oauth2/token',
    { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
    form,
  );
  return JSON.parse(answer.body).access_token;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const upstream = await serve({ seed: 1 });
const shadow = await serve({ seed: 1, upstream: upstream.url });
try {
  const direct = await tokenAt(upstream.url);
  const viaShadow = await tokenAt(shadow.url);
  const paths = [
    '/v1/orders?limit=10',
    '/v1/assets?subscribeable=true',
    '/v1/share-classes?limit=5',
    '/v1/accounts?account_type=individual&limit=5',
    '/v1/orders?order_status=PLACED',
  ];
  const round = async (label, warmup, requests) => {
    const times = { direct: [], shadow: [] };
    for (let i = 0; i < warmup + requests; i++) {
      const path = paths[i % paths.length];
      const a = await request(upstream.url, 'GET', path, { authorization: `Bearer ${direct}` });
      const b = await request(shadow.url, 'GET', path, { authorization: `Bearer ${viaShadow}` });
      if (a.status !== 200 || b.status !== 200)
        throw new Error(`${path}: ${a.status} direct, ${b.status} through shadow mode`);
      if (i >= warmup) {
        times.direct.push(a.ms);
        times.shadow.push(b.ms);
      }
    }
    for (const list of Object.values(times)) list.sort((x, y) => x - y);
    const row = (name, list) =>
      `  ${name.padEnd(22)} p50 ${quantile(list, 0.5).toFixed(2).padStart(6)} ms   p99 ${quantile(list, 0.99).toFixed(2).padStart(6)} ms`;
    const added50 = quantile(times.shadow, 0.5) - quantile(times.direct, 0.5);
    const added99 = quantile(times.shadow, 0.99) - quantile(times.direct, 0.99);
    console.log(`${label}: ${requests} forwarded reads (after ${warmup} warm-up), one keep-alive connection each way`);
    console.log(row('upstream directly', times.direct));
    console.log(row('through shadow mode', times.shadow));
    console.log(
      `  ${'added by shadow mode'.padEnd(22)} p50 ${added50.toFixed(2).padStart(6)} ms   p99 ${added99.toFixed(2).padStart(6)} ms   (target: ≤ 2 ms at p50: ${added50 <= 2 ? 'PASS' : 'MISS'})`,
    );
  };
  console.log(`shadow mode's cost, Node ${process.versions.node}, ${os.cpus().length} cores`);
  await round('local upstream answering at once', WARMUP, REQUESTS);
  const fault = JSON.stringify({ latency_ms: REMOTE_MS });
  await request(
    upstream.url,
    'POST',
    '/__control/faults',
    { 'content-type': 'application/json', 'content-length': Buffer.byteLength(fault) },
    fault,
  );
  await round(`upstream answering after ${REMOTE_MS} ms`, 20, REMOTE_REQUESTS);
  const report = await request(shadow.url, 'GET', '/__control/fidelity');
  const { exchanges, compared, differences } = JSON.parse(report.body);
  console.log(`fidelity report: ${exchanges} exchanges, ${compared} compared, ${differences.length} differences`);
} finally {
  for (const { child } of [shadow, upstream]) child.kill('SIGTERM');
  agent.destroy();
}
