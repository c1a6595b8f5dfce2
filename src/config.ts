import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_CLIENT, type ClientCreate } from './domain/clients.js';
import type { World } from './api/types.js';
import type { AnswerMismatch } from './api/document.js';
import { BUDGET_MINIMUMS } from './domain/budgets.js';

/** Everything a server instance can be told (CONTRACT §1). The library, the CLI and createApp share it. */
export interface FakeOptions {
  /** TCP port; 0 (the library's default) picks a free one. The CLI defaults to 8080. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1 (the Docker image sets `0.0.0.0`). */
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
  /**
   * Check every answer against the OpenAPI document once it is sent (for tests): the answer itself is unchanged; a
   * mismatch is logged at `error`, or handed to the function given here (a test suite fails on it).
   */
  validateResponses?: boolean | ((mismatch: AnswerMismatch) => void);
  /** Entries each tenant's request journal keeps (a ring buffer); default 1000. */
  journalSize?: number;
  /** Bytes each tenant's request journal keeps at most (the oldest entries go); default 16 MiB. */
  journalBytes?: number;
  /** Bytes every tenant's journal together keeps at most (the journal that holds the most gives its oldest first); default 15% of the heap limit. */
  journalTotalBytes?: number;
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
  /**
   * Bytes of every tenant's records together as JSON (each order with room for the rest of its lifecycle); default: a
   * tenth of the heap limit (the worlds reckoned at 3 bytes of heap a byte counted: 30% of it), whatever the number of
   * tenants. Each tenant is guaranteed `tenantGuaranteeBytes` of it and may borrow room no other tenant's guarantee
   * holds, up to `maxTenantBytes`.
   */
  worldBytes?: number;
  /**
   * What each tenant is guaranteed of `worldBytes` (at least the fixtures' bytes): its writes within it are never
   * refused for another tenant's growth, and a new tenant whose guarantee cannot be held is refused; default
   * `worldBytes / maxTenants` (in shadow mode `worldBytes / (maxTenants + maxTwins)`: twins take none of the operator's slots).
   */
  tenantGuaranteeBytes?: number;
  /** Bytes one tenant's records can grow to as JSON, borrowing included; default `worldBytes` (no cap below it). */
  maxTenantBytes?: number;
  /**
   * A folder where every tenant (client, settings, world, clock, faults) is written within a second of a change and
   * at `stop()`, and read back on start, with the signing key (PKCS#8, mode 0600), so tokens survive a restart.
   * Default: none, and nothing touches the disk.
   */
  stateDir?: string;
  /** A PEM RSA private key to sign tokens with (one key for several replicas); its JWKS kid is its RFC 7638 thumbprint. */
  signingKeyFile?: string;
  /**
   * Behind a proxy that terminates TLS: take each request's scheme from `X-Forwarded-Proto`, so token `iss`, links and
   * the console's own origin say `https://`. Default false (the header is ignored: a client could send it).
   */
  trustProxy?: boolean;
  /**
   * How long an idle keep-alive connection is kept, in ms; default 65,000: above the 60 s idle timeout of common load
   * balancers and above every common client's idle socket timeout, so a client never reuses a socket the fake is
   * closing. `headersTimeout` is a second above it, `requestTimeout` at least 120 s (src/server.ts).
   */
  keepAliveTimeoutMs?: number;
  /**
   * A live demo sandbox: the default (first) client's orders move on its clock (`order_progression` `clock`) and end
   * investors place 120 orders an hour (about one every 30 s, the first within 20 s) (`investor_activity_per_hour`), unless its own settings say otherwise. Default
   * false: a test suite keeps exact answers.
   */
  demo?: boolean;
  /**
   * Under `demo`: a simulated partner, client `demo-partner` with its own tenant, runs a partner's session against
   * this fake over HTTP every few seconds (a kept token, accounts and wallets, orders polled with backoff and some
   * cancelled, now and then a mistake the readiness report names), so the console's Overview, Requests and Readiness
   * show a partner at once. Default true under `demo` (not in shadow mode, where the API is the upstream's); `false`
   * leaves it out.
   */
  demoPartner?: boolean;
  /** How often the demo partner runs one round of its session, in ms; default 4,000 (a test runs it faster). */
  demoPartnerIntervalMs?: number;
  /**
   * Shadow mode: the base URL of a deployment of this interface (the platform's real sandbox, another fake). Each
   * `POST /oauth2/token` and `/v1` request is forwarded there and answered with its answer; the fake compares it
   * with its own twin tenant's answer (`GET /__control/fidelity`). Default: none (the fake answers itself).
   */
  upstream?: string;
  /** Shadow mode: how long the upstream has to answer an exchange, in ms, before the client gets 502 `upstream_unreachable`; default 10,000. */
  upstreamTimeoutMs?: number;
  /**
   * Shadow mode: twin tenants (one per client the upstream granted a token) held at most, apart from `maxTenants`;
   * default 100. A client past it is still forwarded and answered, its exchanges reported not comparable.
   */
  maxTwins?: number;
}

