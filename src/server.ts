import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { prepareRsaKeyPair } from './auth/key-pair.js';
import { loadValidatorLibrary } from './http/validator.js';
import { answerClientError } from './http/client-error.js';
import { DEFAULTS, StartRefused, type FakeOptions } from './config.js';
import { logStartWarnings, type FakeContext } from './context.js';
import {
  createControlClient,
  fetchToken,
  VerificationError,
  type ControlClient,
  type RequestCount,
  type RequestPattern,
} from './control-client.js';
import { exportTenantRequests, tenantReadinessReport, verifyTenantRequests } from './control/proof.js';
import type { JournalSpan } from './records/journal.js';
import { resetTenants } from './domain/clients.js';
import { controlOrder } from './domain/order-actions.js';
import { advanceOrderJournaled, placeOrderJournaled, setOrderStatusJournaled } from './control/commands.js';
import { drainable, type DrainableServer } from './drain.js';
import { createLogger } from './logger.js';
import { waitForStateDir } from './persistence/state-lock.js';
import { TokenKeeper } from './token-keeper.js';
import { closeStarted, productApp, productContext, startSatellites } from './satellites.js';
import type { Tenant } from './domain/tenants.js';
import type { ExportFormat, Schemas, World } from './api/types.js';

/** How `fake.token()` gets its token. */
export interface TokenOptions {
  /** Fetch a new token even when the kept one is still valid (a test of the client's own token handling). */
  fresh?: boolean;
}

/** A running fake: where it listens, how to stop it, and helpers that call the same domain functions as the API. */
export interface FakeServer {
  /** Base URL, such as `http://127.0.0.1:53211`. */
  readonly url: string;
  readonly port: number;
  /** The default client's id (`sandbox-client` unless `clients` says otherwise). */
  readonly clientId: string;
  /**
   * An access token for a client (default: the default client), fetched from the token endpoint like a partner
   * would, and kept: the same token is answered until it is within 60 s of expiry on the tenant's clock (or the
   * client's secret, scopes or method changed), so asking before every request never trips `token_per_call`.
   * `{ fresh: true }` always fetches a new one (and keeps it).
   */
  token(clientId?: string, options?: TokenOptions): Promise<string>;
  /** Puts one tenant, or every tenant, back to its fixtures (as `POST /__control/reset`). */
  reset(clientId?: string): void;
  /** One tenant's whole world (as `GET /__control/state`). */
  state(clientId?: string): World;
  /**
   * Places an order for a tenant, in this process and at once (`fake.control.placeOrder` does the same over HTTP,
   * also for a fake in a container): the same rules as `POST /__control/orders`; answers the order in `PLACED` with
   * every field of the cancel response. A broken rule throws a `DomainError` carrying `status` and `code`
   * (`not_found`, `asset_not_subscribeable`, `no_primary_wallet`…), and nothing changes.
   */
  placeOrderSync(input: Schemas['OrderPlacement'], clientId?: string): Schemas['OrderDetails'];
  /** An order as its tenant's clock has it now, with its `status_history` (as `GET /__control/orders/{id}`). */
  orderSync(orderId: string, clientId?: string): Schemas['ControlOrder'];
  /** Moves an order one lifecycle step, at once (as `POST /__control/orders/{id}/advance`); at the end, throws. */
  advanceOrderSync(orderId: string, clientId?: string): Schemas['OrderDetails'];
  /** Forces an order into any status with consistent fields, at once (as `POST /__control/orders/{id}/status`). */
  setOrderStatusSync(orderId: string, status: Schemas['OrderStatus'], clientId?: string): Schemas['OrderDetails'];
  /**
   * Asserts what a client sent, in this process and at once (as `POST /__control/verify`): answers the matching
   * requests when the count holds (default: at least one), else throws a `VerificationError` (an `AssertionError`)
   * whose message shows the near misses. It looks since the tenant's last reset, or at its whole journal with
   * `{ since: 'start' }`. `fake.control.verify` does the same over HTTP (for a fake in a container).
   */
  verify(
    pattern: RequestPattern,
    count?: RequestCount,
    clientIdOrOptions?: string | ProofOptions,
  ): Schemas['VerificationResult'];
  /**
   * A client's readiness report, in this process and at once (as `GET /__control/report`): over its whole journal,
   * across resets, or since its last reset with `{ since: 'reset' }`.
   */
  report(clientIdOrOptions?: string | ProofOptions): Schemas['ReadinessReport'];
  /**
   * A client's journal as HAR 1.2 (the default) or a `.http` file (as `GET /__control/export`): whole, or
   * `{ since: 'reset' }`; or `'pact'`, its span since the last reset as a Pact V4 contract (`{ consumer }`, default
   * the client id), which Pact's verifier checks against a fake through `POST /__control/pact/provider-states`;
   * or `'vitest'`, its session since its last reset as a runnable vitest file (docs/test-suites.md).
   */
  exportRequests(format?: ExportFormat, options?: ProofOptions & { consumer?: string }): string;
  /** Forgets a client's journal (as `DELETE /__control/requests`); every journal without a client. */
  clearRequests(clientId?: string): void;
  /**
   * The typed control plane over HTTP (`fake.control.addFault(...)`, `.requests()`, `.report()`…); with
   * `.forClient(id)` for another tenant. `createControlClient({ url })` gives the same for a fake in a container.
   */
  readonly control: ControlClient;
  /**
   * Stops accepting, closes idle keep-alive connections at once, answers the requests in flight (with
   * `Connection: close`), and resolves when every connection is closed (after 5 s at most) and, with `stateDir`,
   * every changed tenant is written; safe to call twice.
   */
  stop(): Promise<void>;
}

