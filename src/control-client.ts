import { AssertionError } from 'node:assert';
import createClient from 'openapi-fetch';
import type { paths } from './api/schema.js';
import type { ExportFormat, OperationId, Schemas, TokenEndpointAuthMethod } from './api/types.js';
type JournalSpan = Schemas['JournalSpan'];
import { CONTROL_SCOPE } from './domain/scopes.js';
import { ControlError } from './api/control-error.js';
import {
  describeVerificationFailure,
  type RequestCount,
  type RequestPattern as DocumentRequestPattern,
  type VerificationFailure,
} from './proof/verify.js';

/**
 * What `verify` and the `toHaveReceived` matcher look for: the document's `RequestPattern`, its `operation` typed as
 * the document's operation ids, so a misspelt one is a compile error, as every other field's typo is.
 */
export type RequestPattern = Omit<DocumentRequestPattern, 'operation'> & { operation?: OperationId };

// the control client's error, as partners import it with the client
export { ControlError };

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
 * A control operation's success answer (200 or 201, JSON) as the document's types write it. The calls below name it
 * as their return type, so the library's declarations refer to the document's types rather than spelling out what
 * openapi-fetch infers (which, inlined, a partner's `exactOptionalPropertyTypes` would not take as the same type).
 */
type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? JsonBody<R[200 & keyof R] | R[201 & keyof R]>
  : never;
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/**
 * Typed calls of the control plane (`/__control`), from the OpenAPI document's types. Works against a fake in the
 * same process and against a remote one (a container) alike: it speaks HTTP. `forClient(id)`: the same calls for
 * another tenant.
 */
export function createControlClient(options: ControlClientOptions): ControlClient {
  return { ...controlCalls(options), forClient: (clientId: string) => createControlClient({ ...options, clientId }) };
}

// The calls apart from forClient: a client that answers its own type can only be written as an interface, which
// extends what these calls infer (inferred, forClient's type would be `any` in the declarations).
function controlCalls(options: ControlClientOptions) {
  const base = options.url.replace(/\/$/, '');
  const partner = options.clientCredentials;
  let partnerToken: Promise<string> | undefined;
  const bearer = async (fresh: boolean): Promise<string | undefined> => {
    if (!partner) return options.controlToken;
    if (fresh || !partnerToken)
      partnerToken = fetchToken(base, partner.clientId, partner.clientSecret, {
        scope: `openid offline ${CONTROL_SCOPE}`,
        authMethod: partner.authMethod,
        fetch: options.fetch,
      });
    return partnerToken;
  };

  /** The headers every control call carries: the operator's or the partner's token, the tenant it acts on. */
  const callHeaders = async (json: boolean): Promise<Record<string, string>> => {
    const headers: Record<string, string> = json ? { 'content-type': 'application/json' } : {};
    const token = await bearer(false);
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.clientId) headers['x-client-id'] = options.clientId;
    return headers;
  };
  const fetchOf = options.fetch ?? fetch;

  /** Any control call by method and path, untyped: the MCP tools', which the document's operations name. */
  async function send(method: string, path: string, body?: unknown, retried = false): Promise<Response> {
    const response = await fetchOf(`${base}/__control${path}`, {
      method,
      headers: await callHeaders(body !== undefined),
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
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

  // The typed calls: paths, parameters, bodies and answers from the document's own types (openapi-fetch over
  // openapi-typescript's `paths`), so a path or a field the document does not have is a compile error.
  const typed = createClient<paths>({
    baseUrl: base,
    // openapi-fetch hands a Request; this client's `fetch` takes a URL and its init (the MCP endpoint's: into the app)
    fetch: async (request: Request) =>
      fetchOf(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== null && { body: await request.text() }),
      }),
  });
  typed.use({
    onRequest: async ({ request }) => {
      for (const [name, value] of Object.entries(await callHeaders(false))) request.headers.set(name, value);
      return request;
    },
  });

  /** A typed call's answer when it succeeded (undefined for 204), else a `ControlError` with its problem. */
  async function call<T>(
    request: () => Promise<{ data?: T; error?: unknown; response: Response }>,
    retried = false,
  ): Promise<T> {
    const { data, error, response } = await request();
    if (!response.ok) {
      // a partner's token expired (its tenant's clock moved on): once more with a new one
      if (partner && !retried && response.status === 401) {
        await bearer(true);
        return call(request, true);
      }
      throw new ControlError(
        response.status,
        typeof error === 'object' && error !== null ? (error as Schemas['Problem']) : undefined,
      );
    }
    return data as T;
  }
  const text = { parseAs: 'text' } as const;

  return {
    /**
     * Any control call by method and path (relative to `/__control`, with its query): the answer when it succeeded,
     * else a `ControlError` with its problem. The MCP server's tools call the control plane through it.
     */
    send: (method: string, path: string, body?: unknown) => send(method, path, body),
    health: (): Promise<Answer<'/__control/health', 'get'>> => call(() => typed.GET('/__control/health')),
    /** This tenant (bound by `forClient`, `clientId` or `clientCredentials`) or every tenant back to its fixtures. */
    reset: () =>
      call<void>(() =>
        typed.POST('/__control/reset', { body: options.clientId ? { client_id: options.clientId } : {} }),
      ),
    snapshot: (): Promise<Answer<'/__control/state', 'get'>> => call(() => typed.GET('/__control/state')),
    restore: (world: Schemas['World']) => call<void>(() => typed.PUT('/__control/state', { body: world })),
    /** Every client with its secret, scopes and settings; a partner's own only, with `clientCredentials`. */
    clients: async (): Promise<Answer<'/__control/clients', 'get'>['data']> =>
      (await call(() => typed.GET('/__control/clients'))).data,
    addClient: (client: Schemas['ClientCreate']): Promise<Answer<'/__control/clients', 'post'>> =>
      call(() => typed.POST('/__control/clients', { body: client })),
    updateClient: (
      clientId: string,
      changes: Schemas['ClientUpdate'],
    ): Promise<Answer<'/__control/clients/{client_id}', 'patch'>> =>
      call(() =>
        typed.PATCH('/__control/clients/{client_id}', { params: { path: { client_id: clientId } }, body: changes }),
      ),
    /**
     * Removes a client and everything its tenant holds, giving its room back (`DELETE /__control/clients/{client_id}`):
     * a partner's token its own client only; not the default client, `--demo`'s partner or a shadow mode twin (409).
     */
    removeClient: (clientId: string) =>
      call<void>(() => typed.DELETE('/__control/clients/{client_id}', { params: { path: { client_id: clientId } } })),
    /** Each memory budget's use and limit, and the largest tenants (`GET /__control/usage`): the operator's alone. */
    usage: (): Promise<Answer<'/__control/usage', 'get'>> => call(() => typed.GET('/__control/usage')),
    now: (): Promise<Answer<'/__control/clock', 'get'>> => call(() => typed.GET('/__control/clock')),
    advanceClock: (seconds: number): Promise<Answer<'/__control/clock', 'post'>> =>
      call(() => typed.POST('/__control/clock', { body: { advance_seconds: seconds } })),
    /** Sets the tenant's clock; `{ frozen: true }` stops it there (it moves only when told), `false` lets it run. */
    setClock: (now: Date | string, options: { frozen?: boolean } = {}): Promise<Answer<'/__control/clock', 'post'>> =>
      call(() =>
        typed.POST('/__control/clock', {
          body: { now: typeof now === 'string' ? now : now.toISOString(), ...options },
        }),
      ),
    /** Stops (`true`) or restarts (`false`) the tenant's clock where it stands. */
    freezeClock: (frozen = true): Promise<Answer<'/__control/clock', 'post'>> =>
      call(() => typed.POST('/__control/clock', { body: { frozen } })),
    addPaymentMethodDetails: (
      accountId: string,
      details: Schemas['PaymentMethodDetailsCreate'],
    ): Promise<Answer<'/__control/accounts/{account_id}/payment-method-details', 'post'>> =>
      call(() =>
        typed.POST('/__control/accounts/{account_id}/payment-method-details', {
          params: { path: { account_id: accountId } },
          body: details,
        }),
      ),
    placeOrder: (order: Schemas['OrderPlacement']): Promise<Answer<'/__control/orders', 'post'>> =>
      call(() => typed.POST('/__control/orders', { body: order })),
    /** The order as the tenant's clock has it now, with its `status_history` and `next_step`. */
    order: (orderId: string): Promise<Answer<'/__control/orders/{order_id}', 'get'>> =>
      call(() => typed.GET('/__control/orders/{order_id}', { params: { path: { order_id: orderId } } })),
    /** Every order so, oldest first, with the tenant's clock (`GET /__control/orders`). */
    orders: (): Promise<Answer<'/__control/orders', 'get'>> => call(() => typed.GET('/__control/orders')),
    advanceOrder: (orderId: string): Promise<Answer<'/__control/orders/{order_id}/advance', 'post'>> =>
      call(() => typed.POST('/__control/orders/{order_id}/advance', { params: { path: { order_id: orderId } } })),
    setOrderStatus: (
      orderId: string,
      status: Schemas['OrderStatus'],
    ): Promise<Answer<'/__control/orders/{order_id}/status', 'post'>> =>
      call(() =>
        typed.POST('/__control/orders/{order_id}/status', {
          params: { path: { order_id: orderId } },
          body: { status },
        }),
      ),
    addFault: (fault: Schemas['FaultCreate']): Promise<Answer<'/__control/faults', 'post'>> =>
      call(() => typed.POST('/__control/faults', { body: fault })),
    faults: async (): Promise<Answer<'/__control/faults', 'get'>['data']> =>
      (await call(() => typed.GET('/__control/faults'))).data,
    removeFault: (faultId: string) =>
      call<void>(() => typed.DELETE('/__control/faults/{fault_id}', { params: { path: { fault_id: faultId } } })),
    clearFaults: () => call<void>(() => typed.DELETE('/__control/faults')),
    /**
     * Journal entries, oldest first; filters as `GET /__control/requests` (the bound tenant's only, when bound):
     * since the tenant's last reset, or `since: 'start'` for all the journal keeps.
     */
    requests: async (
      filter: { method?: string; path?: string; since?: JournalSpan } = {},
    ): Promise<Answer<'/__control/requests', 'get'>['data']> =>
      (await call(() => typed.GET('/__control/requests', { params: { query: filter } }))).data,
    /** One journaled request (its id: the `X-Request-Id` header) with its bodies, as the journal keeps them. */
    request: (requestId: string): Promise<Answer<'/__control/requests/{request_id}', 'get'>> =>
      call(() => typed.GET('/__control/requests/{request_id}', { params: { path: { request_id: requestId } } })),
    /** The tenant's documents, each with a signed download link valid 15 minutes of its clock. */
    documents: async (): Promise<Answer<'/__control/documents', 'get'>['data']> =>
      (await call(() => typed.GET('/__control/documents'))).data,
    /** Forgets the tenant's journal (`DELETE /__control/requests`); the operator's unbound client: every journal. */
    clearRequests: () => call<void>(() => typed.DELETE('/__control/requests')),
    /** The readiness report over the tenant's whole journal, or since its last reset with `{ since: 'reset' }`. */
    report: (options: { since?: JournalSpan } = {}) =>
      // JSON unless a format is asked for (the document gives the XML beside it)
      call(() => typed.GET('/__control/report', { params: { query: { since: options.since } } })) as Promise<
        Schemas['ReadinessReport']
      >,
    /** The readiness report as JUnit XML, for a CI's test tab (`GET /__control/report?format=junit`). */
    reportJunit: (options: { since?: JournalSpan } = {}) =>
      call<string>(() =>
        typed.GET('/__control/report', { params: { query: { format: 'junit', since: options.since } }, ...text }),
      ),
    /**
     * Asserts what the tenant's client sent (`POST /__control/verify`): resolves the matching requests when the
     * count holds (default: at least one), else rejects with a `VerificationError` (an `AssertionError`) whose
     * message shows the near misses.
     */
    verify: async (
      pattern: RequestPattern,
      count?: RequestCount,
      options: { since?: JournalSpan } = {},
    ): Promise<Schemas['VerificationResult']> => {
      try {
        return await call(() =>
          typed.POST('/__control/verify', {
            body: { request: pattern, ...(count && { count }), ...(options.since && { since: options.since }) },
          }),
        );
      } catch (error) {
        if (error instanceof ControlError && error.status === 409 && error.problem?.code === 'verification_failed') {
          throw new VerificationError(error.problem as VerificationFailure);
        }
        throw error;
      }
    },
    /**
     * The tenant's journal as HAR 1.2 (`format: 'har'`, the default) or a `.http` file: whole, or `{ since: 'reset' }`;
     * `'pact'`: its span since the last reset as a Pact V4 contract (`{ consumer }`, default the client id);
     * `'vitest'`: its session since the last reset as a runnable vitest file.
     */
    exportRequests: (format: ExportFormat = 'har', options: { since?: JournalSpan; consumer?: string } = {}) =>
      call<string>(() =>
        typed.GET('/__control/export', {
          params: { query: { format, since: options.since, consumer: options.consumer } },
          ...text,
        }),
      ),
    /** Makes a Pact provider state true in the tenant, as the verifier does: answers the values it injects. */
    providerState: (
      change: Schemas['ProviderStateChange'],
    ): Promise<Answer<'/__control/pact/provider-states', 'post'>> =>
      call(() => typed.POST('/__control/pact/provider-states', { body: change })),
    /** Shadow mode's report (`GET /__control/fidelity`): where the fake and the upstream agree and differ. */
    fidelity: (): Promise<Schemas['FidelityReport']> =>
      call(() => typed.GET('/__control/fidelity')) as Promise<Schemas['FidelityReport']>,
    /** The same as JUnit XML, a test case per operation seen and a failure per difference. */
    fidelityJunit: () =>
      call<string>(() => typed.GET('/__control/fidelity', { params: { query: { format: 'junit' } }, ...text })),
    /** The exchanges that differed as a vitest file asserting the upstream's answers (a passing one when none did). */
    fidelityVitest: () =>
      call<string>(() => typed.GET('/__control/fidelity', { params: { query: { format: 'vitest' } }, ...text })),
    /** Forgets the shadow report so far (the twins stay). */
    clearFidelity: () => call<void>(() => typed.DELETE('/__control/fidelity')),
  };
}

/** The typed control client: `fake.control`, `createControlClient(...)`. */
export interface ControlClient extends ReturnType<typeof controlCalls> {
  /** The same calls, acting on another tenant. */
  forClient(clientId: string): ControlClient;
}
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
export function tokenRequestOf(
  url: string,
  clientId: string,
  clientSecret: string,
  options: Omit<FetchTokenOptions, 'fetch'> = {},
): { url: string; init: RequestInit } {
  const base = url.replace(/\/$/, '');
  const form: Record<string, string> = {
    grant_type: 'client_credentials',
    scope: options.scope ?? 'openid offline',
    audience: new URL(base).host,
  };
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
export async function fetchToken(
  url: string,
  clientId: string,
  clientSecret: string,
  options: FetchTokenOptions = {},
): Promise<string> {
  const request = tokenRequestOf(url, clientId, clientSecret, options);
  const response = await (options.fetch ?? fetch)(request.url, request.init);
  const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
  if (!response.ok || !body.access_token)
    throw new Error(
      `No token for ${clientId}: ${body.error ?? response.status} ${body.error_description ?? ''}`.trim(),
    );
  return body.access_token;
}