export const DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  seed: 1,
  tokenTtlSeconds: 3600,
  clients: [DEFAULT_CLIENT],
  maxTenants: 1_000,
  maxRecordsPerTenant: 100_000,
  keepAliveTimeoutMs: 65_000,
  upstreamTimeoutMs: 10_000,
  maxTwins: 100,
} as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

class ConfigError extends Error {
  override name = 'ConfigError';
}

function integer(name: string, value: string, min: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < min)
    throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${value}".`);
  return n;
}

function url(name: string, value: string): string {
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${value}".`);
  }
}

/** An upstream's base URL: http(s) only, no credentials in it (they would be stored and shown), no query or fragment. */
export function upstreamUrl(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${value}".`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${value}".`);
  if (parsed.username !== '' || parsed.password !== '')
    throw new ConfigError(`${name} must not carry credentials (user:password@): the fake would store and show them.`);
  if (parsed.search !== '' || parsed.hash !== '')
    throw new ConfigError(`${name} must be a base URL without a query or fragment, got "${value}".`);
  return parsed.toString().replace(/\/$/, '');
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}".`);
  return value as T;
}

/** A switch: `on`/`off` and the words `boolean` takes. */
function onOff(name: string, value: string): boolean {
  if (/^on$/i.test(value)) return true;
  if (/^off$/i.test(value)) return false;
  try {
    return boolean(name, value);
  } catch {
    throw new ConfigError(`${name} must be on or off, got "${value}".`);
  }
}

function boolean(name: string, value: string): boolean {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${value}".`);
}

/**
 * CLIENTS read as a list of clients that each have an id and a secret (to be named, and greeted with); the rest of
 * each client (method, scopes, settings) is the document's to check, when the instance is made (src/context.ts).
 */
function clientsJson(name: string, value: string): ClientCreate[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(
      `${name} must be JSON: [{"client_id": "...", "client_secret": "...", "scopes"?: [...], "settings"?: {...}}].`,
    );
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  for (const c of list) {
    if (typeof c?.client_id !== 'string' || typeof c?.client_secret !== 'string' || !c.client_id || !c.client_secret) {
      throw new ConfigError(`Every client in ${name} needs a non-empty "client_id" and "client_secret".`);
    }
  }
  if (list.length === 0) throw new ConfigError(`${name} must name at least one client.`);
  return list as ClientCreate[];
}

/** What the CLI runs with: the library's options plus how it logs. */
export interface CliOptions extends FakeOptions {
  port: number;
  host: string;
  /** `pretty` (one readable line per request, the default on a terminal) or `json` (pino lines, the default otherwise). */
  logFormat: LogFormat;
}

/**
 * Every setting of the CLI, once: its flag, its environment variable, its help line and how its text is read. A
 * flag wins over the variable; an error names whichever of the two the bad value came from. docs/configuration.md's
 * table lists every `env` here (a test checks).
 */
