/**
 * `investment-api-fake/testcontainers`: the fake's image as a Testcontainers module, shaped as the LocalStack and
 * MockServer modules are (a container class with `withX()` builders, a started class with getters):
 *
 *   await using fake = await new InvestmentApiFakeContainer().withSeed(7).start();
 *   const response = await fetch(`${fake.getBaseUrl()}/v1/accounts`, { headers: { authorization: `Bearer ${await fake.token()}` } });
 *
 * `testcontainers` is an optional peer dependency: only this entry imports it, never the package's main one.
 */
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import {
  AbstractStartedContainer,
  BoundPorts,
  GenericContainer,
  getContainerRuntimeClient,
  Wait,
  type RestartOptions,
  type StartedTestContainer,
  type StopOptions,
  type StoppedTestContainer,
  type WaitStrategy,
} from 'testcontainers';
import { bridgeOverEngineApi, chooseNetwork } from './container-network.js';
import {
  checkedClients,
  checkedHostPort,
  checkedSeed,
  clientsOf,
  containerEnvironment,
  HEALTH_PATH,
  type ContainerSettings,
} from './container-settings.js';
import { createControlClient, fetchToken, type ControlClient } from './control-client.js';
import { CONTAINER_PORT, publishedImage, STATE_MOUNT } from './package-info.js';
import { TokenKeeper } from './token-keeper.js';
import type { ClientCreate } from './domain/clients.js';
import type { TokenOptions } from './server.js';

export { NoBridgeNetworkError } from './container-network.js';

/** The published image of this package's version (docs/containers.md). */
export const DEFAULT_IMAGE = publishedImage();

/** How long a container with a state folder is given to stop on SIGTERM before it is killed. */
const GRACEFUL_STOP_MS = 10_000;

/** What a client presents at the token endpoint: its credentials and the audience (the fake's host and port). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  audience: string;
}

/**
 * The fake's image, to be started: `new InvestmentApiFakeContainer(image?)`, the settings (`withSeed`, `withClients`,
 * `withControlToken`, `withDemo`, `withStateDir`, `withHostPort`), then `start()`. Every `GenericContainer` builder works too.
 *
 * On an engine without a bridge network (found at `start()`, or chosen with `withNetworkMode('host')`) the container
 * shares the host's network and listens on a free port of it (or `withHostPort`'s), passed as `PORT`; else it listens
 * on 8080, mapped to a free port (or `withHostPort`'s). Either way `start()` resolves once `GET /__control/health`
 * answers 200. Such an engine needs `TESTCONTAINERS_HOST_OVERRIDE` and `TESTCONTAINERS_RYUK_DISABLED`: without them
 * `start()` throws a `NoBridgeNetworkError` naming both.
 */
export class InvestmentApiFakeContainer extends GenericContainer {
  private readonly settings: ContainerSettings = {};

  constructor(image: string = DEFAULT_IMAGE) {
    super(image);
    this.withStartupTimeout(60_000);
  }

  /** The seed of the generated world (`SEED`): the same seed, the same accounts, orders and identifiers. */
  withSeed(seed: number): this {
    this.settings.seed = checkedSeed(seed);
    return this;
  }

  /** The OAuth clients (`CLIENTS`), each its own tenant; the first is the default one (`sandbox-client` when not set). */
  withClients(clients: readonly ClientCreate[]): this {
    this.settings.clients = checkedClients(clients);
    return this;
  }

  /** Guards `/__control` with this bearer token (`CONTROL_TOKEN`); the started container's `control` sends it. */
  withControlToken(token: string): this {
    if (!token) throw new TypeError('withControlToken takes a non-empty token.');
    this.settings.controlToken = token;
    return this;
  }

  /**
   * A live sandbox (`DEMO=1`): the default client's orders move on its clock and investor orders arrive, and the demo
   * partner (client `demo-partner`) calls the API every few seconds (docs/control-plane.md#the-demo-partner).
   */
  withDemo(): this {
    this.settings.demo = true;
    return this;
  }

