/**
 * The image, started detached: on the engine's bridge network with the fake's port 8080 published on the runner's
 * loopback at `port`, or, on an engine without a bridge network, on the host's network listening on `port` itself.
 */
import { mkdirSync } from 'node:fs';
import * as core from '@actions/core';
import { CONTAINER_PORT, STATE_MOUNT } from '../../src/package-info.js';
import { docker } from './docker.js';
import { fakeEnvironment } from './fake-environment.js';
import type { ActionInputs } from './inputs.js';

export async function startContainer(inputs: ActionInputs, image: string): Promise<{ kind: 'container'; id: string }> {
  const hostNetwork = !(await engineHasBridgeNetwork());
  if (inputs.stateDir !== undefined) mkdirSync(inputs.stateDir, { recursive: true });
  const { args, env } = dockerRun(inputs, image, { hostNetwork, user: userOfThisProcess() });
  // the image is named by the input, not shown: no input's value reaches the log
  core.info(
    `docker run of the input image (${hostNetwork ? `host network, port ${inputs.port}` : `bridge network, 127.0.0.1:${inputs.port} → ${CONTAINER_PORT}`})`,
  );
  const id = await docker(args, { ...process.env, ...env });
  return { kind: 'container', id };
}

/**
 * `docker run`'s arguments and the environment they take their values from: the values stay out of the command line
 * (the control token is a secret), `--env NAME` takes each from docker's own environment.
 */
export function dockerRun(
  inputs: ActionInputs,
  image: string,
  { hostNetwork, user }: { hostNetwork: boolean; user?: string },
): { args: string[]; env: Record<string, string> } {
  const env = fakeEnvironment(inputs, {
    port: hostNetwork ? inputs.port : CONTAINER_PORT,
    ...(inputs.stateDir !== undefined && { stateDir: STATE_MOUNT }),
  });
  const args = ['run', '--detach', '--label', 'investment-api-fake.action=main'];
  args.push(...(hostNetwork ? ['--network', 'host'] : ['--publish', `127.0.0.1:${inputs.port}:${CONTAINER_PORT}`]));
  // the folder is the runner user's: the fake runs as that user, so it can write there and the job can read it
  if (inputs.stateDir !== undefined)
    args.push('--volume', `${inputs.stateDir}:${STATE_MOUNT}`, ...(user !== undefined ? ['--user', user] : []));
  for (const name of Object.keys(env)) args.push('--env', name);
  args.push(image);
  return { args, env };
}

/** Whether the engine has a bridge network (Docker's `bridge`, Podman's `podman`); dockerd `--bridge=none` has none. */
async function engineHasBridgeNetwork(): Promise<boolean> {
  return (await docker(['network', 'ls', '--quiet', '--filter', 'driver=bridge'])) !== '';
}

const userOfThisProcess = (): string | undefined =>
  process.getuid && process.getgid ? `${process.getuid()}:${process.getgid()}` : undefined;
