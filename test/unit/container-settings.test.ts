// The Testcontainers module's settings as the image's environment, and its builders' refusals: no Docker engine
// needed (test/container/testcontainers-module.spec.ts starts the image).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientsOf, containerEnvironment } from '../../src/container-settings.js';
import { optionsFromCli } from '../../src/config.js';
import { DEFAULT_IMAGE, InvestmentApiFakeContainer } from '../../src/testcontainers.js';
import { ROOT } from '../support/cli.js';

describe('the Testcontainers module settings', () => {
  it('maps each setting to the variable the CLI reads, and nothing when none is set', () => {
    expect(containerEnvironment({})).toEqual({});
    const clients = [{ client_id: 'acme', client_secret: 's3cret', scopes: ['read:accounts' as const] }];
    expect(
      containerEnvironment({
        seed: 7,
        clients,
        controlToken: 'ops',
        demo: true,
        stateDir: '/tmp/fake-state',
        hostPort: 41234,
      }),
    ).toEqual({
      SEED: '7',
      CLIENTS: JSON.stringify(clients),
      CONTROL_TOKEN: 'ops',
      DEMO: '1',
      STATE_DIR: '/state',
      PORT: '41234',
    });
    expect(containerEnvironment({ seed: 0, demo: false })).toEqual({ SEED: '0' });
  });

  it('gives an environment the CLI itself reads back as the same settings', () => {
    const clients = [
      { client_id: 'acme', client_secret: 's3cret' },
      { client_id: 'beta', client_secret: 'b3ta' },
    ];
    const env = containerEnvironment({
      seed: 42,
      clients,
      controlToken: 'ops',
      demo: true,
      stateDir: '/srv/state',
      hostPort: 40000,
    });
    const options = optionsFromCli([], env);
    expect(options).toMatchObject({
      seed: 42,
      clients,
      controlToken: 'ops',
      demo: true,
      stateDir: '/state',
      port: 40000,
    });
  });

  it('knows the default client when no clients are given, else the first given', () => {
    expect(clientsOf({})[0]).toEqual({ client_id: 'sandbox-client', client_secret: 'sandbox-secret' });
    expect(clientsOf({ clients: [{ client_id: 'acme', client_secret: 's' }] })[0]?.client_id).toBe('acme');
  });

  it('refuses a seed, clients or a control token the image would refuse, at once', () => {
    const container = new InvestmentApiFakeContainer('investment-api-fake:test');
    expect(() => container.withSeed(-1)).toThrow(/non-negative integer, got -1/);
    expect(() => container.withSeed(1.5)).toThrow(RangeError);
    expect(() => container.withClients([])).toThrow(/at least one client/);
    expect(() => container.withClients([{ client_id: 'acme', client_secret: '' }])).toThrow(/client_secret/);
    expect(() => container.withControlToken('')).toThrow(/non-empty/);
    expect(container.withSeed(3).withDemo().withControlToken('ops')).toBe(container);
  });

  it("defaults to the published image of the package's own version, as docs/containers.md names it", () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(DEFAULT_IMAGE).toBe(`ghcr.io/investment-platform/investment-api-fake:${version}`);
    expect(readFileSync(join(ROOT, 'docs/containers.md'), 'utf8')).toContain(
      'ghcr.io/investment-platform/investment-api-fake',
    );
  });
});