  /**
   * Keeps every tenant across restarts in this folder of the Docker host, mounted at `/state` (`STATE_DIR`). The
   * image runs as its `node` user, uid 1000: the folder must be writable by it (`chown -R 1000 <folder>`), else the
   * fake refuses to start and says so. A relative path is taken from the current folder.
   */
  withStateDir(hostPath: string): this {
    // a bind mount takes an absolute path; a relative one is the test's own folder's
    this.settings.stateDir = resolve(hostPath);
    this.withBindMounts([{ source: this.settings.stateDir, target: STATE_MOUNT, mode: 'rw' }]);
    return this;
  }

  /**
   * The port of this machine the fake answers on, instead of a free one: 8080 mapped to it, or on an engine without a
   * bridge network the port the fake itself listens on (`PORT`). A port in use fails `start()`.
   */
  withHostPort(port: number): this {
    this.settings.pinnedPort = checkedHostPort(port);
    return this;
  }

  override async start(): Promise<StartedInvestmentApiFakeContainer> {
    const probe = {
      bridgeThroughTestcontainers: engineHasBridgeNetwork,
      bridgeDirectly: () => bridgeOverEngineApi(process.env),
    };
    const hostNetwork =
      this.networkMode === undefined
        ? (await chooseNetwork(probe, process.env)) === 'host'
        : this.networkMode === 'host';
    // a fake that refuses to start (a STATE_DIR it cannot write, a bad CLIENTS) fails start() at once with its logs
    const health = (port: number) => Wait.forHttp(HEALTH_PATH, port, { abortOnContainerExit: true }).forStatusCode(200);
    const { pinnedPort } = this.settings;
    if (hostNetwork) {
      // on the host's network a second fake on a port in use would exit while the first answered its health check
      this.settings.hostPort = pinnedPort === undefined ? await freePort() : await portFreeOrThrow(pinnedPort);
      this.withNetworkMode('host').withWaitStrategy(
        new HostPortWait(health(this.settings.hostPort), this.settings.hostPort),
      );
    } else {
      this.withExposedPorts(
        pinnedPort === undefined ? CONTAINER_PORT : { container: CONTAINER_PORT, host: pinnedPort },
      ).withWaitStrategy(health(CONTAINER_PORT));
    }
    this.withEnvironment(containerEnvironment(this.settings));
    const started = await super.start();
    return new StartedInvestmentApiFakeContainer(started, { ...this.settings, clients: clientsOf(this.settings) });
  }
}

/**
 * The fake, started: where it answers (`getBaseUrl`, `getTokenUrl`), its clients' credentials and tokens, and its
 * control plane (`control`). `stop()` or `await using` removes it.
 */
export class StartedInvestmentApiFakeContainer extends AbstractStartedContainer {
  private readonly tokens = new TokenKeeper<object>();
  /** One object per client (and base URL), the token keeper's key. */
  private readonly owners = new Map<string, object>();
  private controlOf?: { url: string; client: ControlClient };

  constructor(
    startedTestContainer: StartedTestContainer,
    private readonly settings: ContainerSettings & { clients: readonly ClientCreate[] },
  ) {
    super(startedTestContainer);
  }

  /** Such as `http://localhost:49153`: read each time, as a restarted container may be mapped to another port. */
  getBaseUrl(): string {
    const { hostPort } = this.settings;
    // with the host's network the fake listens on IPv4 (HOST=0.0.0.0), where `localhost` may first try ::1
    const host = hostPort !== undefined && this.getHost() === 'localhost' ? '127.0.0.1' : this.getHost();
    return `http://${host.includes(':') ? `[${host}]` : host}:${hostPort ?? this.getMappedPort(CONTAINER_PORT)}`;
  }

  /** The token endpoint (`POST`, client credentials). */
  getTokenUrl(): string {
    return `${this.getBaseUrl()}/oauth2/token`;
  }

  /** A client's credentials (default: the default client) and the audience its token requests name. */
  getClientCredentials(clientId?: string): ClientCredentials {
    const client = this.clientOf(clientId);
    return {
      clientId: client.client_id,
      clientSecret: client.client_secret,
      audience: new URL(this.getBaseUrl()).host,
    };
  }

