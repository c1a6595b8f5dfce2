import { randomBytes } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import { DEFAULTS, InvalidClientError, readFixturesFile, StartRefused, type FakeOptions } from './config.js';
import { DomainError } from './api/errors.js';
import { LinkSigner } from './domain/documents.js';
import { SigningKeys, VerifiedTokens } from './auth/jwt.js';
import { derivedSecret } from './auth/key-file.js';
import {
  compileDocumentValidator,
  compileWorldValidator,
  loadApiDocument,
  type LoadedDocument,
} from './api/document.js';
import type { Schemas, World } from './api/types.js';
import type { RsaKeyPair } from './auth/key-pair.js';
import { createLogger, type Logger } from './logger.js';
import { DEFAULT_JOURNAL_SIZE, Journal } from './records/journal.js';
import { answersWithSecrets } from './records/secret-answers.js';
import { Fixtures, TenantRegistry, type ClientRecord, type Tenant } from './domain/tenants.js';
import { CLIENT_RECORD_SCHEMA, toClientRecord, withDemoSettings, type ClientCreate } from './domain/clients.js';
import { checkWorld } from './domain/world.js';
import { budgetWarning, resolveBudgets, type Budgets } from './domain/budgets.js';
import { generatedWorld } from '../fixtures/world-source.js';

/**
 * Shadow mode (`--upstream`) as the instance holds it: what `stop()` closes. Its report and the rest are shadow
 * mode's own (`shadowModeOf`, src/shadow/shadow-mode.ts), above the instance.
 */
export interface ShadowModeState {
  close(): Promise<void>;
}

/** STATE_DIR's writer as the instance uses it (the persistence satellite's, src/persistence/state-writer.ts). */
interface StateKeeper {
  /** Whether its writes are on disk (the health check's `persistence`). */
  readonly health: NonNullable<Schemas['Health']['persistence']>;
  /** Removes a tenant's file, then the tenant (`removed`). */
  remove(tenant: Tenant, removed: () => void): Promise<void>;
  /** Writes what is left and gives the directory back; rejects when something could not be written. */
  close(): Promise<void>;
}

/** What STATE_DIR (or SIGNING_KEY_FILE) kept, as the start uses it: the persistence satellite reads it. */
interface KeptState {
  signingKey?: RsaKeyPair;
  /** The clients to start with: the configured ones first, then every other one kept. */
  clients(configured: readonly ClientRecord[]): ClientRecord[];
  /** Each kept tenant's world, by client id. */
  worlds: Map<string, World>;
  /** Puts back what worlds do not hold (clocks, faults, progression), once the registry is made. */
  restore(tenants: TenantRegistry): void;
  /** Starts writing the registry's changes; none without STATE_DIR. */
  write(
    tenants: TenantRegistry,
    events: { onError(error: unknown, file: string): void; onRecovered(): void },
  ): StateKeeper | undefined;
  /** Gives STATE_DIR back: a start that fails after it was opened. */
  release(): void;
}

/** Opens STATE_DIR and SIGNING_KEY_FILE (`persistence/keeping.ts`): given to `createContext` by the product. */
export type OpenState = (options: FakeOptions, document: LoadedDocument['document']) => KeptState;

/** Everything one server instance owns, so instances never share state (only immutable, compiled things are per process). */
export interface FakeContext {
  options: FakeOptions & { tokenTtlSeconds: number };
  api: LoadedDocument;
  tenants: TenantRegistry;
  keys: SigningKeys;
  /** The tokens whose signature this instance has verified: one cache for every step that reads a bearer token. */
  tokens: VerifiedTokens;
  linkSigner: LinkSigner;
  journal: Journal;
  /** The memory budgets, every one filled in (docs/configuration.md), and the heap limit their defaults were drawn from. */
  budgets: Budgets & { heapLimit: number };
  /** What the start found worth a warning (settings whose budgets pass half of the heap limit): logged once listening. */
  startWarnings: string[];
  logger: Logger;
  /** With STATE_DIR: writes the tenants a call reached, off the request path. */
  stateWriter?: StateKeeper;
  /** In shadow mode only. */
  shadow?: ShadowModeState;
}

