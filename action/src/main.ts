/**
 * `main`: starts the fake (the image, or the package with `package`), waits for its health, leaves it running, and
 * outputs where it answers and its first client's credentials. Whatever it started is in the state before the wait,
 * so `post` stops it even when the wait fails.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import { createControlClient } from '../../src/control-client.js';
import { isClientId } from '../../src/settings-checks.js';
import { dockerLogs, docker } from './docker.js';
import { readInputs, secretsOf } from './inputs.js';
import { ensurePortFree } from './port.js';
import { startContainer } from './start-container.js';
import { startPackage } from './start-package.js';
import { saveFakeState, type FakeState } from './state.js';
import { waitForHealth, type HealthWait } from './wait-health.js';

const CONTAINER_HEALTH_MS = 60_000;
const PROCESS_HEALTH_MS = 60_000;
/** `npx` installs the package first. */
const NPX_HEALTH_MS = 300_000;

async function main(): Promise<void> {
  // every input checked before anything starts, and each secret masked before anything could print it
  const inputs = readInputs();
  for (const secret of secretsOf(inputs)) core.setSecret(secret);
  const base = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), 'investment-api-fake-'));
  const reportsDir = join(base, 'reports');
  mkdirSync(reportsDir);
  const logFile = join(reportsDir, 'fake.log');
  const url = `http://127.0.0.1:${inputs.port}`;
  await ensurePortFree(inputs.port);

  let wait: HealthWait;
  let runner: FakeState['runner'];
  if (inputs.source.kind === 'container') {
    const { id } = await startContainer(inputs, inputs.source.image);
    runner = { kind: 'container', id };
    wait = {
      timeoutMs: CONTAINER_HEALTH_MS,
      running: async () =>
        (await docker(['inspect', '--format', '{{.State.Running}}', id]).catch(() => 'false')) === 'true',
      output: () => dockerLogs(id, 40),
    };
  } else {
    const started = startPackage(inputs, inputs.source.spec, logFile);
    runner = { kind: 'process', pid: started.pid };
    wait = {
      timeoutMs: started.installs ? NPX_HEALTH_MS : PROCESS_HEALTH_MS,
      running: async () => !started.exited(),
      output: async () => tail(logFile),
    };
  }
  const state: FakeState = {
    url,
    reportsDir,
    logFile,
    stateFile: join(base, 'state.json'),
    failOnFindings: inputs.failOnFindings,
    shadow: inputs.upstream !== undefined,
    runner,
    ...(inputs.controlToken !== undefined && { controlToken: inputs.controlToken }),
  };
  saveFakeState(state);
  await waitForHealth(url, wait);

  const clients = await createControlClient({
    url,
    ...(inputs.controlToken !== undefined && { controlToken: inputs.controlToken }),
  }).clients();
  const first = clients.find((c) => c.default) ?? clients[0];
  if (!first) throw new Error('The fake has no client.');
  // what the fake answers is text like an input's: a client made by other means (a library's STATE_DIR) is not shown
  if (!isClientId(first.client_id))
    throw new Error(
      "The fake's first client has an id the action does not hand on (not 1 to 128 of A-Z a-z 0-9 . _ ~ -).",
    );
  core.setSecret(first.client_secret);
  core.setOutput('url', url);
  core.setOutput('token-url', `${url}/oauth2/token`);
  core.setOutput('client-id', first.client_id);
  core.setOutput('client-secret', first.client_secret);
  core.setOutput('reports-dir', reportsDir);
  core.info(`investment-api-fake answers on ${url} (client ${first.client_id}); the reports will be in ${reportsDir}.`);
}

/** The end of a log file. */
function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-40).join('\n');
  } catch {
    return '(no output)';
  }
}

main().catch((error: Error) => core.setFailed(error.message));
