import type { AddressInfo } from 'node:net';
import type { CliOptions } from './config.js';

const ALL_INTERFACES = new Set(['0.0.0.0', '::', '::0']);

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';
}

const hostPort = (address: string, port: number) => `${address.includes(':') ? `[${address}]` : address}:${port}`;

export interface BannerFacts {
  version: string;
  address: AddressInfo;
  options: CliOptions;
  defaultClient: { client_id: string; client_secret: string };
  clientCount: number;
  /** Under --demo: the demo partner runs (src/demo/). */
  demoPartner?: boolean;
}

/** The other name of a loopback address, when the client may call the server by either. */
const OTHER_LOOPBACK_NAME: Record<string, string> = { localhost: '127.0.0.1', '127.0.0.1': 'localhost' };

/** What a person needs for the first call: where it listens, who to be, what audience to send, where to look. */
export function banner({
  version,
  address,
  options,
  defaultClient,
  clientCount,
  demoPartner = false,
}: BannerFacts): string {
  const everywhere = ALL_INTERFACES.has(address.address);
  // The URL a person on this machine types; the audience is its host part unless BASE_URL names another.
  const localName = everywhere ? 'localhost' : address.address;
  const local = `http://${hostPort(localName, address.port)}`;
  const base = options.baseUrl ?? local;
  const where = everywhere ? `all interfaces, port ${address.port}` : hostPort(address.address, address.port);
  const world = options.fixtures !== undefined ? `fixtures ${String(options.fixtures)}` : `seed ${options.seed ?? 1}`;
  const guard = options.controlToken
    ? 'guarded: send Authorization: Bearer <CONTROL_TOKEN>'
    : 'open: set CONTROL_TOKEN to guard it';
  const credentials = `client_id=${defaultClient.client_id} client_secret=${defaultClient.client_secret}`;
  const others = clientCount > 1 ? ` (+${clientCount - 1} more clients)` : '';
  // The audience is the host part of the URL the client calls: on loopback a newcomer calls either name, and
  // mixing them (localhost in the URL, 127.0.0.1 in the audience) is the first error met, so both are spelled out.
  const otherName = options.baseUrl === undefined ? OTHER_LOOPBACK_NAME[localName] : undefined;
  const audience =
    otherName === undefined
      ? [`${credentials} audience=${new URL(base).host}${others}`]
      : [
          `${credentials}${others}; audience: the host part of the URL you call`,
          `audience=${[local, `http://${hostPort(otherName, address.port)}`].map((url) => `${new URL(url).host} when you call ${url}`).join(', ')}`,
        ];
  return [
    `investment-api-fake ${version} (Node ${process.versions.node}) listening on ${where}: ${local}`,
    `  token          POST ${base}/oauth2/token`,
    ...audience.map((line) => `                 ${line}`),
    `  API reference  ${base}/docs`,
    `  console        ${base}/console/`,
    `  control plane  ${base}/__control (${guard})`,
    `  world          ${world}; logs ${options.logFormat}, level ${options.logLevel ?? 'info'}`,
    ...(options.demo
      ? [
          `  demo           ${defaultClient.client_id}'s orders move on its clock; end investors place an order about every 30 s (its settings: /__control/clients)`,
        ]
      : []),
    ...(demoPartner
      ? [
          `  demo partner   demo-partner calls the API every few seconds as a partner would: its Overview, Requests and Readiness at ${base}/console/ (--demo-partner off leaves it out)`,
        ]
      : []),
    ...(options.stateDir !== undefined
      ? [`  state          ${options.stateDir} (every tenant and the signing key kept across restarts)`]
      : []),
    ...(options.upstream !== undefined
      ? [
          `  shadow mode    /oauth2/token and /v1 answered by ${options.upstream}, compared with this fake: ${base}/__control/fidelity, ${base}/console/fidelity`,
        ]
      : []),
    '',
  ].join('\n');
}

/** The warning for an open control plane reachable from other machines, or undefined. */
export function exposureWarning(address: AddressInfo, options: CliOptions): string | undefined {
  if (options.controlToken || isLoopback(address.address)) return undefined;
  return (
    `warning: listening on ${address.address} with an open control plane: anyone who can reach port ${address.port} ` +
    `can read and change every tenant's world. Set CONTROL_TOKEN to guard /__control, or HOST=127.0.0.1 to stay local.\n`
  );
}
