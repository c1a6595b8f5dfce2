import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROOT } from './cli.js';

const run = promisify(execFile);
// Vite puts BASE_URL=/ and VITEST* into the test process's environment; a fresh project must not inherit them.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== 'BASE_URL' && !k.startsWith('VITEST')),
);

/** Runs a command in a partner's project; a failure throws with its output. */
export const sh = (command: string, args: string[], cwd: string) =>
  run(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${command} ${args.join(' ')} failed:\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`);
    },
  );

export interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

/** `npm pack` of the repository into `destination`, as a partner gets the package. */
export async function pack(destination: string): Promise<PackResult> {
  // dist/ is built once for the run by the global setup; --ignore-scripts so that packing does not rebuild it under
  // the feet of the tests that spawn the CLI at the same time (prepack builds for `npm publish`).
  const { stdout } = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], ROOT);
  return (JSON.parse(stdout) as PackResult[])[0]!;
}