const SETTINGS = [
  {
    flag: 'port',
    env: 'PORT',
    arg: '<n>',
    help: 'port to listen on (default 8080)',
    read: (n: string, v: string) => ({ port: integer(n, v, 0) }),
  },
  {
    flag: 'host',
    env: 'HOST',
    arg: '<addr>',
    help: 'interface to listen on (default 127.0.0.1; 0.0.0.0 for all)',
    read: (_n: string, v: string) => ({ host: v }),
  },
  {
    flag: 'base-url',
    env: 'BASE_URL',
    arg: '<url>',
    help: "public base URL (default: from each request's Host)",
    read: (n: string, v: string) => ({ baseUrl: url(n, v) }),
  },
  {
    flag: 'docs-url',
    env: 'DOCS_URL',
    arg: '<url>',
    help: 'base of document links (default <base_url>/files)',
    read: (n: string, v: string) => ({ docsUrl: url(n, v) }),
  },
  {
    flag: 'seed',
    env: 'SEED',
    arg: '<n>',
    help: 'seed of the generated world (default 1)',
    read: (n: string, v: string) => ({ seed: integer(n, v, 0) }),
  },
  {
    flag: 'fixtures',
    env: 'FIXTURES',
    arg: '<file>',
    help: 'JSON world replacing the generated one',
    read: (_n: string, v: string) => ({ fixtures: v }),
  },
  {
    flag: 'fixture-accounts',
    env: 'FIXTURE_ACCOUNTS',
    arg: '<n>',
    help: 'accounts of the generated world (default 10)',
    read: (n: string, v: string) => ({ fixtureAccounts: integer(n, v, 1) }),
  },
  {
    flag: 'fixture-orders',
    env: 'FIXTURE_ORDERS',
    arg: '<n>',
    help: 'orders of the generated world (default 30)',
    read: (n: string, v: string) => ({ fixtureOrders: integer(n, v, 0) }),
  },
  {
    flag: 'token-ttl',
    env: 'TOKEN_TTL_SECONDS',
    arg: '<s>',
    help: 'access token lifetime in seconds (default 3600)',
    read: (n: string, v: string) => ({ tokenTtlSeconds: integer(n, v, 1) }),
  },
  {
    flag: 'control-token',
    env: 'CONTROL_TOKEN',
    arg: '<t>',
    help: 'guard /__control with this bearer token (default: open)',
    read: (_n: string, v: string) => ({ controlToken: v }),
  },
  {
    flag: 'clients',
    env: 'CLIENTS',
    arg: '<json>',
    help: 'OAuth clients (default sandbox-client / sandbox-secret)',
    read: (n: string, v: string) => ({ clients: clientsJson(n, v) }),
  },
  {
    flag: 'journal-size',
    env: 'JOURNAL_SIZE',
    arg: '<n>',
    help: "entries each tenant's request journal keeps (default 1000)",
    read: (n: string, v: string) => ({ journalSize: integer(n, v, 1) }),
  },
  {
    flag: 'journal-bytes',
    env: 'JOURNAL_BYTES',
    arg: '<bytes>',
    help: "bytes each tenant's request journal keeps, the oldest entries out first (default 16 MiB)",
    read: (n: string, v: string) => ({ journalBytes: integer(n, v, BUDGET_MINIMUMS.journalBytes) }),
  },
  {
    flag: 'journal-total-bytes',
    env: 'JOURNAL_TOTAL_BYTES',
    arg: '<bytes>',
    help: 'bytes every journal together keeps, the largest journal giving its oldest first (default: 15% of the heap limit)',
    read: (n: string, v: string) => ({ journalTotalBytes: integer(n, v, BUDGET_MINIMUMS.journalTotalBytes) }),
  },
  {
    flag: 'log-level',
    env: 'LOG_LEVEL',
    arg: '<l>',
    help: `${LOG_LEVELS.join(', ')} (default info)`,
    read: (n: string, v: string) => ({ logLevel: oneOf(n, v, LOG_LEVELS) }),
  },
  {
    flag: 'allowed-hosts',
    env: 'ALLOWED_HOSTS',
    arg: '<list>',
    help: 'more Host names to answer, comma-separated (".example.com": a domain and its subdomains; "*": any)',
    read: (_n: string, v: string) => ({
      allowedHosts: v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    }),
  },
  {
    flag: 'max-tenants',
    env: 'MAX_TENANTS',
    arg: '<n>',
    help: 'OAuth clients (tenants) at most (default 1000)',
    read: (n: string, v: string) => ({ maxTenants: integer(n, v, 1) }),
  },
  {
    flag: 'max-records-per-tenant',
    env: 'MAX_RECORDS_PER_TENANT',
    arg: '<n>',
    help: 'accounts+wallets+payment methods+orders per tenant at most (default 100000)',
    read: (n: string, v: string) => ({ maxRecordsPerTenant: integer(n, v, 1) }),
  },
  {
    flag: 'world-bytes',
    env: 'WORLD_BYTES',
    arg: '<bytes>',
    help: "bytes of every tenant's records together as JSON (default: a tenth of the heap limit)",
    read: (n: string, v: string) => ({ worldBytes: integer(n, v, BUDGET_MINIMUMS.worldBytes) }),
  },
  {
    flag: 'tenant-guarantee-bytes',
    env: 'TENANT_GUARANTEE_BYTES',
    arg: '<bytes>',
    help: 'what each tenant is guaranteed of WORLD_BYTES (default WORLD_BYTES / MAX_TENANTS)',
    read: (n: string, v: string) => ({ tenantGuaranteeBytes: integer(n, v, BUDGET_MINIMUMS.tenantGuaranteeBytes) }),
  },
  {
    flag: 'max-tenant-bytes',
    env: 'MAX_TENANT_BYTES',
    arg: '<bytes>',
    help: "bytes of one tenant's records as JSON at most, borrowing included (default: WORLD_BYTES)",
    read: (n: string, v: string) => ({ maxTenantBytes: integer(n, v, BUDGET_MINIMUMS.maxTenantBytes) }),
  },
  {
    flag: 'state-dir',
    env: 'STATE_DIR',
    arg: '<dir>',
    help: 'keep every tenant and the signing key in this folder across restarts (default: memory only)',
    read: (_n: string, v: string) => ({ stateDir: v }),
  },
  {
    flag: 'signing-key-file',
    env: 'SIGNING_KEY_FILE',
    arg: '<pem>',
    help: 'RSA private key (PEM) signing tokens: one key for several replicas',
    read: (_n: string, v: string) => ({ signingKeyFile: v }),
  },
  {
    flag: 'trust-proxy',
    env: 'TRUST_PROXY',
    arg: '<bool>',
    help: 'take the scheme from X-Forwarded-Proto (behind a TLS-terminating proxy; default false)',
    read: (n: string, v: string) => ({ trustProxy: boolean(n, v) }),
  },
  {
    flag: 'keep-alive-timeout',
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    arg: '<ms>',
    help: 'how long idle keep-alive connections are kept, in ms (default 65000)',
    read: (n: string, v: string) => ({ keepAliveTimeoutMs: integer(n, v, 1) }),
  },
  {
    flag: 'demo',
    env: 'DEMO',
    arg: '',
    help: "a live sandbox: the default client's orders move on its clock, an investor order about every 30 s (DEMO=1)",
    read: (n: string, v: string) => ({ demo: boolean(n, v) }),
  },
  {
    flag: 'demo-partner',
    env: 'DEMO_PARTNER',
    arg: '<on|off>',
    help: 'under --demo, client demo-partner calls the API every few seconds, as a partner would (default on; off leaves it out)',
    read: (n: string, v: string) => ({ demoPartner: onOff(n, v) }),
  },
  {
    flag: 'upstream',
    env: 'UPSTREAM_URL',
    arg: '<url>',
    help: 'shadow mode: forward /oauth2/token and /v1 there and compare with the fake (GET /__control/fidelity)',
    read: (n: string, v: string) => ({ upstream: upstreamUrl(n, v) }),
  },
  {
    flag: 'max-twins',
    env: 'MAX_TWINS',
    arg: '<n>',
    help: "shadow mode: twin tenants at most, apart from MAX_TENANTS (default 100); past it a client's exchanges are forwarded, not compared",
    read: (n: string, v: string) => ({ maxTwins: integer(n, v, 0) }),
  },
  {
    flag: 'upstream-timeout',
    env: 'UPSTREAM_TIMEOUT_MS',
    arg: '<ms>',
    help: 'shadow mode: how long the upstream may take to answer, in ms (default 10000)',
    read: (n: string, v: string) => ({ upstreamTimeoutMs: integer(n, v, 1) }),
  },
  {
    flag: 'log-format',
    env: 'LOG_FORMAT',
    arg: '<f>',
    help: 'pretty or json (default: pretty on a terminal, else json)',
    read: (n: string, v: string) => ({ logFormat: oneOf(n, v, LOG_FORMATS) }),
  },
] as const;

