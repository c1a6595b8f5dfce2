#!/usr/bin/env node
// npm run soak: the fake (its CLI, on 127.0.0.1) under N minutes of mixed traffic at C keep-alive connections: reads
// of every list and a share class, writes (accounts with wallets and payment methods, updates, wallet
// registrations), token fetches (half the tenants registered for client_secret_post, half for client_secret_basic,
// each authenticating its own way). Prints req/s, answers by status, transport errors and the
// server's RSS at the start, its peak and at the end, then stops it with SIGTERM and shows how long that took.
//
//   npm run soak                                   5 minutes at 200 connections (after npm run build)
//   npm run soak -- --minutes=1 --connections=50   or SOAK_MINUTES / SOAK_CONNECTIONS
//
// Loopback only; every loop is bounded by the deadline. Not part of CI: it loads the machine.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { progress, requireBuild, rssOf, startCli } from './lib.mjs';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const positive = (name, value, fallback) => {
  const n = Number(value ?? fallback);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${value}"`);
  return n;
};
const MINUTES = positive('minutes', arg('minutes') ?? process.env.SOAK_MINUTES, 5);
const CONNECTIONS = Math.round(positive('connections', arg('connections') ?? process.env.SOAK_CONNECTIONS, 200));
const TENANTS = 4;

requireBuild();
const clients = Array.from({ length: TENANTS }, (_, i) => ({
  client_id: `soak-${i}`,
  client_secret: `secret-${i}`,
  token_endpoint_auth_method: i % 2 === 0 ? 'client_secret_post' : 'client_secret_basic',
}));
const fake = await startCli({ env: { LOG_LEVEL: 'silent', CLIENTS: JSON.stringify(clients) } });
const base = new URL(fake.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function send(method, path, { headers = {}, body } = {}) {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        timeout: 30_000,
        headers: { ...headers, ...(payload !== undefined && { 'content-length': Buffer.byteLength(payload) }) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.once('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
        res.once('error', (e) => resolve({ status: 0, error: e.code ?? e.message }));
      },
    );
    req.once('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.once('error', (e) => resolve({ status: 0, error: e.code ?? e.message }));
    req.end(payload);
  });
}

const tokenForm = (client) =>
  new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline',
    audience: base.host,
    client_id: client.client_id,
    client_secret: client.client_secret,
  }).toString();
