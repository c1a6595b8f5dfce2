import type { components } from '../../src/api/schema.js';
import { ControlError } from '../../src/api/control-error.js';

export type Schemas = components['schemas'];
export type World = Schemas['World'];
export type Order = Schemas['OrderDetails'];
export type OrderStatus = Schemas['OrderStatus'];
export type Problem = Schemas['Problem'];
export type Fault = Schemas['Fault'];
export type JournalEntry = Schemas['JournalEntry'];
export type ReadinessFinding = Schemas['ReadinessFinding'];
export type Client = Schemas['Client'];
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
 * The console's only server: the control plane of its own origin. Every body is JSON with its content type; the
 * tenant goes in `X-Client-Id`, the CONTROL_TOKEN (when the fake asks for one) in `Authorization`.
 */
async function send(session: Session, method: string, path: string, body: unknown, options: { allClients?: boolean }, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (session.controlToken) headers.authorization = `Bearer ${session.controlToken}`;
  if (session.clientId && !options.allClients) headers['x-client-id'] = session.clientId;
  const response = await fetch(`/__control${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => undefined)) as Problem | undefined;
    const error = new ControlError(response.status, problem);
    if (error.wrongControlToken) session.onUnauthorized?.(problem?.code ?? 'invalid_control_token');
    throw error;
  }
  return response;
}

export async function control<R>(session: Session, method: string, path: string, body?: unknown, options: { allClients?: boolean } = {}): Promise<R> {
  const response = await send(session, method, path, body, options, 'application/json');
  return (response.status === 204 ? undefined : await response.json()) as R;
}

/** A control call answering a file (an export): its bytes and the name the fake gives it. */
async function controlFile(session: Session, path: string): Promise<{ blob: Blob; fileName: string }> {
  const response = await send(session, 'GET', path, undefined, {}, '*/*');
  const fileName = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  return { blob: await response.blob(), fileName };
}

const id = encodeURIComponent;

/** The control operations the console uses, typed from the OpenAPI document. */
export const api = (s: Session) => ({
  state: () => control<World>(s, 'GET', '/state'),
  replaceState: (world: unknown) => control<void>(s, 'PUT', '/state', world),
  reset: (clientId?: string) => control<void>(s, 'POST', '/reset', clientId ? { client_id: clientId } : {}),
  clock: () => control<Schemas['Clock']>(s, 'GET', '/clock'),
  setClock: (change: Schemas['ClockChange']) => control<Schemas['Clock']>(s, 'POST', '/clock', change),
  report: () => control<Schemas['ReadinessReport']>(s, 'GET', '/report'),
  /** The tenant's journal as HAR 1.2 or as a `.http` file for REST clients; its session as a vitest file. */
  exportRequests: (format: 'har' | 'http' | 'vitest') => controlFile(s, `/export?format=${format}`),
  /** Every client (tenant) with its secret, the default one first. */
  clients: async () => (await control<Schemas['ClientList']>(s, 'GET', '/clients', undefined, { allClients: true })).data,
  createClient: (client: Schemas['ClientCreate']) => control<Client>(s, 'POST', '/clients', client),
  updateClient: (clientId: string, change: Schemas['ClientUpdate']) => control<Client>(s, 'PATCH', `/clients/${id(clientId)}`, change),
  placeOrder: (order: Schemas['OrderPlacement']) => control<Order>(s, 'POST', '/orders', order),
  /** Every order with its status history and next step, and the tenant's clock. */
  orders: () => control<Schemas['ControlOrderList']>(s, 'GET', '/orders'),
  order: (orderId: string) => control<Schemas['ControlOrder']>(s, 'GET', `/orders/${id(orderId)}`),
  advanceOrder: (orderId: string) => control<Order>(s, 'POST', `/orders/${id(orderId)}/advance`),
  setOrderStatus: (orderId: string, status: OrderStatus) => control<Order>(s, 'POST', `/orders/${id(orderId)}/status`, { status }),
  faults: async () => (await control<Schemas['FaultList']>(s, 'GET', '/faults')).data,
  addFault: (fault: Schemas['FaultCreate']) => control<Fault>(s, 'POST', '/faults', fault),
  removeFault: (faultId: string) => control<void>(s, 'DELETE', `/faults/${id(faultId)}`),
  documents: async () => (await control<Schemas['DocumentLinkList']>(s, 'GET', '/documents')).data,
  clearFaults: () => control<void>(s, 'DELETE', '/faults'),
  /** Liveness, and `shadow_mode: true` in shadow mode: whether there is a fidelity report to read. */
  health: () => control<Schemas['Health']>(s, 'GET', '/health', undefined, { allClients: true }),
  /** Shadow mode's report (409 `shadow_mode_off` outside it), and forgetting it. */
  fidelity: () => control<Schemas['FidelityReport']>(s, 'GET', '/fidelity'),
  clearFidelity: () => control<void>(s, 'DELETE', '/fidelity'),
  /** The journal: the tenant's since its last reset, all of it with `since: 'start'`; every client's (the newest) with `allClients`. */
  requests: async (allClients = false, since: Schemas['JournalSpan'] = 'reset') =>
    (await control<Schemas['JournalEntryList']>(s, 'GET', `/requests?since=${since}`, undefined, { allClients })).data,
  /** One journaled request with its request and answer bodies, as the journal keeps them (cut, redacted). */
  requestExchange: (requestId: string) => control<Schemas['RequestExchange']>(s, 'GET', `/requests/${id(requestId)}`, undefined, { allClients: true }),
});

export type Api = ReturnType<typeof api>;
