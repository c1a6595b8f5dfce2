// `investment-api-fake/testcontainers` against the image the suite builds, on this engine, which has no bridge
// network: the module finds that out itself and shares the host's network.
// The first block runs before any container of this file starts: Testcontainers keeps its client once it has made
// one, and a start without TESTCONTAINERS_HOST_OVERRIDE must be the one that makes it.
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startServer } from '../../src/server.js';
import {
  InvestmentApiFakeContainer,
  NoBridgeNetworkError,
  type StartedInvestmentApiFakeContainer,
} from '../../src/testcontainers.js';
import { freePort } from '../support/cli.js';
import type { World } from '../../src/api/types.js';
import { docker, IMAGE, inspect } from './docker.js';

const CLIENTS = [
  { client_id: 'acme', client_secret: 'acme-secret' },
  { client_id: 'beta', client_secret: 'beta-secret', token_endpoint_auth_method: 'client_secret_basic' as const },
];

const report = (line: string) => process.stdout.write(`  [figure] ${line}\n`);

describe('the Testcontainers module on an engine without a bridge network, without the two settings', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("names both settings and the engine's missing bridge, in place of Testcontainers' own runtime failure", async () => {
    vi.stubEnv('TESTCONTAINERS_HOST_OVERRIDE', undefined);
    vi.stubEnv('TESTCONTAINERS_RYUK_DISABLED', undefined);
    const error = await new InvestmentApiFakeContainer(IMAGE).start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoBridgeNetworkError);
    expect((error as Error).message).toMatch(/^The container engine has no bridge network/);
    expect((error as Error).message).toContain(
      'Missing here: TESTCONTAINERS_HOST_OVERRIDE, TESTCONTAINERS_RYUK_DISABLED.',
    );
    expect((error as Error).message).not.toContain('Could not find a working container runtime strategy');
  });

  it('names the reaper setting before any container starts when only the host is set', async () => {
    vi.stubEnv('TESTCONTAINERS_RYUK_DISABLED', undefined);
    const before = await docker('ps', '-aq');
    const error = await new InvestmentApiFakeContainer(IMAGE).start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoBridgeNetworkError);
    expect((error as Error).message).toContain('TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1');
    expect((error as Error).message).toContain('Missing here: TESTCONTAINERS_RYUK_DISABLED.');
    expect(await docker('ps', '-aq')).toBe(before);
  });
});