/**
 * Everything one instance owns, built from its options and, with STATE_DIR or SIGNING_KEY_FILE, from what
 * `openState` (the persistence satellite) kept: without it, those settings stop the start. STATE_DIR is given back if
 * the start fails after it was opened.
 */
export function createContext(options: FakeOptions = {}, openState?: OpenState): FakeContext {
  const api = loadApiDocument();
  if (!openState) {
    const setting =
      options.stateDir !== undefined ? 'STATE_DIR' : options.signingKeyFile !== undefined && 'SIGNING_KEY_FILE';
    if (setting)
      throw new StartRefused(`${setting} needs the persistence satellite, which this build does not attach.`);
    return contextOf(options, api);
  }
  const kept = openState(options, api.document);
  try {
    return contextOf(options, api, kept);
  } catch (error) {
    kept.release();
    throw error;
  }
}

function contextOf(options: FakeOptions, api: LoadedDocument, kept?: KeptState): FakeContext {
  const seed = options.seed ?? DEFAULTS.seed;
  const fixtures = new Fixtures(
    loadFixtures(options, api),
    seed,
    options.fixtures === undefined
      ? { kind: 'generated', seed, ...(options.fixtureScale && { scale: options.fixtureScale }) }
      : { kind: 'own' },
  );
  const keptKey = kept?.signingKey;
  const heapLimit = getHeapStatistics().heap_size_limit;
  const budgets = resolveBudgets(
    {
      maxTenants: options.maxTenants ?? DEFAULTS.maxTenants,
      maxRecordsPerTenant: options.maxRecordsPerTenant ?? DEFAULTS.maxRecordsPerTenant,
      journalSize: options.journalSize ?? DEFAULT_JOURNAL_SIZE,
      ...(options.upstream !== undefined && { twinSlots: options.maxTwins ?? DEFAULTS.maxTwins }),
      ...(options.worldBytes !== undefined && { worldBytes: options.worldBytes }),
      ...(options.tenantGuaranteeBytes !== undefined && { tenantGuaranteeBytes: options.tenantGuaranteeBytes }),
      ...(options.maxTenantBytes !== undefined && { maxTenantBytes: options.maxTenantBytes }),
      ...(options.journalBytes !== undefined && { journalBytes: options.journalBytes }),
      ...(options.journalTotalBytes !== undefined && { journalTotalBytes: options.journalTotalBytes }),
    },
    heapLimit,
  );
  const configured = configuredClients(options, api).map(toClientRecord);
  const tenants = startingTenants(options, () => {
    const { maxTenants, maxRecordsPerTenant, worldBytes, tenantGuaranteeBytes, maxTenantBytes } = budgets;
    return new TenantRegistry(
      fixtures,
      kept ? kept.clients(configured) : configured,
      {
        maxTenants,
        maxRecordsPerTenant,
        world: { worldBytes, tenantGuaranteeBytes, maxTenantBytes },
        maxTwins: options.maxTwins ?? DEFAULTS.maxTwins,
      },
      kept?.worlds,
    );
  });
  kept?.restore(tenants);
  const warning = budgetWarning(budgets, fixtures.bytes, heapLimit);
  // Quiet unless asked: the library runs inside partners' test output.
  const logger = createLogger(options.logLevel ?? 'silent', { base: { service: 'investment-api-fake' } });
  const keys = new SigningKeys(keptKey);
  const ctx: FakeContext = {
    options: { ...options, tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULTS.tokenTtlSeconds },
    api,
    tenants,
    keys,
    tokens: new VerifiedTokens(keys),
    linkSigner: new LinkSigner(
      keptKey ? derivedSecret(keptKey, 'investment-api-fake document links') : randomBytes(32),
    ),
    journal: new Journal(budgets.journalSize, answersWithSecrets(api.document), {
      bytesPerTenant: budgets.journalBytes,
      totalBytes: budgets.journalTotalBytes,
    }),
    budgets: { ...budgets, heapLimit },
    startWarnings: warning === undefined ? [] : [warning],
    logger,
  };
  const writer = kept?.write(tenants, {
    onError: (err, file) =>
      ctx.logger.error(
        { err, file },
        'could not write to STATE_DIR: writes answer 503 state_not_saved until it takes them again',
      ),
    onRecovered: () => ctx.logger.info('STATE_DIR takes writes again'),
  });
  if (writer) ctx.stateWriter = writer;
  return ctx;
}