/** The environment variables the CLI reads. */
export const ENVIRONMENT_VARIABLES: readonly string[] = SETTINGS.map((s) => s.env);

const flagOf = (s: (typeof SETTINGS)[number]) => (s.arg === '' ? `--${s.flag}` : `--${s.flag} ${s.arg}`);
const column = Math.max(...SETTINGS.map((s) => flagOf(s).length)) + 2;
export const USAGE = `investment-api-fake: an in-memory fake of the investment platform API

Usage: investment-api-fake [options]
       investment-api-fake mcp [--url <base URL>]   the control plane as an MCP server over stdio (mcp --help)

Every option can also be set by its environment variable; a flag wins over the variable.

${SETTINGS.map((s) => `  ${flagOf(s).padEnd(column)}${s.env}: ${s.help}`).join('\n')}
  ${'-h, --help'.padEnd(column)}this text
  ${'-v, --version'.padEnd(column)}the version
`;

type Parsed = Partial<Omit<CliOptions, 'fixtureScale'>> & { fixtureAccounts?: number; fixtureOrders?: number };

/**
 * CLI flags win over environment variables; both fall back to the defaults of CONTRACT §1. `stdoutIsTerminal`
 * picks the default log format.
 */
export function optionsFromCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  stdoutIsTerminal = false,
): CliOptions | 'help' | 'version' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        // a setting without an argument is a switch: `--demo`
        ...Object.fromEntries(
          SETTINGS.map((s) => [s.flag, { type: s.arg === '' ? ('boolean' as const) : ('string' as const) }]),
        ),
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (error) {
    // parseArgs says "Option '--port <value>' argument missing" and the like: clear, but not ours to throw.
    throw new ConfigError((error as Error).message);
  }
  if (values.help) return 'help';
  if (values.version) return 'version';
  let parsed: Parsed = {};
  for (const setting of SETTINGS) {
    const flag = values[setting.flag];
    const fromEnv = env[setting.env];
    if (typeof flag === 'string' || flag === true)
      parsed = { ...parsed, ...setting.read(`--${setting.flag}`, String(flag)) };
    else if (fromEnv) parsed = { ...parsed, ...setting.read(setting.env, fromEnv) };
  }
  const { fixtureAccounts, fixtureOrders, ...rest } = parsed;
  return {
    ...rest,
    port: rest.port ?? DEFAULTS.port,
    host: rest.host ?? DEFAULTS.host,
    ...((fixtureAccounts !== undefined || fixtureOrders !== undefined) && {
      fixtureScale: {
        ...(fixtureAccounts !== undefined && { accounts: fixtureAccounts }),
        ...(fixtureOrders !== undefined && { orders: fixtureOrders }),
      },
    }),
    logLevel: rest.logLevel ?? 'info',
    logFormat: rest.logFormat ?? (stdoutIsTerminal ? 'pretty' : 'json'),
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

/** A configured client that the document's schema refuses: the CLI exits 2 on it, as on any bad setting. */
class InvalidClientError extends ConfigError {
  override name = 'InvalidClientError';
}

/** Settings whose worlds do not fit their budgets (src/context.ts): the CLI exits 2 on them, as on any bad setting. */
class StartRefused extends ConfigError {
  override name = 'StartRefused';
}

export { ConfigError, InvalidClientError, StartRefused };
