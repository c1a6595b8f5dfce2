import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
/** Built once for the whole run by test/support/global-setup.ts. */
export const CLI = join(ROOT, 'dist/bundle/cli.js');
// Vite puts BASE_URL=/ into the test process's environment; the CLI would read it as its own.
const { BASE_URL: _vite, ...env } = process.env;
export const cleanEnv: NodeJS.ProcessEnv = env;

const children: ChildProcess[] = [];

/** A loopback port free a moment ago, for a process that takes its port as a setting. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Spawns the CLI on the given port and waits until it is healthy, or has exited (`exited`, its output kept). */
export async function spawnCli(port: number, args: string[] = [], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...cleanEnv, PORT: String(port), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return { child, url, port, output: () => output, exited: true };
    const ok = await fetch(`${url}/__control/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, url, port, output: () => output, exited: false };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`CLI not healthy in time: ${output}`);
}

/** Spawns the CLI on a free port and waits until it is healthy. */
export async function launch(args: string[] = [], extraEnv: Record<string, string> = {}) {
  const launched = await spawnCli(await freePort(), args, extraEnv);
  if (launched.exited) throw new Error(`CLI exited ${launched.child.exitCode}: ${launched.output()}`);
  return launched;
}

export function killLaunched(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

export const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
