// Builds the image once for the container suite, as CI and a partner would: `docker build --network host` (the
// engine here has no bridge). Fails, never skips, when no engine answers.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('../..', import.meta.url).pathname;

export default function buildImage(): void {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'No Docker engine answers `docker info`. Start one with ../shared/tools/docker-engine.sh (it also provides the node base images).',
    );
  }
  if (process.env.FAKE_IMAGE) return void process.stdout.write(`using ${process.env.FAKE_IMAGE}, built elsewhere\n`);
  const version = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version;
  const revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const started = performance.now();
  execFileSync(
    'docker',
    [
      'build',
      '--network',
      'host',
      '-t',
      'investment-api-fake:container-test',
      '--build-arg',
      `VERSION=${version}`,
      '--build-arg',
      `REVISION=${revision}`,
      '.',
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  process.stdout.write(`image built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