const basicHeader = (client) =>
  `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;

async function fetchToken(client) {
  const viaBasic = client.token_endpoint_auth_method === 'client_secret_basic';
  const body = viaBasic
    ? new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid offline', audience: base.host }).toString()
    : tokenForm(client);
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    ...(viaBasic && { authorization: basicHeader(client) }),
  };
  const answer = await send('POST', '/oauth2/token', { headers, body });
  return { answer, token: answer.status === 200 ? JSON.parse(answer.body).access_token : undefined };
}

// What each tenant's world offers to read.
const world = JSON.parse((await send('GET', '/__control/state')).body);
const isins = world.assets.map((a) => a.isin);
const funds = world.feeder_funds.map((f) => f.abbreviation);
const tenants = await Promise.all(
  clients.map(async (client) => ({
    client,
    token: (await fetchToken(client)).token,
    accounts: [...world.accounts.map((a) => a.id)],
  })),
);

const statuses = new Map();
const transportErrors = new Map();
let total = 0;
let walletCounter = 0;
const count = (answer) => {
  total++;
  statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  if (answer.error) transportErrors.set(answer.error, (transportErrors.get(answer.error) ?? 0) + 1);
};
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const wallet = () =>
  `0x${(++walletCounter).toString(16).padStart(8, '0')}${Math.floor(Math.random() * 2 ** 32)
    .toString(16)
    .padStart(8, '0')}${'0'.repeat(24)}`;

async function step(tenant) {
  const auth = { authorization: `Bearer ${tenant.token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const roll = Math.random();
  if (roll < 0.05) {
    const { answer, token } = await fetchToken(tenant.client);
    if (token) tenant.token = token;
    return answer;
  }
  if (roll < 0.6) {
    const reads = [
      () => `/v1/orders?limit=50&skip=${Math.floor(Math.random() * 40)}`,
      () => '/v1/assets',
      () => `/v1/share-classes/${pick(isins)}`,
      () => '/v1/share-classes?limit=20',
      () => `/v1/accounts?limit=20&skip=${Math.floor(Math.random() * tenant.accounts.length)}`,
      () => `/v1/funds/${pick(funds)}/documents?limit=5`,
      () => `/v1/accounts/${pick(tenant.accounts)}`,
    ];
    return send('GET', pick(reads)(), { headers: auth });
  }
  if (roll < 0.75) {
    const answer = await send('POST', '/v1/accounts', {
      headers: json,
      body: {
        type: 'individual',
        first_name: 'Soak',
        last_name: 'Test',
        country: 'DE',
        wallets: [{ chain: 'polygon', wallet_address: wallet(), is_primary: true }],
        payment_methods: [{ type: 'sepa', iban: 'DE89370400440532013000', account_holder_name: 'Soak Test' }],
      },
    });
    // keep a bounded sample of the tenant's own accounts to update and read
    if (answer.status === 201 && tenant.accounts.length < 5000) tenant.accounts.push(JSON.parse(answer.body).id);
    return answer;
  }
  if (roll < 0.9)
    return send('PATCH', `/v1/accounts/${pick(tenant.accounts)}`, {
      headers: json,
      body: { city: `City ${Math.floor(Math.random() * 1000)}` },
    });
  return send('POST', `/v1/accounts/${pick(tenant.accounts)}/wallets`, {
    headers: json,
    body: { chain: 'polygon', wallet_address: wallet() },
  });
}

const start = rssOf(fake.pid);
let peak = start.rss;
const sampler = setInterval(() => {
  const { rss } = rssOf(fake.pid);
  if (rss > peak) peak = rss;
}, 1000);
const reporter = setInterval(
  () => progress(`soak: ${total} requests, RSS ${rssOf(fake.pid).rss.toFixed(0)} MB`),
  30_000,
);

progress(`soak: ${MINUTES} min at ${CONNECTIONS} connections against ${fake.url} (${TENANTS} tenants)`);
const started = performance.now();
const deadline = started + MINUTES * 60_000;
await Promise.all(
  Array.from({ length: CONNECTIONS }, async (_, i) => {
    const tenant = tenants[i % TENANTS];
    while (performance.now() < deadline) count(await step(tenant));
  }),
);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
clearInterval(reporter);
const end = rssOf(fake.pid);
agent.destroy();
const stopStarted = performance.now();
const { code } = await fake.stop();
const stopMs = performance.now() - stopStarted;

const byStatus = [...statuses]
  .sort(([a], [b]) => a - b)
  .map(([status, n]) => `${status === 0 ? 'no answer' : status}: ${n}`)
  .join(', ');
const errors = [...statuses].filter(([status]) => status === 0 || status >= 400).reduce((sum, [, n]) => sum + n, 0);
console.log(`soak: ${MINUTES} min at ${CONNECTIONS} connections, node ${process.version}`);
console.log(`requests: ${total} in ${seconds.toFixed(0)} s = ${(total / seconds).toFixed(0)} req/s`);
console.log(`answers by status: ${byStatus}`);
console.log(
  `errors (4xx, 5xx, no answer): ${errors}${transportErrors.size ? ` (transport: ${[...transportErrors].map(([e, n]) => `${e} ${n}`).join(', ')})` : ''}`,
);
console.log(
  `server RSS: start ${start.rss.toFixed(0)} MB, peak ${Math.max(peak, end.peak || 0).toFixed(0)} MB, end ${end.rss.toFixed(0)} MB`,
);
console.log(`SIGTERM → exit ${code} in ${stopMs.toFixed(0)} ms`);
