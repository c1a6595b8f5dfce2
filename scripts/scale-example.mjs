// `npm run test:scale`: examples/scale/ run for real with a Docker engine (../shared/tools/docker-engine.sh), and
// checked from the partners' seat: two replicas of the image, each with its own STATE_DIR and the one
// SIGNING_KEY_FILE, behind Debian's nginx hashing the Host consistently (examples/scale/nginx.conf).
//
// The engine here has no bridge network and no `docker compose`: the script runs the topology compose.yaml describes
// with plain docker commands and host nginx (installed with apt when missing), on free loopback ports, after checking
// that what it runs is what compose.yaml says (image, environment, volumes, network). It checks that:
//   1. two partner hosts land on two different replicas, each host always on the same one;
//   2. a partner's tenant lives on its replica only, and its token works on that host alone;
//   3. a token issued before its replica restarts (SIGTERM) still works after it, and the tenant is all there;
//   4. a replica killed with SIGKILL a second after the last change loses no tenant and no account;
//   5. a partner's control token reaches its own tenant through the proxy and no other.
// Exits 0 when all hold; prints what failed and exits 1 otherwise. Under CI=true a missing engine fails it.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'scale');
// what compose.yaml runs; SCALE_IMAGE names an image already built (CI: the container suite's), tagged as this
const IMAGE = 'investment-api-fake:scale';
const CONTROL_TOKEN = 'scale-operator-token';
const DOMAIN = '.sandbox.example.test';
const NODE_UID = 1000; // the image's `node` user
const began = performance.now();

const say = (text) =>
  process.stdout.write(`[scale ${((performance.now() - began) / 1000).toFixed(1).padStart(5)} s] ${text}\n`);
const fail = (text) => {
  throw new Error(text);
};
const check = (condition, text) => {
  if (!condition) fail(text);
  say(`ok: ${text}`);
};
const docker = (...args) =>
  execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

// ---- the documented form: compose.yaml, and what this script runs from it ----

const compose = parse(readFileSync(join(EXAMPLE, 'compose.yaml'), 'utf8'));
const nginxTemplate = readFileSync(join(EXAMPLE, 'nginx.conf'), 'utf8');
const DOCUMENTED_PORTS = { 'replica-a': '18081', 'replica-b': '18082', proxy: '18080' };

/** What a replica service of compose.yaml runs: its environment (CONTROL_TOKEN given), volumes and network. */
function replicaSpec(name, port, stateDir, keyFile) {
  const service = compose.services[name] ?? fail(`compose.yaml has no service ${name}`);
  const environment = { ...service.environment, PORT: String(port), CONTROL_TOKEN };
  const volumes = service.volumes.map((v) => {
    const [source, target, mode] = v.split(':');
    if (target === '/state') return `${stateDir}:/state`;
    if (source.endsWith('signing-key.pem')) return `${keyFile}:${target}${mode ? `:${mode}` : ''}`;
    return fail(`compose.yaml's ${name} mounts ${v}, which the script does not know`);
  });
  return { image: service.image, network: service.network_mode, environment, volumes };
}

function checkComposeMatchesScript() {
  for (const [name, port] of Object.entries(DOCUMENTED_PORTS)) {
    if (name === 'proxy') continue;
    const service = compose.services[name];
    const env = service.environment;
    const expected = {
      PORT: port,
      HOST: '127.0.0.1',
      STATE_DIR: '/state',
      SIGNING_KEY_FILE: '/keys/signing-key.pem',
      ALLOWED_HOSTS: DOMAIN,
      TRUST_PROXY: 'true',
    };
    for (const [key, value] of Object.entries(expected))
      if (String(env[key]) !== value) fail(`compose.yaml: ${name} ${key} is "${env[key]}", the script runs "${value}"`);
    if (!String(env.CONTROL_TOKEN).startsWith('${CONTROL_TOKEN'))
      fail(`compose.yaml: ${name} must take CONTROL_TOKEN from the operator's environment`);
    if (service.image !== 'investment-api-fake:scale' || service.network_mode !== 'host')
      fail(`compose.yaml: ${name} must run investment-api-fake:scale on the host network`);
    if (!nginxTemplate.includes(`server 127.0.0.1:${port} `)) fail(`nginx.conf has no upstream for ${name} on ${port}`);
  }
  if (!nginxTemplate.includes(`listen 127.0.0.1:${DOCUMENTED_PORTS.proxy};`))
    fail('nginx.conf does not listen on the documented port');
  if (!/hash \$host consistent;/.test(nginxTemplate)) fail('nginx.conf does not hash $host consistently');
  if (!nginxTemplate.includes('proxy_set_header X-Forwarded-Proto $scheme;'))
    fail('nginx.conf does not forward the scheme (TRUST_PROXY)');
  const proxy = compose.services.proxy;
  if (!proxy.volumes.includes('./nginx.conf:/etc/nginx/nginx.conf:ro') || proxy.network_mode !== 'host')
    fail('compose.yaml: proxy must run nginx.conf on the host network');
  say('ok: compose.yaml and nginx.conf say what this script runs (ports aside: it takes free ones)');
}