describe('the Testcontainers module', () => {
  let fake: StartedInvestmentApiFakeContainer;
  let world: World;

  beforeAll(async () => {
    const begin = performance.now();
    fake = await new InvestmentApiFakeContainer(IMAGE).withSeed(7).withClients(CLIENTS).withControlToken('ops').start();
    report(`module start() to healthy: ${(performance.now() - begin).toFixed(0)} ms`);
    // every test starts from the world the container started with, as a partner's suite would keep it
    world = await fake.control.forClient('acme').snapshot();
  });
  afterAll(() => fake?.stop());

  beforeEach(() => fake.control.forClient('acme').restore(world));

  const v1 = async (path: string, init: RequestInit = {}, clientId?: string) =>
    fetch(`${fake.getBaseUrl()}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${await fake.token(clientId)}` },
    });

  it("found that the engine has no bridge network and shares the host's, waiting on the health check", async () => {
    expect(await inspect<string>(fake.getId(), '.HostConfig.NetworkMode')).toBe('host');
    expect(fake.getBaseUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${fake.getBaseUrl()}/__control/health`)).status).toBe(200);
  });

  it('gives the credentials and audience a partner sends to its token URL, and /v1 answers their token', async () => {
    const credentials = fake.getClientCredentials();
    expect(credentials).toEqual({
      clientId: 'acme',
      clientSecret: 'acme-secret',
      audience: new URL(fake.getBaseUrl()).host,
    });
    expect(fake.getClientCredentials('beta').clientSecret).toBe('beta-secret');
    expect(() => fake.getClientCredentials('sandbox-client')).toThrow(/No client "sandbox-client".*known: acme, beta/);
    const response = await fetch(fake.getTokenUrl(), {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'openid offline',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        audience: credentials.audience,
      }),
    });
    const { access_token } = (await response.json()) as { access_token: string };
    const accounts = await fetch(`${fake.getBaseUrl()}/v1/accounts`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(accounts.status).toBe(200);
  });

  it("starts the seeded world: the same accounts as the library's fake with that seed", async () => {
    const local = await startServer({ port: 0, seed: 7, clients: CLIENTS, logLevel: 'silent' });
    try {
      const ids = (w: World) => w.accounts.map((a) => a.id);
      expect(ids(world)).toEqual(ids(local.state('acme')));
      expect(ids(world).length).toBeGreaterThan(0);
    } finally {
      await local.stop();
    }
  });

  it("keeps each client's token until its tenant's clock nears expiry, as fake.token() does", async () => {
    const acme = fake.control.forClient('acme');
    const tokenRequests = async () => (await acme.requests({ path: '/oauth2/token', since: 'start' })).length;
    const first = await fake.token();
    const fetched = await tokenRequests();
    expect(await fake.token()).toBe(first);
    expect((await v1('/v1/accounts')).status).toBe(200);
    expect(await tokenRequests()).toBe(fetched);
    // beta authenticates with HTTP Basic, as it is registered
    expect(await fake.token('beta')).not.toBe(first);
    expect((await v1('/v1/accounts', {}, 'beta')).status).toBe(200);
    expect(await fake.token(undefined, { fresh: true })).not.toBe(first);
    const kept = await fake.token();
    await acme.advanceClock(3600);
    expect(await fake.token()).not.toBe(kept);
    expect((await v1('/v1/accounts')).status).toBe(200);
  });

  it('guards the control plane with the control token, which its control client sends', async () => {
    expect((await fetch(`${fake.getBaseUrl()}/__control/state`)).status).toBe(401);
    expect((await fake.control.health()).status).toBe('ok');
  });

  it('puts a world back between tests with control snapshot and restore', async () => {
    const placed = (await (await v1('/v1/orders?order_status=PLACED')).json()) as { data: { id: string }[] };
    const order = placed.data[0]!;
    expect((await v1(`/v1/orders/${order.id}/`, { method: 'DELETE' })).status).toBe(200);
    expect((await fake.control.forClient('acme').order(order.id)).order.status).toBe('CANCELLED');
    await fake.control.forClient('acme').restore(world);
    expect((await fake.control.forClient('acme').order(order.id)).order.status).toBe('PLACED');
  });
});

describe('the Testcontainers module, started and disposed', () => {
  let stateDir: string | undefined;
  afterEach(() => stateDir && rmSync(stateDir, { recursive: true, force: true }));

  it('is stopped and removed at the end of an `await using` block', async () => {
    let id: string;
    {
      await using fake = await new InvestmentApiFakeContainer(IMAGE).start();
      id = fake.getId();
      expect(fake.getClientCredentials().clientId).toBe('sandbox-client');
      expect(
        (
          await fetch(`${fake.getBaseUrl()}/v1/share-classes?limit=1`, {
            headers: { authorization: `Bearer ${await fake.token()}` },
          })
        ).status,
      ).toBe(200);
    }
    await expect(docker('inspect', id)).rejects.toThrow(/No such object/);
  });

  it('keeps its tenants in withStateDir across a restart and a new container', async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'module-state-'));
    // the image runs as its node user, uid 1000
    chownSync(stateDir, 1000, 1000);
    const first = await new InvestmentApiFakeContainer(IMAGE).withStateDir(stateDir).start();
    const order = (await first.control.orders()).data.find((o) => o.order.status === 'PLACED')!.order;
    try {
      await first.control.setOrderStatus(order.id, 'CANCELLED');
      await first.restart();
      expect((await first.control.order(order.id)).order.status).toBe('CANCELLED');
      // stopped as `docker stop` stops it: SIGTERM, every tenant written, exit 0 (a kill would be 137)
      await first.stop({ remove: false });
      expect(await inspect<number>(first.getId(), '.State.ExitCode')).toBe(0);
    } finally {
      await docker('rm', '-f', first.getId()).catch(() => undefined);
    }

    await using second = await new InvestmentApiFakeContainer(IMAGE).withStateDir(stateDir).start();
    expect((await second.control.order(order.id)).order.status).toBe('CANCELLED');
  });

  it('answers on the port withHostPort pins: the port the fake listens on, on the host network', async () => {
    const port = await freePort();
    await using fake = await new InvestmentApiFakeContainer(IMAGE).withHostPort(port).start();
    expect(fake.getBaseUrl()).toBe(`http://127.0.0.1:${port}`);
    expect(await inspect<string[]>(fake.getId(), '.Config.Env')).toContain(`PORT=${port}`);
    expect((await fetch(`http://127.0.0.1:${port}/__control/health`)).status).toBe(200);
    // a second container cannot have the same port: its start fails naming it, before a container is made (the first
    // fake would otherwise answer the second's health check); a resolved start is not formatted whole by expect
    const second = await new InvestmentApiFakeContainer(IMAGE)
      .withHostPort(port)
      .start()
      .then(
        async (started) => {
          await started.stop();
          return 'started';
        },
        (error: Error) => error.message,
      );
    expect(second).toMatch(new RegExp(`withHostPort\\(${port}\\): port ${port} of this machine is taken`));
  });

  it("fails start() at once, with the fake's words, when the state folder is not the image user's", async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'module-state-root-'));
    const begin = performance.now();
    const start = new InvestmentApiFakeContainer(IMAGE).withStateDir(stateDir).start();
    await expect(start).rejects.toThrow(/Container exited[\s\S]*uid 1000[\s\S]*chown -R 1000/);
    expect(performance.now() - begin).toBeLessThan(20_000);
  });
});
