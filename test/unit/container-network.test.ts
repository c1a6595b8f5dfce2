// The Testcontainers module's choice of network and its error on an engine without a bridge network, with the
// engine's answers given (test/container/testcontainers-module.spec.ts meets a real engine).
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bridgeOverEngineApi,
  chooseNetwork,
  engineAddress,
  NoBridgeNetworkError,
  type EngineProbe,
} from '../../src/container-network.js';
import { InvestmentApiFakeContainer, NoBridgeNetworkError as Exported } from '../../src/testcontainers.js';

const BOTH = { TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1', TESTCONTAINERS_RYUK_DISABLED: 'true' };
const RUNTIME_FAILURE = new Error('Could not find a working container runtime strategy');

/** An engine as the module's two probes see it; `directly` counts its calls. */
function engine(
  bridge: boolean,
  options: { client?: 'works' | 'fails'; direct?: boolean | undefined } = {},
): EngineProbe & { asked: number } {
  const probe = {
    asked: 0,
    bridgeThroughTestcontainers: async () => {
      if (options.client === 'fails') throw RUNTIME_FAILURE;
      return bridge;
    },
    bridgeDirectly: async () => {
      probe.asked += 1;
      return 'direct' in options ? options.direct : bridge;
    },
  };
  return probe;
}

const namesBoth = (error: unknown, missing: string): void => {
  expect(error).toBeInstanceOf(NoBridgeNetworkError);
  const { message } = error as Error;
  expect(message).toMatch(/^The container engine has no bridge network/);
  expect(message).toContain('TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1');
  expect(message).toContain('TESTCONTAINERS_RYUK_DISABLED=true');
  expect(message).toContain(`Missing here: ${missing}.`);
  expect(message).toContain('docs/containers.md#an-engine-without-a-bridge-network');
};

describe("the Testcontainers module's network", () => {
  it("takes the engine's bridge network when it has one, whatever the settings", async () => {
    expect(await chooseNetwork(engine(true), {})).toBe('bridge');
    expect(await chooseNetwork(engine(true), BOTH)).toBe('bridge');
  });

  it("shares the host's network on an engine without a bridge when Testcontainers has both settings", async () => {
    expect(await chooseNetwork(engine(false), BOTH)).toBe('host');
  });

  it("names both settings and the missing bridge when Testcontainers' reaper is on, before any container starts", async () => {
    const error = await chooseNetwork(engine(false), { TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1' }).catch(
      (e: unknown) => e,
    );
    namesBoth(error, 'TESTCONTAINERS_RYUK_DISABLED');
    namesBoth(
      await chooseNetwork(engine(false), { ...BOTH, TESTCONTAINERS_RYUK_DISABLED: 'false' }).catch((e: unknown) => e),
      'TESTCONTAINERS_RYUK_DISABLED',
    );
  });

  it("puts its words in place of Testcontainers' runtime failure when the engine, asked directly, has no bridge", async () => {
    const error = await chooseNetwork(engine(false, { client: 'fails' }), {}).catch((e: unknown) => e);
    namesBoth(error, 'TESTCONTAINERS_HOST_OVERRIDE, TESTCONTAINERS_RYUK_DISABLED');
    expect((error as Error).cause).toBe(RUNTIME_FAILURE);
    expect(error).toBeInstanceOf(Exported);
  });

  it("leaves Testcontainers' failure as it is when the bridge is not the cause or cannot be known", async () => {
    await expect(chooseNetwork(engine(true, { client: 'fails' }), {})).rejects.toBe(RUNTIME_FAILURE);
    await expect(chooseNetwork(engine(false, { client: 'fails', direct: undefined }), {})).rejects.toBe(
      RUNTIME_FAILURE,
    );
    const configured = engine(false, { client: 'fails' });
    await expect(chooseNetwork(configured, BOTH)).rejects.toBe(RUNTIME_FAILURE);
    expect(configured.asked).toBe(0);
  });
});

describe('the engine asked directly', () => {
  let dir: string | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    if (dir) rmSync(dir, { recursive: true, force: true });
    [server, dir] = [undefined, undefined];
  });

  /** An engine API on a Unix socket that answers the network list with `networks` (or a status). */
  async function fakeEngine(answer: {
    status: number;
    body: unknown;
  }): Promise<{ env: NodeJS.ProcessEnv; paths: string[] }> {
    dir = mkdtempSync(join(tmpdir(), 'engine-'));
    const socketPath = join(dir, 'docker.sock');
    const paths: string[] = [];
    server = createServer((req, res) => {
      paths.push(req.url!);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server!.listen(socketPath, resolve));
    return { env: { DOCKER_HOST: `unix://${socketPath}` }, paths };
  }

  it('reads the networks with the bridge driver from DOCKER_HOST', async () => {
    const none = await fakeEngine({ status: 200, body: [] });
    expect(await bridgeOverEngineApi(none.env)).toBe(false);
    expect(none.paths).toEqual([`/networks?filters=${encodeURIComponent('{"driver":["bridge"]}')}`]);
  });

  it('finds a bridge network', async () => {
    expect(
      await bridgeOverEngineApi((await fakeEngine({ status: 200, body: [{ Name: 'bridge', Driver: 'bridge' }] })).env),
    ).toBe(true);
  });

  it('knows nothing from an error answer, a body that is no list, or no engine at all', async () => {
    const failing = await fakeEngine({ status: 500, body: { message: 'boom' } });
    expect(await bridgeOverEngineApi(failing.env)).toBeUndefined();
    expect(
      await bridgeOverEngineApi({ DOCKER_HOST: `unix://${join(tmpdir(), 'no-such-engine.sock')}` }),
    ).toBeUndefined();
    expect(await bridgeOverEngineApi({ DOCKER_HOST: 'ssh://me@engine' })).toBeUndefined();
  });

  it("finds the engine where Docker's clients do", () => {
    expect(engineAddress({})).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(engineAddress({ DOCKER_HOST: 'unix:///run/user/1000/podman/podman.sock' })).toEqual({
      socketPath: '/run/user/1000/podman/podman.sock',
    });
    expect(engineAddress({ DOCKER_HOST: 'tcp://10.0.0.2:2375' })).toEqual({ host: '10.0.0.2', port: 2375 });
    expect(engineAddress({ DOCKER_HOST: 'tcp://10.0.0.2:2376', DOCKER_TLS_VERIFY: '1' })).toBeUndefined();
  });
});

describe('withHostPort', () => {
  it('takes a port of this machine, and refuses one that is none at once', () => {
    const container = new InvestmentApiFakeContainer('investment-api-fake:test');
    expect(container.withHostPort(18080)).toBe(container);
    for (const port of [0, 65_536, 80.5, -1, Number.NaN])
      expect(() => container.withHostPort(port), String(port)).toThrow(/withHostPort takes a port from 1 to 65535/);
  });
});