/** Which tenant a proof call reads (default: the default client) and which part of its journal. */
export interface ProofOptions {
  clientId?: string;
  /** `reset`: since the tenant's last reset (verify's default); `start`: the whole journal (the report's, exports'). */
  since?: JournalSpan;
}

const proofOptions = (given: string | ProofOptions | undefined): ProofOptions =>
  typeof given === 'string' ? { clientId: given } : (given ?? {});

/** How long stop() and SIGTERM let requests in flight finish before closing their connections. */
export const SHUTDOWN_GRACE_MS = 5000;

/** A second between the keep-alive timeout and the headers timeout, as Node's documentation advises. */
const HEADERS_AFTER_KEEP_ALIVE_MS = 1000;
/** A whole request (headers and at most 1 MiB of body) arrives within this, unless the headers timeout is longer. */
const REQUEST_TIMEOUT_MS = 120_000;

/**
 * The connection timeouts, set deliberately rather than left to Node's defaults (5 s keep-alive, which clients and
 * load balancers holding idle sockets longer meet as resets):
 *   - keepAliveTimeout: an idle keep-alive connection is kept this long (65 s: above a load balancer's 60 s idle
 *     timeout and every common client's idle socket timeout; the client closes first, never the fake);
 *   - headersTimeout: a request's headers must arrive within this, a second above the keep-alive timeout;
 *   - requestTimeout: the whole request within this (120 s; Node wants it no shorter than headersTimeout).
 */
export function connectionTimeouts(keepAliveTimeoutMs: number = DEFAULTS.keepAliveTimeoutMs): {
  keepAliveTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
} {
  const headersTimeout = keepAliveTimeoutMs + HEADERS_AFTER_KEEP_ALIVE_MS;
  return {
    keepAliveTimeout: keepAliveTimeoutMs,
    headersTimeout,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout),
  };
}

export async function listen(ctx: FakeContext, port: number, host: string | undefined): Promise<DrainableServer> {
  const server = drainable(createServer(productApp(ctx)));
  if (host === undefined) server.listen(port);
  else server.listen(port, host);
  Object.assign(server, connectionTimeouts(ctx.options.keepAliveTimeoutMs));
  server.on('clientError', answerClientError);
  try {
    await once(server, 'listening');
  } catch (error) {
    throw listenRefusal(error, port, host);
  }
  return server;
}

/**
 * A port the fake cannot have is a setting to change, said with its names (the CLI exits 2 on it, as on any bad
 * setting); any other failure to listen is as Node says it.
 */
function listenRefusal(error: unknown, port: number, host: string | undefined): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `port ${port}${host === undefined ? '' : ` of ${host}`}`;
  const choose = 'choose another with PORT or --port (the library: the `port` option; 0 picks a free one)';
  if (code === 'EADDRINUSE') return new StartRefused(`${where} is already in use by another process: ${choose}.`);
  if (code === 'EACCES') return new StartRefused(`${where} may not be listened on by this user: ${choose}.`);
  return error;
}

