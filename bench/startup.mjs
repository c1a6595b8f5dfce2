// Startup figures, medians of `runs` fresh processes each:
//   - import of the library, first startServer() → first authenticated 200 in a fresh process, and a second
//     instance in the same process (modules loaded);
//   - reset() of the default world (on that second instance);
//   - CLI spawn → GET /__control/health answering 200, and → its first authenticated 200 (token, then a /v1 call):
//     the health check answers before the signing key and the validators are ready, so the second figure shows
//     whether startup work was removed or only moved behind the health check.
// Run alone: `node bench/startup.mjs` (after `npm run build`).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  benchConfig,
  dist,
  fetchToken,
  freePort,
  median,
  progress,
  request,
  requireBuild,
  spawnNode,
  startCli,
  summary,
  waitUntilUp,
} from './lib.mjs';

const CHILD = fileURLToPath(new URL('./servers/startup-child.mjs', import.meta.url));
const BARE_CHILD = fileURLToPath(new URL('./servers/startup-bare-child.mjs', import.meta.url));
const BARE = fileURLToPath(new URL('./servers/bare-express.mjs', import.meta.url));

/** The baseline of "spawn → healthy": a bare Express process (one route) until it answers. */
async function bareRun(routesFile, node) {
  const port = await freePort();
  const proc = spawnNode([BARE, routesFile, 'bytes'], { env: { PORT: String(port) }, node });
  try {
    return await waitUntilUp(`http://127.0.0.1:${port}/__health`, { timeoutMs: 30_000, child: proc.child });
  } finally {
    await proc.stop();
  }
}

/** The floor: a Node process with a node:http server, until it answers (Node's own startup, on this machine). */
const NODE_HTTP =
  "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";
async function nodeRun(node) {
  const port = await freePort();
  const proc = spawnNode(['-e', NODE_HTTP], { env: { PORT: String(port) }, node });
  try {
    return await waitUntilUp(`http://127.0.0.1:${port}/`, { timeoutMs: 30_000, child: proc.child });
  } finally {
    await proc.stop();
  }
}
const RESETS_PER_PROCESS = 20;

/** One fresh process of `script` (a startup child), resolving to the JSON line it prints last. */
function childRun(script, args, node = process.execPath) {
  return new Promise((resolve, reject) => {
    execFile(node, [script, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
    });
  });
}
const libraryRun = (node) => childRun(CHILD, [dist.index, String(RESETS_PER_PROCESS)], node);
/** The baseline of the library's first start: a fresh process importing Express and answering its first request. */
const bareLibraryRun = (node) => childRun(BARE_CHILD, [], node);

/** Spawn → healthy, and spawn → first authenticated 200 (health polled until up, then a token and a /v1 call). */
async function cliRun(node) {
  const cli = await startCli({ timeoutMs: 30_000, node });
  try {
    const healthy = performance.now();
    const token = await fetchToken(cli.url);
    const answer = await request(`${cli.url}/v1/share-classes`, { headers: { authorization: `Bearer ${token}` } });
    if (answer.status !== 200) throw new Error(`GET /v1/share-classes answered ${answer.status}: ${answer.body}`);
    return { healthyMs: cli.startupMs, firstCallMs: cli.startupMs + (performance.now() - healthy) };
  } finally {
    await cli.stop();
  }
}

/** `node`: the Node binary to measure with (default: this one). */
export async function measureStartup(
  config = benchConfig(),
  { node, runs = config.startupRuns, label = process.version } = {},
) {
  requireBuild();
  const lib = [];
  const bareLib = [];
  const cli = [];
  const bare = [];
  const floor = [];
  const tmp = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  const routesFile = join(tmp, 'routes.json');
  writeFileSync(routesFile, '[]');
  try {
    // Interleaved, so a burst of noise on the shared machine hits every kind of run alike.
    for (let i = 0; i < runs; i++) {
      lib.push(await libraryRun(node));
      bareLib.push(await bareLibraryRun(node));
      cli.push(await cliRun(node));
      bare.push(await bareRun(routesFile, node));
      floor.push(await nodeRun(node));
      progress(
        `startup ${label} ${i + 1}/${runs}: import + first 200 ${(lib.at(-1).importMs + lib.at(-1).firstMs).toFixed(0)} ms (bare Express ${(bareLib.at(-1).importMs + bareLib.at(-1).firstMs).toFixed(0)} ms), second startServer ${lib.at(-1).secondMs.toFixed(1)} ms, CLI ${cli.at(-1).healthyMs.toFixed(0)} ms (first 200 ${cli.at(-1).firstCallMs.toFixed(0)} ms), bare Express ${bare.at(-1).toFixed(0)} ms`,
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return {
    runs,
    node: label,
    importMs: summary(lib.map((r) => r.importMs)),
    firstMs: summary(lib.map((r) => r.firstMs)),
    // the figure of issue 13: import + startServer() + token + first authenticated 200, per fresh process
    firstTotalMs: summary(lib.map((r) => r.importMs + r.firstMs)),
    // issue 22: the same in a fresh process importing Express, building an app and answering its first request
    bareFirstTotalMs: summary(bareLib.map((r) => r.importMs + r.firstMs)),
    firstTotalOverBare: summary(
      lib.map((r, i) => (r.importMs + r.firstMs) / (bareLib[i].importMs + bareLib[i].firstMs)),
    ),
    firstListeningMs: summary(lib.map((r) => r.firstListeningMs)),
    secondMs: summary(lib.map((r) => r.secondMs)),
    secondListeningMs: summary(lib.map((r) => r.secondListeningMs)),
    cliMs: summary(cli.map((r) => r.healthyMs)),
    cliFirstCallMs: summary(cli.map((r) => r.firstCallMs)),
    bareSpawnMs: summary(bare),
    nodeSpawnMs: summary(floor),
    cliOverBare: summary(cli.map((r, i) => r.healthyMs / bare[i])),
    // per process: the median of its warm resets; across processes: their median
    resetMs: summary(lib.map((r) => median(r.resetsMs))),
    resetColdMs: summary(lib.map((r) => r.resetColdMs)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureStartup();
  const line = (name, s) =>
    console.log(`${name.padEnd(64)} ${s.median.toFixed(2).padStart(9)} ms  (${s.min.toFixed(1)}–${s.max.toFixed(1)})`);
  console.log(`startup, medians of ${result.runs} fresh processes (Node ${process.version})`);
  line('import of the library (fresh process)', result.importMs);
  line('first startServer() → first authenticated 200', result.firstMs);
  line('bare Express: import + app + first 200 in a fresh process (baseline)', result.bareFirstTotalMs);
  console.log(
    `${'import + first startServer() → first 200 over bare Express, per run'.padEnd(64)} ${result.firstTotalOverBare.median.toFixed(2).padStart(9)} ×`,
  );
  line('second startServer() in the same process → first authenticated 200', result.secondMs);
  line('CLI spawn → healthy', result.cliMs);
  line('CLI spawn → first authenticated 200', result.cliFirstCallMs);
  line('bare Express spawn → healthy (baseline)', result.bareSpawnMs);
  line('node:http spawn → healthy (floor)', result.nodeSpawnMs);
  line('reset() of the default world (warm)', result.resetMs);
  line('reset() of the default world (first call)', result.resetColdMs);
}
