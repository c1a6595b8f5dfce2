/**
 * The package as a Node process in the background, detached from the step (its own process group, its output in
 * the log file), so it outlives `main`: a folder with the package built in it runs its CLI with this Node; anything
 * else (a spec such as `investment-api-fake@0.1`, a packed tarball) through `npx`, which installs it first.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as core from '@actions/core';
import { fakeEnvironment } from './fake-environment.js';
import type { ActionInputs } from './inputs.js';

const BIN = 'investment-api-fake';

export interface StartedProcess {
  kind: 'process';
  pid: number;
  /** Whether it has exited (while `main` still holds it). */
  exited: () => boolean;
  /** `npx` installs the package before it starts: give it longer. */
  installs: boolean;
}

export function startPackage(inputs: ActionInputs, spec: string, logFile: string): StartedProcess {
  const path = resolve(spec);
  const folder = existsSync(path) && statSync(path).isDirectory();
  const [command, args] = folder
    ? [process.execPath, [cliOf(path)]]
    : ['npx', ['--yes', '--package', existsSync(path) ? path : spec, BIN]];
  const env = {
    ...inheritedEnvironment(),
    ...fakeEnvironment(inputs, {
      port: inputs.port,
      ...(inputs.stateDir !== undefined && { stateDir: inputs.stateDir }),
    }),
  };
  // the spec is named by the input, not shown: no input's value reaches the log
  core.info(
    `The input package, ${folder ? 'a built folder run by this Node' : 'through npx'} (port ${inputs.port}; its output: ${logFile})`,
  );
  const log = openSync(logFile, 'a');
  try {
    const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], env });
    if (child.pid === undefined) throw new Error(`Could not start ${command}.`);
    child.unref();
    return {
      kind: 'process',
      pid: child.pid,
      exited: () => child.exitCode !== null || child.signalCode !== null,
      installs: !folder,
    };
  } finally {
    closeSync(log);
  }
}

/** The package's CLI in a folder that holds it built (a checkout after `npm ci && npm run build`, or an install). */
function cliOf(folder: string): string {
  const manifestPath = join(folder, 'package.json');
  if (!existsSync(manifestPath)) throw new Error('Input package names a folder without a package.json.');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    name?: string;
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[BIN];
  if (manifest.name !== BIN || !bin) throw new Error(`Input package names a folder that is not the ${BIN} package.`);
  const cli = join(folder, bin);
  if (!existsSync(cli))
    throw new Error(
      'Input package names a folder where the package is not built: run `npm ci && npm run build` in it first.',
    );
  return cli;
}

/** The step's environment without the runner's protocol (the action's inputs and state are not the fake's). */
const inheritedEnvironment = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('INPUT_') && !name.startsWith('STATE_')),
  );
