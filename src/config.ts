import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_CLIENT, type ClientCreate } from './domain/clients.js';
import type { World } from './api/types.js';

/** Everything a server instance can be told (CONTRACT §1). The library, the CLI and createApp share it. */
export interface FakeOptions {
  /** TCP port; 0 (the library's default) picks a free one. The CLI defaults to 8080. */
  port?: number;
  /** Interface to listen on; default all interfaces. */
  host?: string;
  /** Public base URL; default: taken from each request's Host header. */
  baseUrl?: string;
  /** Base of document links; default `<base_url>/files`. */
  docsUrl?: string;
  /** Seed of the generated fixtures; default 1. */
  seed?: number;
  /** Size of the generated world: accounts (default 10) and orders (default 30), for load tests. */
  fixtureScale?: { accounts?: number; orders?: number };
  /** Own fixtures: a world object, or the path of a JSON file holding one. Replaces the generated world. */
  fixtures?: World | string;
  /** Lifetime of access tokens in seconds; default 3600. */
  tokenTtlSeconds?: number;
  /** When set, every /__control call except health needs `Authorization: Bearer <controlToken>`. */
  controlToken?: string;
  /** OAuth clients (tenants); the first is the default one. Default: sandbox-client / sandbox-secret, every scope. */
  clients?: ClientCreate[];
  /** Validate every response against the OpenAPI document (a 500 problem when one does not match). For tests. */
  validateResponses?: boolean;
  /** Entries the request journal keeps (a ring buffer); default 1000. */
  journalSize?: number;
  /** pino level of the one-line-per-request log: the library defaults to `silent`, the CLI to `info`. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * `Host` names answered besides localhost names, IP literals, single-label names and the `baseUrl` host:
   * `fake.example.com`, `.example.com` (the domain and its subdomains), `*` (any host: no DNS-rebinding guard).
   */
  allowedHosts?: string[];
  /** Tenants (OAuth clients) an instance holds at most; default 1,000. */
  maxTenants?: number;
  /** Accounts + wallets + payment method details + orders a tenant can grow to; default 100,000. */
  maxRecordsPerTenant?: number;
}

export const DEFAULTS = {
  port: 8080,
  seed: 1,
  tokenTtlSeconds: 3600,
  clients: [DEFAULT_CLIENT],
  maxTenants: 1_000,
  maxRecordsPerTenant: 100_000,
} as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

class ConfigError extends Error {
  override name = 'ConfigError';
}

function integer(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${value}".`);
  return n;
}

function url(name: string, value: string): string {
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${value}".`);
  }
}

function clientsJson(value: string): ClientCreate[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError('CLIENTS must be JSON: [{"client_id": "...", "client_secret": "...", "scopes"?: [...], "settings"?: {...}}].');
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  for (const c of list) {
    if (typeof c?.client_id !== 'string' || typeof c?.client_secret !== 'string' || !c.client_id || !c.client_secret) {
      throw new ConfigError('Every client in CLIENTS needs a non-empty "client_id" and "client_secret".');
    }
  }
  if (list.length === 0) throw new ConfigError('CLIENTS must name at least one client.');
  return list as ClientCreate[];
}

export const USAGE = `investment-api-fake: an in-memory fake of the investment platform API

Usage: investment-api-fake [options]

  --port <n>          port to listen on (PORT, default 8080)
  --host <addr>       interface to listen on (HOST, default all)
  --base-url <url>    public base URL (BASE_URL, default: from each request's Host)
  --docs-url <url>    base of document links (DOCS_URL, default <base_url>/files)
  --seed <n>          seed of the generated fixtures (SEED, default 1)
  --fixtures <file>   JSON world replacing the generated one (FIXTURES)
  --fixture-accounts <n>  accounts of the generated world (FIXTURE_ACCOUNTS, default 10)
  --fixture-orders <n>    orders of the generated world (FIXTURE_ORDERS, default 30)
  --token-ttl <s>     access token lifetime in seconds (TOKEN_TTL_SECONDS, default 3600)
  --control-token <t> guard /__control with a bearer token (CONTROL_TOKEN)
  --clients <json>    OAuth clients (CLIENTS), default sandbox-client / sandbox-secret
  --journal-size <n>  entries the request journal keeps (JOURNAL_SIZE, default 1000)
  --log-level <l>     silent, error, warn, info, debug (LOG_LEVEL, default info)
  -h, --help          this text

Environment only:
  ALLOWED_HOSTS            more Host names to answer, comma-separated (".example.com": domain and subdomains; "*": any)
  MAX_TENANTS              OAuth clients (tenants) at most (default 1000)
  MAX_RECORDS_PER_TENANT   accounts+wallets+payment methods+orders per tenant at most (default 100000)
`;

