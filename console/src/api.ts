import createClient from 'openapi-fetch';
import type { components, paths } from '../../src/api/schema.js';
import { ControlError } from '../../src/api/control-error.js';

export type Schemas = components['schemas'];
export type World = Schemas['World'];
export type Order = Schemas['OrderDetails'];
export type OrderStatus = Schemas['OrderStatus'];
export type Problem = Schemas['Problem'];
export type Fault = Schemas['Fault'];
export type JournalEntry = Schemas['JournalEntry'];
export type ReadinessFinding = Schemas['ReadinessFinding'];
/** A client as the control plane lists it: with its secret, and whether it is the default one. */
export type ListedClient = Schemas['ClientList']['data'][number];
export type DocumentLink = Schemas['DocumentLink'];

export { ControlError };

export interface Session {
  controlToken: string | undefined;
  clientId: string | undefined;
  /** Called when the guard refuses the token (or its absence), with the problem's code: the console asks for one. */
  onUnauthorized?: (code: string) => void;
}

/**
 * The console's only server: the control plane of its own origin, called through openapi-fetch over the document's
 * `paths` (a path, parameter or body the document does not have is a compile error). Every body is JSON with its
 * content type; the tenant goes in `X-Client-Id`, the CONTROL_TOKEN (when the fake asks for one) in `Authorization`.
 */
const client = createClient<paths>({ credentials: 'same-origin' });

/** Who a call is for: every client's, or (the default) the session's tenant's. */
type Scope = { allClients?: boolean };

function headersOf(session: Session, { allClients }: Scope, accept = 'application/json'): Record<string, string> {
  const headers: Record<string, string> = { accept };
  if (session.controlToken) headers.authorization = `Bearer ${session.controlToken}`;
  if (session.clientId && !allClients) headers['x-client-id'] = session.clientId;
  return headers;
}

/** A call's answer when it succeeded (undefined for 204), else a `ControlError` with its problem. */
async function answered<T>(
  session: Session,
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const problem = typeof error === 'object' && error !== null ? (error as Problem) : undefined;
    const refused = new ControlError(response.status, problem);
    if (refused.wrongControlToken) session.onUnauthorized?.(problem?.code ?? 'invalid_control_token');
    throw refused;
  }
  return data as T;
}

/** A control call answering a file (an export): its bytes and the name the fake gives it. */
async function controlFile(
  session: Session,
  format: 'har' | 'http' | 'vitest',
): Promise<{ blob: Blob; fileName: string }> {
  const result = await client.GET('/__control/export', {
    params: { query: { format } },
    headers: headersOf(session, {}, '*/*'),
    parseAs: 'blob',
  });
  const blob = (await answered(session, Promise.resolve(result))) as Blob;
  const fileName = /filename="([^"]+)"/.exec(result.response.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  return { blob, fileName };
}

/** The control operations the console uses, typed from the OpenAPI document. */
export const api = (s: Session) => {
  const h = (scope: Scope = {}) => headersOf(s, scope);
  const path = <P extends Record<string, string>>(values: P) => ({ path: values });
  return {
    state: () => answered(s, client.GET('/__control/state', { headers: h() })),
    replaceState: (world: unknown) =>
      answered<void>(s, client.PUT('/__control/state', { headers: h(), body: world as World })),
    reset: (clientId?: string) =>
      answered<void>(
        s,
        client.POST('/__control/reset', { headers: h(), body: clientId ? { client_id: clientId } : {} }),
      ),
    clock: () => answered(s, client.GET('/__control/clock', { headers: h() })),
    setClock: (change: Schemas['ClockChange']) =>
      answered(s, client.POST('/__control/clock', { headers: h(), body: change })),
    report: () => answered(s, client.GET('/__control/report', { headers: h() })) as Promise<Schemas['ReadinessReport']>,
    /** The tenant's journal as HAR 1.2 or as a `.http` file for REST clients; its session as a vitest file. */
    exportRequests: (format: 'har' | 'http' | 'vitest') => controlFile(s, format),
    /** Every client (tenant) with its secret, the default one first. */
    clients: async () =>
      (await answered(s, client.GET('/__control/clients', { headers: h({ allClients: true }) }))).data,
    createClient: (created: Schemas['ClientCreate']) =>
      answered(s, client.POST('/__control/clients', { headers: h(), body: created })),
    updateClient: (clientId: string, change: Schemas['ClientUpdate']) =>
      answered(
        s,
        client.PATCH('/__control/clients/{client_id}', {
          headers: h(),
          params: path({ client_id: clientId }),
          body: change,
        }),
      ),
    placeOrder: (order: Schemas['OrderPlacement']) =>
      answered(s, client.POST('/__control/orders', { headers: h(), body: order })),
    /** Every order with its status history and next step, and the tenant's clock. */
    orders: () => answered(s, client.GET('/__control/orders', { headers: h() })),
    order: (orderId: string) =>
      answered(s, client.GET('/__control/orders/{order_id}', { headers: h(), params: path({ order_id: orderId }) })),
    advanceOrder: (orderId: string) =>
      answered(
        s,
        client.POST('/__control/orders/{order_id}/advance', { headers: h(), params: path({ order_id: orderId }) }),
      ),
    setOrderStatus: (orderId: string, status: OrderStatus) =>
      answered(
        s,
        client.POST('/__control/orders/{order_id}/status', {
          headers: h(),
          params: path({ order_id: orderId }),
          body: { status },
        }),
      ),
    faults: async () => (await answered(s, client.GET('/__control/faults', { headers: h() }))).data,
    addFault: (fault: Schemas['FaultCreate']) =>
      answered(s, client.POST('/__control/faults', { headers: h(), body: fault })),
    removeFault: (faultId: string) =>
      answered<void>(
        s,
        client.DELETE('/__control/faults/{fault_id}', { headers: h(), params: path({ fault_id: faultId }) }),
      ),
    documents: async () => (await answered(s, client.GET('/__control/documents', { headers: h() }))).data,
    clearFaults: () => answered<void>(s, client.DELETE('/__control/faults', { headers: h() })),
    /** Liveness, and `shadow_mode: true` in shadow mode: whether there is a fidelity report to read. */
    health: () => answered(s, client.GET('/__control/health', { headers: h({ allClients: true }) })),
    /** Shadow mode's report (409 `shadow_mode_off` outside it), and forgetting it. */
    fidelity: () =>
      answered(s, client.GET('/__control/fidelity', { headers: h() })) as Promise<Schemas['FidelityReport']>,
    clearFidelity: () => answered<void>(s, client.DELETE('/__control/fidelity', { headers: h() })),
    /** The journal: the tenant's since its last reset, all of it with `since: 'start'`; every client's (the newest) with `allClients`. */
    requests: async (allClients = false, since: Schemas['JournalSpan'] = 'reset') =>
      (
        await answered(
          s,
          client.GET('/__control/requests', { headers: h({ allClients }), params: { query: { since } } }),
        )
      ).data,
    /** One journaled request with its request and answer bodies, as the journal keeps them (cut, redacted). */
    requestExchange: (requestId: string) =>
      answered(
        s,
        client.GET('/__control/requests/{request_id}', {
          headers: h({ allClients: true }),
          params: path({ request_id: requestId }),
        }),
      ),
  };
};

export type Api = ReturnType<typeof api>;