  /**
   * An access token for a client (default: the default client), kept as the library's `fake.token()` keeps it: the
   * same token until it is within 60 s of expiry on the tenant's clock (read from the control plane; the machine's
   * clock when that cannot be read); `{ fresh: true }` fetches a new one.
   */
  async token(clientId?: string, { fresh = false }: TokenOptions = {}): Promise<string> {
    const client = this.clientOf(clientId);
    const url = this.getBaseUrl();
    const key = JSON.stringify([url, client.client_id]);
    const owner = this.owners.get(key) ?? this.owners.set(key, {}).get(key)!;
    const nowMs = await this.control
      .forClient(client.client_id)
      .now()
      .then(
        ({ now }) => Date.parse(now),
        () => Date.now(),
      );
    const fingerprint = JSON.stringify([client.client_secret, client.scopes, client.token_endpoint_auth_method]);
    const fetchNew = () =>
      fetchToken(url, client.client_id, client.client_secret, {
        ...(client.token_endpoint_auth_method && { authMethod: client.token_endpoint_auth_method }),
      });
    return this.tokens.token(owner, fingerprint, () => nowMs, fetchNew, fresh);
  }

  /** The typed control client (`/__control`), with the control token when one was set; `control.forClient(id)` for another tenant. */
  get control(): ControlClient {
    const url = this.getBaseUrl();
    if (this.controlOf?.url !== url) {
      const controlToken = this.settings.controlToken;
      this.controlOf = {
        url,
        client: createControlClient({ url, ...(controlToken !== undefined && { controlToken }) }),
      };
    }
    return this.controlOf.client;
  }

  /**
   * Testcontainers kills a container at once by default. With `withStateDir` the fake is given 10 s to stop as
   * `docker stop` would stop it (SIGTERM: it answers what is in flight, writes every tenant and exits 0, or 1 when
   * it could not), so that a restart or the next container finds what this one had.
   */
  override stop(options: Partial<StopOptions> = {}): Promise<StoppedTestContainer> {
    return super.stop({ ...this.gracefully(), ...options });
  }

  override restart(options: Partial<RestartOptions> = {}): Promise<void> {
    return super.restart({ ...this.gracefully(), ...options });
  }

  private gracefully(): { timeout?: number } {
    return this.settings.stateDir !== undefined ? { timeout: GRACEFUL_STOP_MS } : {};
  }

  private clientOf(clientId?: string): ClientCreate {
    const { clients } = this.settings;
    const client = clientId === undefined ? clients[0] : clients.find((c) => c.client_id === clientId);
    if (!client)
      throw new Error(
        `No client "${clientId}" was given to withClients; known: ${clients.map((c) => c.client_id).join(', ')}.`,
      );
    return client;
  }
}

/**
 * The HTTP wait of a container on the host's network: Testcontainers' own `Wait.forHttp`, on the port the fake
 * listens on, since such a container has no port bindings for it to read.
 */
class HostPortWait implements WaitStrategy {
  constructor(
    private readonly http: WaitStrategy,
    private readonly port: number,
  ) {}

  async waitUntilReady(...[container, , startTime]: Parameters<WaitStrategy['waitUntilReady']>): Promise<void> {
    const ports = new BoundPorts();
    ports.setBinding(this.port, this.port);
    await this.http.waitUntilReady(container, ports, startTime);
  }

  withStartupTimeout(startupTimeoutMs: number): this {
    this.http.withStartupTimeout(startupTimeoutMs);
    return this;
  }

  isStartupTimeoutSet = (): boolean => this.http.isStartupTimeoutSet();
  getStartupTimeout = (): number => this.http.getStartupTimeout();
}

/** Whether the engine has a bridge network (Docker's `bridge`, Podman's `podman`); dockerd `--bridge=none` has none. */
async function engineHasBridgeNetwork(): Promise<boolean> {
  const client = await getContainerRuntimeClient();
  const networks = await client.container.dockerode.listNetworks({ filters: { driver: ['bridge'] } });
  return networks.length > 0;
}

/** A port free on this machine now (any when 0), for a container on the host's network. */
const freePort = (wanted = 0, host = '127.0.0.1') =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
      .once('error', reject)
      .listen(wanted, host, () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
  });

/** The pinned port when nothing listens on it (the fake listens on every interface), else an error naming it. */
const portFreeOrThrow = (port: number) =>
  freePort(port, '0.0.0.0').catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      `withHostPort(${port}): port ${port} of this machine is taken (${error.code ?? error.message}); the fake shares the host's network on this engine and cannot listen there. Pin another port, or stop what listens on it.`,
      { cause: error },
    );
  });