// ---- the engine, the image, nginx ----

function engineReady() {
  try {
    docker('info');
    return true;
  } catch {
    return false;
  }
}

function ensureNginx() {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' });
  } catch {
    say('installing Debian nginx (apt)');
    execFileSync(
      'bash',
      [
        '-c',
        'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light',
      ],
      { stdio: 'inherit' },
    );
  }
}

const containers = [];
let nginx;
let work;

function runReplica(name, spec) {
  const env = Object.entries(spec.environment).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const volumes = spec.volumes.flatMap((v) => ['-v', v]);
  const id = docker(
    'run',
    '-d',
    '--name',
    `fake-scale-${name}-${process.pid}`,
    '--network',
    spec.network,
    ...env,
    ...volumes,
    spec.image,
  );
  containers.push(id);
  return id;
}

async function healthy(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await fetch(`${url}/__control/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(50);
  }
  fail(`${url} not healthy within ${timeoutMs} ms`);
}

// ---- partners' seat ----

/** A request with the Host header given (fetch always sends the URL's): { status, headers.get(), json() }. */
function httpCall(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode,
          ok: res.statusCode >= 200 && res.statusCode < 300,
          headers: { get: (name) => res.headers[name.toLowerCase()] ?? null },
          json: async () => JSON.parse(text),
        });
      });
    });
    req.once('error', reject);
    req.end(body === undefined ? undefined : String(body));
  });
}

function partnerAt(proxyUrl, host) {
  const call = (path, init = {}) => httpCall(`${proxyUrl}${path}`, { ...init, headers: { host, ...init.headers } });
  return {
    host,
    call,
    async servedBy() {
      return (await call('/__control/health')).headers.get('x-served-by');
    },
    async fetchToken(clientId, secret, scope = 'openid offline') {
      const response = await call('/oauth2/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope,
          client_id: clientId,
          client_secret: secret,
          audience: host,
        }),
      });
      const body = await response.json();
      if (!response.ok) fail(`no token for ${clientId} at ${host}: ${JSON.stringify(body)}`);
      return body.access_token;
    },
  };
}

const operator = { authorization: `Bearer ${CONTROL_TOKEN}`, 'content-type': 'application/json' };
const ACCOUNT = (externalId) =>
  JSON.stringify({
    type: 'individual',
    external_id: externalId,
    first_name: 'Ada',
    last_name: 'Lovelace',
    dob_day: 10,
    dob_month: 12,
    dob_year: 1985,
    country: 'GB',
    city: 'London',
    line1: '1 St James Sq',
    postal_code: 'SW1Y 4JH',
  });

async function main() {
  checkComposeMatchesScript();
  if (!engineReady()) {
    fail(
      'No Docker engine answers `docker info`: run ../shared/tools/docker-engine.sh first (it also provides the node base image).',
    );
  }
  ensureNginx();
  if (process.env.SCALE_IMAGE === undefined) {
    say(`building ${IMAGE} (docker build --network host)`);
    execFileSync('docker', ['build', '--network', 'host', '-q', '-t', IMAGE, '.'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    say('image built');
  } else {
    docker('tag', process.env.SCALE_IMAGE, IMAGE);
    say(`${process.env.SCALE_IMAGE} tagged ${IMAGE}`);
  }

  work = mkdtempSync(join(tmpdir(), 'fake-scale-'));
  const keyFile = join(work, 'signing-key.pem');
  writeFileSync(
    keyFile,
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
  chmodSync(keyFile, 0o644);
  const ports = { 'replica-a': await freePort(), 'replica-b': await freePort(), proxy: await freePort() };
  const replicas = {};
  for (const name of ['replica-a', 'replica-b']) {
    const stateDir = join(work, name);
    mkdirSync(stateDir);
    chownSync(stateDir, NODE_UID, NODE_UID);
    const spec = replicaSpec(name, ports[name], stateDir, keyFile);
    replicas[name] = {
      spec,
      id: runReplica(name, spec),
      url: `http://127.0.0.1:${ports[name]}`,
      upstream: `127.0.0.1:${ports[name]}`,
    };
  }
  await Promise.all(Object.values(replicas).map((r) => healthy(r.url)));
  say('two replicas healthy');

  const conf = nginxTemplate
    .replace(`127.0.0.1:${DOCUMENTED_PORTS['replica-a']} `, `${replicas['replica-a'].upstream} `)
    .replace(`127.0.0.1:${DOCUMENTED_PORTS['replica-b']} `, `${replicas['replica-b'].upstream} `)
    .replace(`listen 127.0.0.1:${DOCUMENTED_PORTS.proxy};`, `listen 127.0.0.1:${ports.proxy};`);
  writeFileSync(join(work, 'nginx.conf'), conf);
  nginx = spawn(
    'nginx',
    ['-p', work, '-c', join(work, 'nginx.conf'), '-e', 'stderr', '-g', `daemon off; pid ${join(work, 'nginx.pid')};`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const proxyUrl = `http://127.0.0.1:${ports.proxy}`;
  await healthy(proxyUrl);
  say(`nginx (Debian) on ${proxyUrl}, hash $host consistent`);

  // 1. two partner hosts that the ring puts on different replicas; each host always on the same one
  const byReplica = new Map();
  for (let i = 1; byReplica.size < 2 && i <= 50; i++) {
    const partner = partnerAt(proxyUrl, `partner-${i}${DOMAIN}`);
    const upstream = await partner.servedBy();
    if (!byReplica.has(upstream))
      byReplica.set(upstream, { ...partner, clientId: `partner-${i}`, secret: `secret-${i}`, upstream });
  }
  check(byReplica.size === 2, 'two partner hosts land on the two replicas');
  const [acme, globex] = [...byReplica.values()];
  for (const partner of [acme, globex]) {
    const seen = new Set(await Promise.all(Array.from({ length: 20 }, () => partner.servedBy())));
    check(
      seen.size === 1 && seen.has(partner.upstream),
      `${partner.host}: 20 requests, every one on ${partner.upstream}`,
    );
  }

  // 2. the operator registers each partner through the partner's own host, so on its replica; the partner works there
  for (const partner of [acme, globex]) {
    const created = await partner.call('/__control/clients', {
      method: 'POST',
      headers: operator,
      body: JSON.stringify({
        client_id: partner.clientId,
        client_secret: partner.secret,
        scopes: ['read:accounts', 'write:accounts', 'read:orders', 'control'],
      }),
    });
    check(created.status === 201, `the operator registers ${partner.clientId} through ${partner.host}`);
    partner.token = await partner.fetchToken(partner.clientId, partner.secret);
    const account = await partner.call('/v1/accounts', {
      method: 'POST',
      headers: { authorization: `Bearer ${partner.token}`, 'content-type': 'application/json' },
      body: ACCOUNT(`${partner.clientId}-1`),
    });
    check(account.status === 201, `${partner.clientId} creates an account through its host`);
    partner.accountId = (await account.json()).id;
  }
  const otherReplicaOf = (partner) => Object.values(replicas).find((r) => r.upstream !== partner.upstream);
  const elsewhere = await httpCall(`${otherReplicaOf(acme).url}/v1/accounts/${acme.accountId}`, {
    headers: { host: acme.host, authorization: `Bearer ${acme.token}` },
  });
  check(
    elsewhere.status === 401,
    `${acme.clientId}'s tenant lives on its replica only: the other replica knows no such client (401)`,
  );

  const readAccount = (partner) =>
    partner.call(`/v1/accounts/${partner.accountId}`, { headers: { authorization: `Bearer ${partner.token}` } });
  const replicaOf = (partner) => Object.values(replicas).find((r) => r.upstream === partner.upstream);

  // 3. SIGTERM restart of acme's replica: its token issued before still works, its world and client are kept
  const restartedA = replicaOf(acme);
  const restart = performance.now();
  docker('restart', '-t', '10', restartedA.id);
  await healthy(restartedA.url);
  say(`${acme.clientId}'s replica restarted (SIGTERM) in ${((performance.now() - restart) / 1000).toFixed(1)} s`);
  check(
    (await readAccount(acme)).status === 200,
    `${acme.clientId}'s token from before the restart still opens its account`,
  );
  check((await readAccount(globex)).status === 200, `${globex.clientId}, on the other replica, was never touched`);

  // 4. SIGKILL a second after the last change: nothing lost
  const killedB = replicaOf(globex);
  const late = await globex.call('/v1/accounts', {
    method: 'POST',
    headers: { authorization: `Bearer ${globex.token}`, 'content-type': 'application/json' },
    body: ACCOUNT(`${globex.clientId}-2`),
  });
  const lateId = (await late.json()).id;
  await sleep(1000);
  docker('kill', '-s', 'KILL', killedB.id);
  docker('start', killedB.id);
  await healthy(killedB.url);
  const kept = await globex.call(`/v1/accounts/${lateId}`, { headers: { authorization: `Bearer ${globex.token}` } });
  check(
    kept.status === 200 && (await readAccount(globex)).status === 200,
    `${globex.clientId}'s replica killed (SIGKILL) 1 s after its last create loses neither account, and its token still works`,
  );
  const clients = await Promise.all(
    Object.values(replicas).map(async (r) =>
      (await (await fetch(`${r.url}/__control/clients`, { headers: operator })).json()).data.map((c) => c.client_id),
    ),
  );
  check(
    clients.every((ids) => ids.includes('sandbox-client')) &&
      clients.flat().includes(acme.clientId) &&
      clients.flat().includes(globex.clientId),
    'after both restarts every tenant is still on its replica',
  );

  // 5. partners on the control plane: their own tenant, through their host; no other
  const control = await acme.fetchToken(acme.clientId, acme.secret, 'openid offline control');
  const own = await acme.call('/__control/state', { headers: { authorization: `Bearer ${control}` } });
  check(own.status === 200, `${acme.clientId}'s control token reads its own tenant through the proxy`);
  const crossing = await acme.call('/__control/state', {
    headers: { authorization: `Bearer ${control}`, 'x-client-id': 'sandbox-client' },
  });
  check(
    crossing.status === 403 && (await crossing.json()).code === 'forbidden_tenant',
    `${acme.clientId}'s control token names another tenant: 403 forbidden_tenant`,
  );
  const list = await acme.call('/__control/clients', { headers: { authorization: `Bearer ${control}` } });
  check(
    (await list.json()).data.map((c) => c.client_id).join() === acme.clientId,
    `${acme.clientId} lists its own client only`,
  );
}

function cleanUp() {
  if (nginx && nginx.exitCode === null) nginx.kill('SIGTERM');
  if (containers.length > 0) {
    try {
      docker('rm', '-f', ...containers);
    } catch {
      // already gone
    }
  }
  if (work) rmSync(work, { recursive: true, force: true });
}

try {
  await main();
  say(`all checks passed in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  cleanUp();
} catch (error) {
  process.stderr.write(`scale example FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  for (const id of containers) {
    try {
      process.stderr.write(
        `--- logs of ${id.slice(0, 12)} ---\n${execFileSync('docker', ['logs', '--tail', '30', id], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })}\n`,
      );
    } catch {
      // gone
    }
  }
  cleanUp();
  process.exit(1);
}
