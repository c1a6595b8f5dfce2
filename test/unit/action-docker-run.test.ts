// How the action runs the image (action/src/start-container.ts): both networks, the settings as environment names
// only (values, the control token among them, never on docker's command line), the state folder mounted as the
// runner's user. The host network is what this machine's engine has (test/container); the bridge is GitHub's.
import { describe, expect, it } from 'vitest';
import type { ActionInputs } from '../../action/src/inputs.js';
import { dockerRun } from '../../action/src/start-container.js';

const inputs: ActionInputs = {
  source: { kind: 'container', image: 'img' },
  port: 8080,
  failOnFindings: false,
  seed: 3,
  controlToken: 's3cret-token',
  clients: '[{"client_id":"a","client_secret":"b"}]',
};

describe('docker run of the image', () => {
  it("publishes the fake on the runner's loopback when the engine has a bridge network", () => {
    const { args, env } = dockerRun({ ...inputs, port: 9000 }, 'img:1', { hostNetwork: false });
    expect(args).toEqual([
      'run',
      '--detach',
      '--label',
      'investment-api-fake.action=main',
      '--publish',
      '127.0.0.1:9000:8080',
      '--env',
      'PORT',
      '--env',
      'SEED',
      '--env',
      'CLIENTS',
      '--env',
      'CONTROL_TOKEN',
      'img:1',
    ]);
    expect(env).toEqual({ PORT: '8080', SEED: '3', CLIENTS: inputs.clients, CONTROL_TOKEN: 's3cret-token' });
  });

  it('shares the host network without a bridge, the fake listening on the port itself', () => {
    const { args, env } = dockerRun({ ...inputs, port: 9000 }, 'img:1', { hostNetwork: true });
    expect(args.slice(4, 6)).toEqual(['--network', 'host']);
    expect(env.PORT).toBe('9000');
  });

  it('keeps every value off the command line', () => {
    const { args } = dockerRun({ ...inputs, upstream: 'https://up.example' }, 'img', { hostNetwork: true });
    expect(args.join(' ')).not.toMatch(/s3cret-token|client_secret|up\.example/);
  });

  it("mounts the state folder at /state and runs as the runner's user, who owns it", () => {
    const { args, env } = dockerRun({ ...inputs, stateDir: '/home/runner/work/state' }, 'img', {
      hostNetwork: false,
      user: '1001:118',
    });
    expect(args).toEqual(expect.arrayContaining(['--volume', '/home/runner/work/state:/state', '--user', '1001:118']));
    expect(env.STATE_DIR).toBe('/state');
  });
});
