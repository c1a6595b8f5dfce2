import { AssertionError } from 'node:assert';
import type { operations } from './api/schema.js';
import type { ExportFormat, OperationId, Schemas, TokenEndpointAuthMethod } from './api/types.js';
type JournalSpan = Schemas['JournalSpan'];
import { CONTROL_SCOPE } from './domain/scopes.js';
import { ControlError } from './api/control-error.js';
import { describeVerificationFailure, type RequestCount, type RequestPattern as DocumentRequestPattern, type VerificationFailure } from './harness/verify.js';

/**
 * What `verify` and the `toHaveReceived` matcher look for: the document's `RequestPattern`, its `operation` typed as
 * the document's operation ids, so a misspelt one is a compile error, as every other field's typo is.
 */
export type RequestPattern = Omit<DocumentRequestPattern, 'operation'> & { operation?: OperationId };

// the control client's error, as partners import it with the client
export { ControlError };

type JsonBody<Op extends OperationId> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type JsonResponse<Op extends OperationId, S extends number> = operations[Op]['responses'] extends Record<S, { content: { 'application/json': infer R } }> ? R : never;

/**
 * A verification whose count did not hold, as node's assert would throw it: its message shows the expectation and
 * the near misses; `failure` holds them as the control plane answered them.
 */
export class VerificationError extends AssertionError {
  readonly failure: Pick<VerificationFailure, 'detail' | 'matched' | 'requests' | 'near_misses'>;

  constructor(failure: Pick<VerificationFailure, 'detail' | 'matched' | 'requests' | 'near_misses'>) {
    super({ message: describeVerificationFailure(failure.detail, failure), operator: 'verify' });
    this.name = 'AssertionError';
    this.failure = failure;
  }
}

export interface ControlClientOptions {
  /** Base URL of the fake, such as `http://localhost:8080` or `http://fake:8080` in CI. */
  url: string;
  /** The CONTROL_TOKEN the fake runs with, if any: the operator's, for every tenant. */
  controlToken?: string;
  /**
   * A partner's own client, granted the scope `control` by the operator: the calls then carry its access token
   * (fetched with `scope=openid offline control`, fetched again when refused as expired) and act on its tenant only.
   */
  clientCredentials?: { clientId: string; clientSecret: string; authMethod?: TokenEndpointAuthMethod };
  /** The tenant the calls act on; the fake's default client when absent (a partner's own with `clientCredentials`). */
  clientId?: string;
  /** How the calls go: the global `fetch`, or (the MCP endpoint's tools) into the fake's own app, in its process. */
  fetch?: Fetch;
}

/** The part of `fetch` the control client uses. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Typed calls of the control plane (`/__control`), from the OpenAPI document's types. Works against a fake in the
 * same process and against a remote one (a container) alike: it speaks HTTP.
 */