/** The settings read from the environment only: Host names and memory caps. */
function guardsFromEnv(env: NodeJS.ProcessEnv): Pick<FakeOptions, 'allowedHosts' | 'maxTenants' | 'maxRecordsPerTenant'> {
  const hosts = env.ALLOWED_HOSTS?.split(',').map((h) => h.trim()).filter(Boolean);
  return {
    ...(hosts?.length && { allowedHosts: hosts }),
    ...(env.MAX_TENANTS && { maxTenants: integer('MAX_TENANTS', env.MAX_TENANTS, 1) }),
    ...(env.MAX_RECORDS_PER_TENANT && { maxRecordsPerTenant: integer('MAX_RECORDS_PER_TENANT', env.MAX_RECORDS_PER_TENANT, 1) }),
  };
}

/** CLI flags win over environment variables; both fall back to the defaults of CONTRACT §1. */
export function optionsFromCli(argv: readonly string[], env: NodeJS.ProcessEnv): FakeOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'base-url': { type: 'string' },
      'docs-url': { type: 'string' },
      seed: { type: 'string' },
      fixtures: { type: 'string' },
      'fixture-accounts': { type: 'string' },
      'fixture-orders': { type: 'string' },
      'token-ttl': { type: 'string' },
      'control-token': { type: 'string' },
      clients: { type: 'string' },
      'journal-size': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const pick = (flag: string | undefined, name: string): string | undefined => flag ?? (env[name] || undefined);
  const port = pick(values.port, 'PORT');
  const host = pick(values.host, 'HOST');
  const baseUrl = pick(values['base-url'], 'BASE_URL');
  const docsUrl = pick(values['docs-url'], 'DOCS_URL');
  const seed = pick(values.seed, 'SEED');
  const fixtures = pick(values.fixtures, 'FIXTURES');
  const fixtureAccounts = pick(values['fixture-accounts'], 'FIXTURE_ACCOUNTS');
  const fixtureOrders = pick(values['fixture-orders'], 'FIXTURE_ORDERS');
  const ttl = pick(values['token-ttl'], 'TOKEN_TTL_SECONDS');
  const controlToken = pick(values['control-token'], 'CONTROL_TOKEN');
  const clients = pick(values.clients, 'CLIENTS');
  const journalSize = pick(values['journal-size'], 'JOURNAL_SIZE');
  const logLevel = pick(values['log-level'], 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel as never)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}".`);
  return {
    port: port === undefined ? DEFAULTS.port : integer('PORT', port, 0),
    ...(host && { host }),
    ...(baseUrl && { baseUrl: url('BASE_URL', baseUrl) }),
    ...(docsUrl && { docsUrl: url('DOCS_URL', docsUrl) }),
    ...(seed !== undefined && { seed: integer('SEED', seed, 0) }),
    ...(fixtures && { fixtures }),
    ...((fixtureAccounts !== undefined || fixtureOrders !== undefined) && {
      fixtureScale: {
        ...(fixtureAccounts !== undefined && { accounts: integer('FIXTURE_ACCOUNTS', fixtureAccounts, 1) }),
        ...(fixtureOrders !== undefined && { orders: integer('FIXTURE_ORDERS', fixtureOrders, 0) }),
      },
    }),
    ...(ttl !== undefined && { tokenTtlSeconds: integer('TOKEN_TTL_SECONDS', ttl, 1) }),
    ...(controlToken && { controlToken }),
    ...(clients && { clients: clientsJson(clients) }),
    ...(journalSize !== undefined && { journalSize: integer('JOURNAL_SIZE', journalSize, 1) }),
    logLevel: logLevel as FakeOptions['logLevel'],
    ...guardsFromEnv(env),
  };
}

export function readFixturesFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`FIXTURES file "${path}" cannot be read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`FIXTURES file "${path}" is not JSON: ${(error as Error).message}`);
  }
}

export { ConfigError };
