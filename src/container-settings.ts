/**
 * What the Testcontainers module (`investment-api-fake/testcontainers`) asks of the image, as its environment: the
 * builder's settings mapped to the CLI's variables (docs/configuration.md). Kept apart from the module so that the
 * mapping is checked without a Docker engine, and the module holds only what talks to one.
 */
import { DEFAULT_CLIENT, type ClientCreate } from './domain/clients.js';
import { STATE_MOUNT } from './package-info.js';

/** The path the module waits on, as the image's own `HEALTHCHECK` does. */
export const HEALTH_PATH = '/__control/health';

/** What `InvestmentApiFakeContainer`'s `withX()` calls have set. */
export interface ContainerSettings {
  seed?: number;
  clients?: readonly ClientCreate[];
  controlToken?: string;
  demo?: boolean;
  /** A folder on the Docker host, mounted at `/state`. */
  stateDir?: string;
  /** With the host's network, the port the fake listens on (there is no port mapping then). */
  hostPort?: number;
  /** `withHostPort`: the host port to map 8080 to, or on the host's network the port the fake listens on. */
  pinnedPort?: number;
}

/** The container's environment for these settings (only what differs from the image's defaults). */
export function containerEnvironment(settings: ContainerSettings): Record<string, string> {
  return {
    ...(settings.seed !== undefined && { SEED: String(settings.seed) }),
    ...(settings.clients !== undefined && { CLIENTS: JSON.stringify(settings.clients) }),
    ...(settings.controlToken !== undefined && { CONTROL_TOKEN: settings.controlToken }),
    ...(settings.demo && { DEMO: '1' }),
    ...(settings.stateDir !== undefined && { STATE_DIR: STATE_MOUNT }),
    ...(settings.hostPort !== undefined && { PORT: String(settings.hostPort) }),
  };
}

/** The clients the fake will have: those given, else its default one (the first is the default either way). */
export const clientsOf = (settings: ContainerSettings): readonly ClientCreate[] => settings.clients ?? [DEFAULT_CLIENT];

/** A seed the CLI takes (a non-negative integer), else a `RangeError` at once, not a container that will not start. */
export function checkedSeed(seed: number): number {
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new RangeError(`withSeed takes a non-negative integer, got ${seed}.`);
  return seed;
}

/** A port to pin on the host (1–65535), else a `RangeError` at once. */
export function checkedHostPort(port: number): number {
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new RangeError(`withHostPort takes a port from 1 to 65535, got ${port}.`);
  return port;
}

/** Clients the CLI takes (at least one, each with an id and a secret), else a `TypeError` at once. */
export function checkedClients(clients: readonly ClientCreate[]): readonly ClientCreate[] {
  if (clients.length === 0) throw new TypeError('withClients takes at least one client.');
  for (const client of clients) {
    if (!client.client_id || !client.client_secret)
      throw new TypeError('Every client of withClients needs a non-empty client_id and client_secret.');
  }
  return [...clients];
}
