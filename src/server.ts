import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { buildApp, createContext, requestListener } from './app.js';
import { prepareRsaKeyPair } from './auth/key-pair.js';
import { loadValidatorLibrary } from './http/validator.js';
import { answerClientError } from './http/client-error.js';
import { DEFAULTS, type FakeOptions } from './config.js';
import type { FakeContext } from './context.js';
import { createControlClient, fetchToken, VerificationError, type ControlClient, type RequestCount, type RequestPattern } from './control-client.js';
import { tenantReadinessReport, verifyTenantRequests } from './control/proof.js';
import { resetTenants } from './domain/clients.js';
import { advanceOrder, controlOrder, setOrderStatus } from './domain/order-actions.js';
import { placeOrder } from './domain/order-placement.js';
import { drainable, type DrainableServer } from './drain.js';
import type { Schemas, World } from './api/types.js';

/** A running fake: where it listens, how to stop it, and helpers that call the same domain functions as the API. */
export interface FakeServer {
  /** Base URL, such as `http://127.0.0.1:53211`. */
  readonly url: string;
  readonly port: number;
  /** The default client's id (`sandbox-client` unless `clients` says otherwise). */
  readonly clientId: string;
  /** An access token for a client (default: the default client), fetched from the token endpoint like a partner would. */
  token(clientId?: string): Promise<string>;
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
  /** Moves an order one lifecycle step, at once (as `POST /__control/orders/{id}/advance`); throws `order_not_advanceable` at the end. */
  advanceOrderSync(orderId: string, clientId?: string): Schemas['OrderDetails'];
  /** Forces an order into any status with consistent side-effect fields, at once (as `POST /__control/orders/{id}/status`). */
  setOrderStatusSync(orderId: string, status: Schemas['OrderStatus'], clientId?: string): Schemas['OrderDetails'];
  /** @deprecated Renamed `placeOrderSync` (the same function), apart from `control.placeOrder`, which goes over HTTP. */
  placeOrder(input: Schemas['OrderPlacement'], clientId?: string): Schemas['OrderDetails'];
  /** @deprecated Renamed `advanceOrderSync` (the same function), apart from `control.advanceOrder`, which goes over HTTP. */
  advanceOrder(orderId: string, clientId?: string): Schemas['OrderDetails'];
  /** @deprecated Renamed `setOrderStatusSync` (the same function), apart from `control.setOrderStatus`, which goes over HTTP. */
  setOrderStatus(orderId: string, status: Schemas['OrderStatus'], clientId?: string): Schemas['OrderDetails'];
  /**
   * Asserts what a client sent, in this process and at once (as `POST /__control/verify`): answers the matching
   * requests when the count holds (default: at least one), else throws a `VerificationError` (an `AssertionError`)
   * whose message shows the near misses. `fake.control.verify` does the same over HTTP (for a fake in a container).
   */
  verify(pattern: RequestPattern, count?: RequestCount, clientId?: string): Schemas['VerificationResult'];
  /** A client's readiness report, in this process and at once (as `GET /__control/report`). */
  report(clientId?: string): Schemas['ReadinessReport'];
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
export function connectionTimeouts(keepAliveTimeoutMs: number = DEFAULTS.keepAliveTimeoutMs): { keepAliveTimeout: number; headersTimeout: number; requestTimeout: number } {
  const headersTimeout = keepAliveTimeoutMs + HEADERS_AFTER_KEEP_ALIVE_MS;
  return { keepAliveTimeout: keepAliveTimeoutMs, headersTimeout, requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeout) };
}

export async function listen(ctx: FakeContext, port: number, host: string | undefined): Promise<DrainableServer> {
  const server = drainable(createServer(requestListener(buildApp(ctx))));
  if (host === undefined) server.listen(port);
  else server.listen(port, host);
  Object.assign(server, connectionTimeouts(ctx.options.keepAliveTimeoutMs));
  server.on('clientError', answerClientError);
  await once(server, 'listening');
  return server;
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
  const ctx = createContext(options);
  const host = options.host ?? '127.0.0.1';
  const server = await listen(ctx, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const url = options.baseUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const placeOrderSync: FakeServer['placeOrderSync'] = (input, clientId = ctx.tenants.defaultClientId) => placeOrder(ctx.tenants.get(clientId), input);
  const orderSync: FakeServer['orderSync'] = (orderId, clientId = ctx.tenants.defaultClientId) => controlOrder(ctx.tenants.get(clientId), orderId);
  const advanceOrderSync: FakeServer['advanceOrderSync'] = (orderId, clientId = ctx.tenants.defaultClientId) =>
    advanceOrder(ctx.tenants.get(clientId), orderId);
  const setOrderStatusSync: FakeServer['setOrderStatusSync'] = (orderId, status, clientId = ctx.tenants.defaultClientId) =>
    setOrderStatus(ctx.tenants.get(clientId), orderId, status);

  return {
    url,
    port,
    clientId: ctx.tenants.defaultClientId,
    async token(clientId = ctx.tenants.defaultClientId) {
      const { client } = ctx.tenants.get(clientId);
      return fetchToken(url, client.client_id, client.client_secret, { authMethod: client.token_endpoint_auth_method });
    },
    control: createControlClient({ url, ...(options.controlToken !== undefined && { controlToken: options.controlToken }) }),
    reset(clientId?: string) {
      resetTenants(ctx.tenants, ctx.journal, clientId);
    },
    state(clientId = ctx.tenants.defaultClientId) {
      return ctx.tenants.get(clientId).store.snapshot();
    },
    verify(pattern, count, clientId = ctx.tenants.defaultClientId) {
      const outcome = verifyTenantRequests(ctx, ctx.tenants.get(clientId).client.client_id, { request: pattern, ...(count && { count }) });
      if (!outcome.holds) throw new VerificationError({ detail: outcome.detail, ...outcome.failure });
      return outcome.result;
    },
    report(clientId = ctx.tenants.defaultClientId) {
      return tenantReadinessReport(ctx, ctx.tenants.get(clientId).client.client_id);
    },
    placeOrderSync,
    orderSync,
    advanceOrderSync,
    setOrderStatusSync,
    // the names of 0.1.0, kept for the partners who use them
    placeOrder: placeOrderSync,
    advanceOrder: advanceOrderSync,
    setOrderStatus: setOrderStatusSync,
    async stop() {
      await server.drain(SHUTDOWN_GRACE_MS);
      await ctx.stateWriter?.close();
      await ctx.shadow?.close();
    },
  };
}