/** Starts an independent instance; by default on a free port of 127.0.0.1. */
export async function startServer(options: FakeOptions = {}): Promise<FakeServer> {
  // The key pair is made on the thread pool (started when the library loaded) while this thread loads the request
  // validator, builds the instance and listens: only the token endpoint and the JWKS wait for it (SigningKeys), as in
  // the CLI, so a first token request does its own work (validation, the token library's load) meanwhile. A STATE_DIR
  // without its key file keeps the process's pair at once, so there it is awaited first.
  const keyPair = prepareRsaKeyPair();
  loadValidatorLibrary();
  if (options.stateDir !== undefined && options.signingKeyFile === undefined) await keyPair;
  if (options.stateDir !== undefined)
    await waitForStateDir(options.stateDir, (line) => createLogger(options.logLevel ?? 'silent').warn(line));
  const ctx = productContext(options);
  logStartWarnings(ctx);
  const host = options.host ?? '127.0.0.1';
  let server: DrainableServer;
  try {
    server = await listen(ctx, options.port ?? 0, host);
  } catch (error) {
    // STATE_DIR's lock goes back, so that the same process may start again on another port
    await ctx.stateWriter?.close().catch(() => undefined);
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  // under `demo`, a partner's session against this server (src/demo/), unless `demoPartner: false`
  const started = startSatellites(ctx, server.address() as AddressInfo);
  const url = options.baseUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  // a call's work starts as a request's does: the registry hands the tenant out settled to its clock
  const settled = (clientId: string): Tenant => ctx.tenants.get(clientId);
  // the control plane's changes, journaled as its own are, for the replay of the tenant's session
  const placeOrderSync: FakeServer['placeOrderSync'] = (input, clientId = ctx.tenants.defaultClientId) =>
    placeOrderJournaled(ctx, settled(clientId), input);
  const orderSync: FakeServer['orderSync'] = (orderId, clientId = ctx.tenants.defaultClientId) =>
    controlOrder(settled(clientId), orderId);
  const advanceOrderSync: FakeServer['advanceOrderSync'] = (orderId, clientId = ctx.tenants.defaultClientId) =>
    advanceOrderJournaled(ctx, settled(clientId), orderId);
  const setOrderStatusSync: FakeServer['setOrderStatusSync'] = (
    orderId,
    status,
    clientId = ctx.tenants.defaultClientId,
  ) => setOrderStatusJournaled(ctx, settled(clientId), orderId, status);

  const tokens = new TokenKeeper<Tenant>();

  return {
    url,
    port,
    clientId: ctx.tenants.defaultClientId,
    token(clientId = ctx.tenants.defaultClientId, { fresh = false }: TokenOptions = {}) {
      let tenant: Tenant;
      try {
        tenant = ctx.tenants.get(clientId);
      } catch (error) {
        return Promise.reject(error);
      }
      const { client } = tenant;
      const fingerprint = JSON.stringify([client.client_secret, client.scopes, client.token_endpoint_auth_method]);
      const fetchNew = () =>
        fetchToken(url, client.client_id, client.client_secret, { authMethod: client.token_endpoint_auth_method });
      return tokens.token(tenant, fingerprint, () => tenant.now(), fetchNew, fresh);
    },
    control: createControlClient({
      url,
      ...(options.controlToken !== undefined && { controlToken: options.controlToken }),
    }),
    reset(clientId?: string) {
      resetTenants(ctx.tenants, ctx.journal, clientId);
    },
    state(clientId = ctx.tenants.defaultClientId) {
      return settled(clientId).store.snapshot();
    },
    verify(pattern, count, clientIdOrOptions) {
      const { clientId = ctx.tenants.defaultClientId, since = 'reset' } = proofOptions(clientIdOrOptions);
      const outcome = verifyTenantRequests(ctx, ctx.tenants.get(clientId).client.client_id, {
        request: pattern,
        ...(count && { count }),
        since,
      });
      if (!outcome.holds) throw new VerificationError({ detail: outcome.detail, ...outcome.failure });
      return outcome.result;
    },
    report(clientIdOrOptions) {
      const { clientId = ctx.tenants.defaultClientId, since = 'start' } = proofOptions(clientIdOrOptions);
      return tenantReadinessReport(ctx, ctx.tenants.get(clientId).client.client_id, since);
    },
    exportRequests(format = 'har', { clientId = ctx.tenants.defaultClientId, since = 'start', consumer } = {}) {
      return exportTenantRequests(ctx, ctx.tenants.get(clientId).client.client_id, format, url, {
        since,
        ...(consumer !== undefined && { consumer }),
      }).body.toString('utf8');
    },
    clearRequests(clientId) {
      if (clientId !== undefined) ctx.tenants.get(clientId);
      ctx.journal.clear(clientId);
    },
    placeOrderSync,
    orderSync,
    advanceOrderSync,
    setOrderStatusSync,
    async stop() {
      await closeStarted(started);
      await server.drain(SHUTDOWN_GRACE_MS);
      await ctx.stateWriter?.close();
      await ctx.shadow?.close();
    },
  };
}
