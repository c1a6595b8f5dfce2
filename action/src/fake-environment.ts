/** The fake's settings as its environment (docs/configuration.md), the same for the image and the package. */
import type { ActionInputs } from './inputs.js';

/** `stateDir`: where the fake itself sees the folder (`/state` in the container, the runner's path for a process). */
export function fakeEnvironment(
  inputs: ActionInputs,
  { port, stateDir }: { port: number; stateDir?: string },
): Record<string, string> {
  return {
    PORT: String(port),
    ...(inputs.seed !== undefined && { SEED: String(inputs.seed) }),
    ...(inputs.clients !== undefined && { CLIENTS: inputs.clients }),
    ...(inputs.controlToken !== undefined && { CONTROL_TOKEN: inputs.controlToken }),
    ...(stateDir !== undefined && { STATE_DIR: stateDir }),
    ...(inputs.upstream !== undefined && { UPSTREAM_URL: inputs.upstream }),
  };
}
