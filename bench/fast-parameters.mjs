// What the parameter check of operations without a body saves (src/http/parameter-check.ts; issues 29, 52): two
// instances of the fake in this process, one with the check and one where express-openapi-validator checks every
// read (`parameters: 'validator'`), answer the same
// distinct-URL lists in alternating rounds; the process's CPU per request (client and server, the same client for
// both) is compared, so the difference is what the check saves on the server. Needs `npm run build`.
//
//   node bench/fast-parameters.mjs [--rounds=6] [--requests=3000]
import { Agent, request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { median, progress, requireBuild, ROOT } from './lib.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const ROUNDS = arg('rounds', 6);
const REQUESTS = arg('requests', 3000);
const CONCURRENCY = 8;

requireBuild();
const { createContext } = await import(pathToFileURL(join(ROOT, 'dist/src/context.js')).href);
const { productApp } = await import(pathToFileURL(join(ROOT, 'dist/src/satellites.js')).href);

async function instance(pipeline) {
  const ctx = createContext({});
  const server = productApp(ctx, { pipeline }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const send = (method, path, headers = {}, body) =>
    new Promise((resolve, reject) => {
      const req = request(
        { agent, host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const form = `grant_type=client_credentials&scope=openid%20offline&client_id=sandbox-client&client_secret=sandbox-secret&audience=127.0.0.1:${port}`;
  const token = JSON.parse(
    (await send('POST', '/oauth2/token', { 'content-type': 'application/x-www-form-urlencoded' }, form)).body,
  ).access_token;
  return { server, agent, get: (path) => send('GET', path, { authorization: `Bearer ${token}` }) };
}

/** Distinct URLs of the same answer: leading zeros are the same numbers to both checks. */
const pathOf = (i) => `/v1/orders?limit=${'0'.repeat(i % 20)}100&skip=${'0'.repeat(Math.floor(i / 20) % 20)}0`;

async function round(target, offset) {
  const start = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      const { status } = await target.get(pathOf(offset + next++));
      if (status !== 200) throw new Error(`status ${status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const { user, system } = process.cpuUsage(start);
  return (user + system) / REQUESTS;
}

const targets = {
  'parameter check': await instance({}),
  'validator only': await instance({ parameters: 'validator' }),
};
const results = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
for (const name of Object.keys(targets)) await round(targets[name], 0); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  const names = r % 2 === 0 ? Object.keys(targets) : Object.keys(targets).reverse();
  for (const name of names) {
    const us = await round(targets[name], r * REQUESTS);
    results[name].push(us);
    progress(`round ${r + 1}/${ROUNDS} ${name}: ${us.toFixed(0)} µs CPU per request (client and server)`);
  }
}
const fast = median(results['parameter check']);
const full = median(results['validator only']);
console.log(
  `Node ${process.version}: GET /v1/orders?limit=100, distinct URLs, ${ROUNDS} rounds of ${REQUESTS}, median CPU per request (client and server in one process)`,
);
console.log(
  `  parameter check: ${fast.toFixed(0)} µs; validator only: ${full.toFixed(0)} µs; the check saves ${(full - fast).toFixed(0)} µs per read`,
);
for (const { server, agent } of Object.values(targets)) {
  agent.destroy();
  server.close();
}