export function createControlClient(options: ControlClientOptions) {
  const base = options.url.replace(/\/$/, '');
  const partner = options.clientCredentials;
  let partnerToken: Promise<string> | undefined;
  const bearer = async (fresh: boolean): Promise<string | undefined> => {
    if (!partner) return options.controlToken;
    if (fresh || !partnerToken) partnerToken = fetchToken(base, partner.clientId, partner.clientSecret, { scope: `openid offline ${CONTROL_SCOPE}`, authMethod: partner.authMethod, fetch: options.fetch });
    return partnerToken;
  };

  async function send(method: string, path: string, body?: unknown, retried = false): Promise<Response> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const token = await bearer(false);
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.clientId) headers['x-client-id'] = options.clientId;
    const response = await (options.fetch ?? fetch)(`${base}/__control${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    if (!response.ok) {
      const problem = (await response.json().catch(() => undefined)) as Schemas['Problem'] | undefined;
      // a partner's token expired (its tenant's clock moved on): once more with a new one
      if (partner && !retried && response.status === 401) {
        await bearer(true);
        return send(method, path, body, true);
      }
      throw new ControlError(response.status, problem);
    }
    return response;
  }
  async function call<R>(method: string, path: string, body?: unknown): Promise<R> {
    const response = await send(method, path, body);
    return (response.status === 204 ? undefined : await response.json()) as R;
  }
  const id = encodeURIComponent;

  return {
    /** The same calls, acting on another tenant. */
    forClient: (clientId: string) => createControlClient({ ...options, clientId }),
    /**
     * Any control call by method and path (relative to `/__control`, with its query): the answer when it succeeded,
     * else a `ControlError` with its problem. The MCP server's tools call the control plane through it.
     */
    send: (method: string, path: string, body?: unknown) => send(method, path, body),
    health: () => call<JsonResponse<'getHealth', 200>>('GET', '/health'),
    /** This tenant (when bound by `forClient`, `clientId` or `clientCredentials`) or every tenant back to its fixtures. */
    reset: () => call<void>('POST', '/reset', options.clientId ? { client_id: options.clientId } : {}),
    snapshot: () => call<JsonResponse<'getState', 200>>('GET', '/state'),
    restore: (world: JsonBody<'replaceState'>) => call<void>('PUT', '/state', world),
    /** Every client with its secret, scopes and settings (as `GET /__control/clients`); a partner's own only, with `clientCredentials`. */
    clients: async () => (await call<JsonResponse<'listClients', 200>>('GET', '/clients')).data,
    addClient: (client: JsonBody<'createClient'>) => call<JsonResponse<'createClient', 201>>('POST', '/clients', client),
    updateClient: (clientId: string, changes: JsonBody<'updateClient'>) =>
      call<JsonResponse<'updateClient', 200>>('PATCH', `/clients/${id(clientId)}`, changes),
    /** Each memory budget's use and limit, and the largest tenants (`GET /__control/usage`): the operator's alone. */
    usage: () => call<JsonResponse<'getUsage', 200>>('GET', '/usage'),
    now: () => call<JsonResponse<'getClock', 200>>('GET', '/clock'),
    advanceClock: (seconds: number) => call<JsonResponse<'setClock', 200>>('POST', '/clock', { advance_seconds: seconds }),
    /** Sets the tenant's clock; `{ frozen: true }` stops it there (it then moves only when told), `false` lets it run. */
    setClock: (now: Date | string, options: { frozen?: boolean } = {}) =>
      call<JsonResponse<'setClock', 200>>('POST', '/clock', { now: typeof now === 'string' ? now : now.toISOString(), ...options }),
    /** Stops (`true`) or restarts (`false`) the tenant's clock where it stands. */
    freezeClock: (frozen = true) => call<JsonResponse<'setClock', 200>>('POST', '/clock', { frozen }),
    addPaymentMethodDetails: (accountId: string, details: JsonBody<'createPaymentMethodDetails'>) =>
      call<JsonResponse<'createPaymentMethodDetails', 201>>('POST', `/accounts/${id(accountId)}/payment-method-details`, details),
    placeOrder: (order: JsonBody<'placeOrder'>) => call<JsonResponse<'placeOrder', 201>>('POST', '/orders', order),
    /** The order as the tenant's clock has it now, with its `status_history` and `next_step` (`GET /__control/orders/{order_id}`). */
    order: (orderId: string) => call<JsonResponse<'getControlOrder', 200>>('GET', `/orders/${id(orderId)}`),
    /** Every order so, oldest first, with the tenant's clock (`GET /__control/orders`). */
    orders: () => call<JsonResponse<'listControlOrders', 200>>('GET', '/orders'),
    advanceOrder: (orderId: string) => call<JsonResponse<'advanceOrder', 200>>('POST', `/orders/${id(orderId)}/advance`),
    setOrderStatus: (orderId: string, status: Schemas['OrderStatus']) =>
      call<JsonResponse<'setOrderStatus', 200>>('POST', `/orders/${id(orderId)}/status`, { status }),
    addFault: (fault: JsonBody<'addFault'>) => call<JsonResponse<'addFault', 201>>('POST', '/faults', fault),
    faults: async () => (await call<JsonResponse<'listFaults', 200>>('GET', '/faults')).data,
    removeFault: (faultId: string) => call<void>('DELETE', `/faults/${id(faultId)}`),
    clearFaults: () => call<void>('DELETE', '/faults'),
    /**
     * Journal entries, oldest first; filters as `GET /__control/requests` (the bound tenant's only, when bound):
     * since the tenant's last reset, or `since: 'start'` for all the journal keeps.
     */
    requests: async (filter: { method?: string; path?: string; since?: JournalSpan } = {}) => {
      const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined) as [string, string][]);
      return (await call<JsonResponse<'listRequests', 200>>('GET', `/requests${query.size > 0 ? `?${query}` : ''}`)).data;
    },
    /** One journaled request (its id, the `X-Request-Id` header) with its request and answer bodies, as the journal keeps them. */
    request: (requestId: string) => call<JsonResponse<'getRequestExchange', 200>>('GET', `/requests/${id(requestId)}`),
    /** The tenant's documents, each with a signed download link valid 15 minutes of its clock. */
    documents: async () => (await call<JsonResponse<'listDocumentLinks', 200>>('GET', '/documents')).data,
    /** Forgets the tenant's journal (`DELETE /__control/requests`); the operator's unbound client: every journal. */
    clearRequests: () => call<void>('DELETE', '/requests'),
    /** The readiness report over the tenant's whole journal, or since its last reset with `{ since: 'reset' }`. */
    report: (options: { since?: JournalSpan } = {}) => call<Schemas['ReadinessReport']>('GET', `/report${sinceQuery(options, '?')}`),
    /** The readiness report as JUnit XML, for a CI's test tab (`GET /__control/report?format=junit`). */
    reportJunit: async (options: { since?: JournalSpan } = {}) => (await send('GET', `/report?format=junit${sinceQuery(options, '&')}`)).text(),
    /**
     * Asserts what the tenant's client sent (`POST /__control/verify`): resolves the matching requests when the
     * count holds (default: at least one), else rejects with a `VerificationError` (an `AssertionError`) whose
     * message shows the near misses.
     */
    verify: async (pattern: RequestPattern, count?: RequestCount, options: { since?: JournalSpan } = {}): Promise<Schemas['VerificationResult']> => {
      try {
        return await call<JsonResponse<'verifyRequests', 200>>('POST', '/verify', { request: pattern, ...(count && { count }), ...(options.since && { since: options.since }) });
      } catch (error) {
        if (error instanceof ControlError && error.status === 409 && error.problem?.code === 'verification_failed') {
          throw new VerificationError(error.problem as VerificationFailure);
        }
        throw error;
      }
    },
    /**
     * The tenant's journal as HAR 1.2 (`format: 'har'`, the default) or as a `.http` file: whole, or `{ since: 'reset' }`;
     * `'pact'`: its span since the last reset as a Pact V4 contract (`{ consumer }`, default the client id); `'vitest'`: its
     * session since the last reset as a runnable vitest file.
     */
    exportRequests: async (format: ExportFormat = 'har', options: { since?: JournalSpan; consumer?: string } = {}) =>
      (await send('GET', `/export?format=${format}${sinceQuery(options, '&')}${options.consumer === undefined ? '' : `&consumer=${encodeURIComponent(options.consumer)}`}`)).text(),
    /** Makes a Pact provider state true in the tenant, as the verifier does (`POST /__control/pact/provider-states`): the values it injects. */
    providerState: (change: Schemas['ProviderStateChange']) => call<JsonResponse<'changeProviderState', 200>>('POST', '/pact/provider-states', change),
    /** Shadow mode's report (`GET /__control/fidelity`): where the fake and the upstream agree and differ. */
    fidelity: () => call<JsonResponse<'getFidelityReport', 200>>('GET', '/fidelity'),
    /** The same as JUnit XML, a test case per operation seen and a failure per difference. */
    fidelityJunit: async () => (await send('GET', '/fidelity?format=junit')).text(),
    /** The exchanges that differed as a vitest file asserting the upstream's answers (a passing one when none did). */
    fidelityVitest: async () => (await send('GET', '/fidelity?format=vitest')).text(),
    /** Forgets the shadow report so far (the twins stay). */
    clearFidelity: () => call<void>('DELETE', '/fidelity'),
  };
}

const sinceQuery = ({ since }: { since?: JournalSpan }, separator: '?' | '&'): string => (since ? `${separator}since=${since}` : '');

export type ControlClient = ReturnType<typeof createControlClient>;
export type { RequestCount };

export interface FetchTokenOptions {
  /** Space-separated scopes to ask for; `openid offline` (every API scope the client has) when absent. */
  scope?: string;
  /** The method the client is registered for (`GET /__control/clients`): `client_secret_post` when absent. */
  authMethod?: TokenEndpointAuthMethod;
  /** How the request goes: the global `fetch` when absent. */
  fetch?: Fetch;
}

/** The token request a partner's client sends: the client-credentials grant, audience = the URL's host. */
export function tokenRequestOf(url: string, clientId: string, clientSecret: string, options: Omit<FetchTokenOptions, 'fetch'> = {}): { url: string; init: RequestInit } {
  const base = url.replace(/\/$/, '');
  const form: Record<string, string> = { grant_type: 'client_credentials', scope: options.scope ?? 'openid offline', audience: new URL(base).host };
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (options.authMethod === 'client_secret_basic') {
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
  } else {
    Object.assign(form, { client_id: clientId, client_secret: clientSecret });
  }
  return { url: `${base}/oauth2/token`, init: { method: 'POST', headers, body: new URLSearchParams(form) } };
}

/** A token the way a partner's client gets one (`tokenRequestOf`). */
export async function fetchToken(url: string, clientId: string, clientSecret: string, options: FetchTokenOptions = {}): Promise<string> {
  const request = tokenRequestOf(url, clientId, clientSecret, options);
  const response = await (options.fetch ?? fetch)(request.url, request.init);
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!response.ok || !body.access_token) throw new Error(`No token for ${clientId}: ${body.error ?? response.status} ${body.error_description ?? ''}`.trim());
  return body.access_token;
}
