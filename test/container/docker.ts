// A few docker CLI calls for the container suite. The engine here has no bridge network (see
// ../shared/tools/docker-engine.sh): every container runs with --network host on a free port.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from '../support/cli.js';

const exec = promisify(execFile);

export const IMAGE = process.env.FAKE_IMAGE ?? 'investment-api-fake:container-test';

export async function docker(...args: string[]): Promise<string> {
  try {
    const { stdout } = await exec('docker', args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`docker ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

export interface Running {
  id: string;
  port: number;
  url: string;
  /** From `docker run` until `/__control/health` first answered 200. */
  startToHealthyMs: number;
  logs(): Promise<string>;
}

const started: string[] = [];

/** `docker run -d` of the image on a free host port, read-only root file system; resolves once health answers 200. */
export async function run(
  options: { env?: Record<string, string>; args?: string[]; image?: string } = {},
): Promise<Running> {
  const port = await freePort();
  const env = Object.entries({ PORT: String(port), ...options.env }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const begin = performance.now();
  const id = await docker(
    'run',
    '-d',
    '--network',
    'host',
    '--read-only',
    ...env,
    ...(options.args ?? []),
    options.image ?? IMAGE,
  );
  started.push(id);
  const url = `http://127.0.0.1:${port}`;
  const logs = () => docker('logs', id).then(async (out) => `${out}\n${(await exec('docker', ['logs', id])).stderr}`);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (
      await fetch(`${url}/__control/health`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      return { id, port, url, startToHealthyMs: performance.now() - begin, logs };
    }
    if ((await docker('inspect', '-f', '{{.State.Running}}', id)) === 'false')
      throw new Error(`container exited: ${await logs()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`container not healthy in 30 s: ${await logs()}`);
}

export async function removeStarted(): Promise<void> {
  const ids = started.splice(0);
  if (ids.length > 0) await docker('rm', '-f', ...ids).catch(() => undefined);
}

export const inspect = async <T>(id: string, format: string): Promise<T> =>
  JSON.parse(await docker('inspect', '-f', `{{json ${format}}}`, id)) as T;
