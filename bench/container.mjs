// Container start → healthy (issue 13): the project's image, built and run by a real Docker engine
// (../shared/tools/docker-engine.sh: installs and starts dockerd, and provides the image's `FROM node:…` as a local
// stand-in, Docker Hub being out of reach here). `docker run --network host --read-only` on a free loopback port
// until GET /__control/health answers 200; the baseline is the same image running a bare node:http server (the floor:
// container and Node start). When no engine can be used the figure says why; it never makes a number up.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchConfig, freePort, median, progress, ROOT, summary, waitUntilUp } from './lib.mjs';

const ENGINE = join(ROOT, '..', 'shared', 'tools', 'docker-engine.sh');
const TAG = 'investment-api-fake:bench';
const NODE_HTTP =
  "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";

const run = (cmd, args, timeout = 120_000) =>
  new Promise((resolve, reject) =>
    execFile(cmd, args, { cwd: ROOT, timeout, maxBuffer: 1 << 26 }, (error, stdout, stderr) =>
      error
        ? reject(
            new Error(
              `${cmd} ${args.slice(0, 2).join(' ')}: ${(String(stderr).trim() || error.message).split('\n').slice(-3).join(' ')}`,
            ),
          )
        : resolve(String(stdout).trim()),
    ),
  );

/** One container: `docker run -d` until healthy (ms), then stopped and removed. */
async function startToHealthy(args, healthPath) {
  const port = await freePort();
  const started = performance.now();
  const id = await run('docker', [
    'run',
    '-d',
    '--network',
    'host',
    '--read-only',
    '-e',
    `PORT=${port}`,
    '-e',
    'HOST=127.0.0.1',
    ...args,
  ]);
  try {
    await waitUntilUp(`http://127.0.0.1:${port}${healthPath}`, { timeoutMs: 60_000 });
    return performance.now() - started;
  } finally {
    await run('docker', ['rm', '-f', id]).catch(() => undefined);
  }
}

export async function measureContainer(config = benchConfig()) {
  if (!existsSync(ENGINE)) return { unavailable: `no Docker engine script at ${ENGINE}` };
  try {
    progress('container: preparing the Docker engine (../shared/tools/docker-engine.sh; the first time takes minutes)');
    await run(ENGINE, [join(ROOT, 'Dockerfile')], 900_000);
  } catch (error) {
    return { unavailable: `the Docker engine cannot be used here: ${error.message}` };
  }
  try {
    progress('container: docker build --network host');
    await run('docker', ['build', '--network', 'host', '-q', '-t', TAG, ROOT], 900_000);
    const size = Number(await run('docker', ['image', 'inspect', '-f', '{{.Size}}', TAG]));
    const fake = [];
    const floor = [];
    for (let i = 0; i < config.containerRuns; i++) {
      fake.push(await startToHealthy([TAG], '/__control/health'));
      floor.push(await startToHealthy(['--entrypoint', 'node', TAG, '-e', NODE_HTTP], '/'));
      progress(
        `container ${i + 1}/${config.containerRuns}: fake ${fake.at(-1).toFixed(0)} ms, node:http ${floor.at(-1).toFixed(0)} ms`,
      );
    }
    const node = await run('docker', ['run', '--rm', '--network', 'host', '--entrypoint', 'node', TAG, '--version']);
    return {
      runs: config.containerRuns,
      node,
      sizeMb: size / 1e6,
      startMs: summary(fake),
      floorMs: summary(floor),
      overFloor: median(fake) / median(floor),
    };
  } catch (error) {
    return { unavailable: `the image could not be built or run: ${error.message}` };
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await measureContainer());
