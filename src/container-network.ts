/**
 * Which network the Testcontainers module's container takes on this engine (its bridge, else the host's), and the
 * error that says why a start cannot go on: an engine without a bridge network needs two of Testcontainers' settings,
 * and without them Testcontainers' own failure names neither (`Could not find a working container runtime strategy`).
 * Kept apart from the module so that the choice is checked without an engine: the module passes its probes in.
 */
import { request } from 'node:http';

/** The two settings, with the values such an engine needs (docs/containers.md#an-engine-without-a-bridge-network). */
const NO_BRIDGE_SETTINGS = {
  TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1',
  TESTCONTAINERS_RYUK_DISABLED: 'true',
} as const;
type NoBridgeSetting = keyof typeof NO_BRIDGE_SETTINGS;

/** What the module asks of the engine. */
export interface EngineProbe {
  /** Whether it has a bridge network, through Testcontainers' client: throws when that client cannot be made. */
  bridgeThroughTestcontainers(): Promise<boolean>;
  /** Whether it has one, asked of its socket directly; undefined when the socket cannot be read. */
  bridgeDirectly(): Promise<boolean | undefined>;
}

/** The settings an engine without a bridge needs that this environment lacks (the reaper is off only as `true`). */
const missingSettings = (env: NodeJS.ProcessEnv): NoBridgeSetting[] => [
  ...(env.TESTCONTAINERS_HOST_OVERRIDE ? [] : (['TESTCONTAINERS_HOST_OVERRIDE'] as const)),
  ...(env.TESTCONTAINERS_RYUK_DISABLED === 'true' ? [] : (['TESTCONTAINERS_RYUK_DISABLED'] as const)),
];

/** A start refused because the engine has no bridge network and Testcontainers was not told so. */
export class NoBridgeNetworkError extends Error {
  constructor(
    readonly missing: readonly NoBridgeSetting[],
    cause?: unknown,
  ) {
    super(
      'The container engine has no bridge network (as dockerd --bridge=none runs), so the fake would share the ' +
        "host's network, and Testcontainers needs two settings for such an engine: " +
        `TESTCONTAINERS_HOST_OVERRIDE=${NO_BRIDGE_SETTINGS.TESTCONTAINERS_HOST_OVERRIDE} (where containers answer; run in a container, ` +
        "Testcontainers otherwise looks for the bridge network's gateway) and " +
        `TESTCONTAINERS_RYUK_DISABLED=${NO_BRIDGE_SETTINGS.TESTCONTAINERS_RYUK_DISABLED} (its reaper, Ryuk, needs a port mapped, which ` +
        'only a bridge network gives: stop what you start, with stop() or await using). ' +
        `Missing here: ${missing.join(', ')}. See docs/containers.md#an-engine-without-a-bridge-network.`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'NoBridgeNetworkError';
  }
}

/**
 * `host` when the engine has no bridge network, `bridge` when it has one. Throws `NoBridgeNetworkError` when it has
 * none and a setting it then needs is missing: at once when Testcontainers' client works (its reaper would fail
 * later, with a message about ports), and in place of the client's own failure when the engine, asked directly,
 * has no bridge (any other failure is Testcontainers' own, thrown as it is).
 */
export async function chooseNetwork(probe: EngineProbe, env: NodeJS.ProcessEnv): Promise<'bridge' | 'host'> {
  const missing = missingSettings(env);
  let hasBridge: boolean;
  try {
    hasBridge = await probe.bridgeThroughTestcontainers();
  } catch (error) {
    if (missing.length > 0 && (await probe.bridgeDirectly().catch(() => undefined)) === false)
      throw new NoBridgeNetworkError(missing, error);
    throw error;
  }
  if (hasBridge) return 'bridge';
  if (missing.length > 0) throw new NoBridgeNetworkError(missing);
  return 'host';
}

/** Where the engine's API answers, as Docker's clients read `DOCKER_HOST`; undefined for what is not read here (TLS). */
export function engineAddress(
  env: NodeJS.ProcessEnv,
): { socketPath: string } | { host: string; port: number } | undefined {
  const given = env.DOCKER_HOST;
  if (!given) return { socketPath: '/var/run/docker.sock' };
  if (given.startsWith('unix://')) return { socketPath: given.slice('unix://'.length) };
  if (given.startsWith('tcp://') && !env.DOCKER_TLS_VERIFY) {
    const url = new URL(`http://${given.slice('tcp://'.length)}`);
    return { host: url.hostname, port: Number(url.port || 2375) };
  }
  return undefined;
}

/**
 * Whether the engine at `DOCKER_HOST` (or the default socket) lists a network with the bridge driver (Docker's
 * `bridge`, Podman's `podman`), asked directly: Testcontainers' client cannot be made on such an engine without its
 * settings. Undefined when the engine cannot be asked or answers something else.
 */
export function bridgeOverEngineApi(env: NodeJS.ProcessEnv, timeoutMs = 2_000): Promise<boolean | undefined> {
  const address = engineAddress(env);
  if (!address) return Promise.resolve(undefined);
  const path = `/networks?filters=${encodeURIComponent(JSON.stringify({ driver: ['bridge'] }))}`;
  return new Promise((resolve) => {
    const req = request({ ...address, path, timeout: timeoutMs, headers: { accept: 'application/json' } }, (res) => {
      let body = '';
      // a list of networks is small: past 1 MiB the body is not one, and is left unread
      res
        .setEncoding('utf8')
        .on('data', (chunk: string) => (body.length + chunk.length > 1 << 20 ? res.destroy() : (body += chunk)));
      res.on('end', () => {
        try {
          const networks: unknown = JSON.parse(body);
          resolve(res.statusCode === 200 && Array.isArray(networks) ? networks.length > 0 : undefined);
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}