/**
 * The tenants a start makes (CLIENTS, with the worlds STATE_DIR restores): a world the fake is told to build that does
 * not fit its budgets stops the start, naming the settings (docs/configuration.md): never started, then refused every write.
 */
function startingTenants(options: FakeOptions, make: () => TenantRegistry): TenantRegistry {
  try {
    return make();
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'limit_reached')) throw error;
    const restored = options.stateDir === undefined ? '' : `, or worlds STATE_DIR (${options.stateDir}) restores`;
    throw new StartRefused(
      `The worlds it is told to build do not fit its budgets: ${fixturesNamed(options)} for each client (CLIENTS)${restored}. ${error.detail}`,
    );
  }
}

/** How the fixtures were asked for, by the settings that ask. */
function fixturesNamed(options: FakeOptions): string {
  if (typeof options.fixtures === 'string') return `the world of FIXTURES (${options.fixtures})`;
  if (options.fixtures !== undefined) return 'the world of the library option fixtures';
  const { accounts, orders } = options.fixtureScale ?? {};
  if (accounts === undefined && orders === undefined) return 'the seeded default world';
  const scale = [
    accounts !== undefined && `FIXTURE_ACCOUNTS=${accounts}`,
    orders !== undefined && `FIXTURE_ORDERS=${orders}`,
  ]
    .filter(Boolean)
    .join(', ');
  return `the generated world of ${scale} (library option fixtureScale)`;
}

function loadFixtures(options: FakeOptions, api: LoadedDocument): World {
  if (options.fixtures === undefined) {
    return generatedWorld({
      seed: options.seed ?? DEFAULTS.seed,
      ...(options.fixtureScale && { scale: options.fixtureScale }),
    });
  }
  const source = typeof options.fixtures === 'string' ? readFixturesFile(options.fixtures) : options.fixtures;
  const errors = compileWorldValidator(api.document)(source);
  if (errors.length === 0) errors.push(...checkWorld(source as World));
  if (errors.length > 0) {
    const list = errors
      .slice(0, 20)
      .map((e) => `  ${e.path}: ${e.message}`)
      .join('\n');
    throw new Error(`The fixtures are not a valid world (${errors.length} problem(s)):\n${list}`);
  }
  return source as World;
}

/**
 * The clients a server starts with (the library's, or CLIENTS as config.ts parsed it), their method, scopes and
 * settings checked by the document as the control plane checks them: a bad one stops the start, named.
 */
function checkClients(clients: readonly ClientCreate[], api: LoadedDocument): readonly ClientCreate[] {
  // the library accepts any client id (CLIENTS and the control plane keep to URL-safe ones)
  const validate = compileDocumentValidator(api.document, CLIENT_RECORD_SCHEMA);
  for (const client of clients) {
    const errors = validate(client);
    if (errors.length > 0) {
      const list = errors
        .slice(0, 20)
        .map((e) => `  ${e.path}: ${e.message}`)
        .join('\n');
      throw new InvalidClientError(
        `The client "${String(client.client_id)}" is not valid (${errors.length} problem(s)):\n${list}`,
      );
    }
  }
  return clients;
}

function configuredClients(options: FakeOptions, api: LoadedDocument): readonly ClientCreate[] {
  const clients = options.clients ? checkClients(options.clients, api) : DEFAULTS.clients;
  return options.demo ? withDemoSettings(clients) : clients;
}

/** What the start found worth a warning, through the instance's logger (the CLI's once it has replaced it). */
export function logStartWarnings(ctx: FakeContext): void {
  for (const warning of ctx.startWarnings) ctx.logger.warn(warning);
}
