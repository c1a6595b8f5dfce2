// Memory of the default world in the CLI process: idle RSS after startup and a few requests, then RSS through a
// `soak`-second load (autocannon, GET /v1/orders?limit=100, /v1/share-classes and /v1/accounts in turn on each
// connection; read-only, so the world does not grow and only the bounded journal churns), sampled every few seconds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import {
  benchConfig,
  fetchToken,
  freePort,
  median,
  progress,
  request,
  requireBuild,
  rssOf,
  sleep,
  spawnNode,
  startCli,
  waitUntilUp,
} from './lib.mjs';
import { ensurePrism, startPrism } from './prism.mjs';

const BARE = fileURLToPath(new URL('./servers/bare-express.mjs', import.meta.url));

/** Median of three RSS readings a second apart. */
async function idleRssOf(pid) {
  const readings = [];
  for (let i = 0; i < 3; i++) {
    await sleep(1000);
    readings.push(rssOf(pid).rss);
  }
  return median(readings);
}

/**
 * RSS once V8's memory reducer has run in the idle process (about 8 s after its last allocations; it gives back the
 * young generation that startup grew): read 12 s after the calls, as `idleRssOf` began.
 */
async function settledIdleRssOf(pid) {
  await sleep(12_000 - 3000);
  return rssOf(pid).rss;
}

/** Idle RSS of the baselines after a few requests: bare Express (one route) and Prism (our document). */
async function baselineRss(config, headers, paths, { node, prism = config.prism } = {}) {
  const out = {};
  const tmp = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  try {
    const routesFile = join(tmp, 'routes.json');
    writeFileSync(
      routesFile,
      JSON.stringify([{ method: 'GET', path: '/v1/orders', status: 200, body: '{"data":[]}' }]),
    );
    const port = await freePort();
    const bare = spawnNode([BARE, routesFile, 'bytes'], { env: { PORT: String(port) }, node });
    try {
      await waitUntilUp(`http://127.0.0.1:${port}/__health`, { child: bare.child });
      for (let i = 0; i < 4; i++) await request(`http://127.0.0.1:${port}/v1/orders`, { headers });
      out.bare = await idleRssOf(bare.pid);
      out.bareSettled = await settledIdleRssOf(bare.pid);
    } finally {
      await bare.stop();
    }
    if (prism) {
      const found = await ensurePrism();
      if (found.bin) {
        const prism = await startPrism(found.bin);
        try {
          for (const path of paths) await request(prism.url + path, { headers });
          out.prism = await idleRssOf(prism.pid);
        } finally {
          await prism.stop();
        }
      }
    }
  } catch (error) {
    progress(`memory: a baseline failed: ${error.message}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

export async function measureMemory(config = benchConfig()) {
  requireBuild();
  const fake = await startCli();
  try {
    const token = await fetchToken(fake.url);
    const headers = { authorization: `Bearer ${token}` };
    const paths = ['/v1/orders?limit=100', '/v1/share-classes', '/v1/accounts', '/v1/assets'];
    for (const path of paths) {
      const r = await request(fake.url + path, { headers });
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}`);
    }
    const idleRss = await idleRssOf(fake.pid);
    const settledIdleRss = await settledIdleRssOf(fake.pid);
    progress(
      `memory: idle RSS ${idleRss.toFixed(1)} MB, ${settledIdleRss.toFixed(1)} MB settled; ${config.soak} s load…`,
    );

    const samples = [{ s: 0, rss: idleRss }];
    const started = Date.now();
    const every = Math.max(1, Math.round(config.soak / 12)) * 1000;
    const timer = setInterval(
      () => samples.push({ s: (Date.now() - started) / 1000, rss: rssOf(fake.pid).rss }),
      every,
    );
    const result = await new Promise((resolve, reject) => {
      autocannon(
        {
          url: fake.url,
          connections: config.connections,
          duration: config.soak,
          headers,
          requests: paths.slice(0, 3).map((path) => ({ method: 'GET', path })),
          timeout: 10,
        },
        (error, r) => (error ? reject(error) : resolve(r)),
      );
    });
    clearInterval(timer);
    const endRss = rssOf(fake.pid);
    samples.push({ s: (Date.now() - started) / 1000, rss: endRss.rss });
    await sleep(3000);
    const settledRss = rssOf(fake.pid).rss;
    // "flat": growth over the last two thirds of the load (the first third is heap and JIT warming up)
    const third = samples.find((x) => x.s >= config.soak / 3) ?? samples[1];
    const lateGrowth = endRss.rss - third.rss;
    progress(
      `memory: after the load ${endRss.rss.toFixed(1)} MB (peak ${endRss.peak.toFixed(1)}), ${settledRss.toFixed(1)} MB 3 s later`,
    );
    await fake.stop();
    const baselines = await baselineRss(config, headers, paths);
    return {
      idleRss,
      settledIdleRss,
      baselines,
      samples,
      endRss: endRss.rss,
      peakRss: endRss.peak,
      settledRss,
      lateGrowth,
      lateFrom: third,
      requests: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      soak: config.soak,
    };
  } finally {
    await fake.stop();
  }
}

const IDLE_PATHS = ['/v1/orders?limit=100', '/v1/share-classes', '/v1/accounts', '/v1/assets'];

/** Idle RSS of the fake (after a few requests) and of bare Express, both on another Node binary: the Node 24 column. */
export async function measureIdleRss(config, { node }) {
  const fake = await startCli({ node });
  try {
    const token = await fetchToken(fake.url);
    const headers = { authorization: `Bearer ${token}` };
    for (const path of IDLE_PATHS) await request(fake.url + path, { headers });
    const idleRss = await idleRssOf(fake.pid);
    await fake.stop();
    const baselines = await baselineRss(config, headers, IDLE_PATHS, { node, prism: false });
    return { idleRss, baselines };
  } finally {
    await fake.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureMemory(), null, 2));
}
