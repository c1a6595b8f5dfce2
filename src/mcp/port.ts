import { DomainError, OAuthError } from '../api/errors.js';
import { operationsOf, type ApiDocument } from '../api/document.js';
import type { OperationId, Schemas } from '../api/types.js';
import type { FakeContext } from '../context.js';
import { ControlError, createControlClient, type ControlClientOptions } from '../control-client.js';
import type { Tenant } from '../domain/tenants.js';
import type { OperationCall, OperationHandlers } from '../http/operation.js';
import { problem } from '../http/problem.js';
import { audiencesOf } from '../http/request-context.js';

/**
 * What the MCP tools stand on: one control-plane operation called by its operationId, either in this process through
 * the control plane's own handlers (the `/__control/mcp` endpoint) or over HTTP through the control client (the
 * stdio server, against a fake it started or one `--url` names). The tools never reach past it: every rule, every
 * refusal and a partner's confinement to its tenant are the control plane's.
 */
export interface ControlCall {
  operationId: OperationId;
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** The tenant, as `X-Client-Id` names it; absent: the control plane's default (or a partner's own). */
  clientId?: string;
}

/** A success: JSON, or the text of another media type (a `.http` export). */
export interface ControlAnswer {
  status: number;
  json?: unknown;
  text?: string;
}

/** The control plane refused: its problem, as it answered it. */
export class ControlRefusal extends Error {
  constructor(readonly problem: Schemas['Problem'] & Record<string, unknown>) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = 'ControlRefusal';
  }
}

export interface ControlPort {
  call(call: ControlCall): Promise<ControlAnswer>;
  /** The tenant a tool acts on when it names none: the default client's (a partner's own, for a partner). */
  defaultClientId(): Promise<string>;
  /** An access token of a client, obtained with its credentials as the control plane lists them. */
  token(clientId: string, scope: string): Promise<Schemas['TokenResponse']>;
}

type ClientRow = Schemas['ClientList']['data'][number];

async function credentialsOf(port: Pick<ControlPort, 'call'>, clientId: string): Promise<ClientRow> {
  const { json } = await port.call({ operationId: 'listClients', clientId });
  const row = (json as Schemas['ClientList']).data.find((client) => client.client_id === clientId);
  if (!row) throw new ControlRefusal(problem(404, 'client_not_found', `No client has client_id "${clientId.slice(0, 200)}".`));
  return row;
}

/** The token request's form (and Basic header) for a client, as its registered method says. */
function tokenRequestOf(client: ClientRow, scope: string, audience: string): { body: Record<string, string>; authorization?: string } {
  const body: Record<string, string> = { grant_type: 'client_credentials', scope, audience };
  if (client.token_endpoint_auth_method !== 'client_secret_basic') return { body: { ...body, client_id: client.client_id, client_secret: client.client_secret } };
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return { body, authorization: `Basic ${Buffer.from(`${encode(client.client_id)}:${encode(client.client_secret)}`).toString('base64')}` };
}

const refusalOf = (error: unknown): unknown => {
  if (error instanceof DomainError) return new ControlRefusal({ ...problem(error.status, error.code, error.detail, error.errors), ...error.extensions });
  if (error instanceof OAuthError) return new ControlRefusal(problem(error.status, error.error, error.description));
  return error;
};

type AnyHandler = (call: OperationCall<OperationId>) => Promise<{ status: number; body: unknown }> | { status: number; body: unknown };

/**
 * In this process: the control plane's handlers, called as dispatch calls them, by the caller the control guard
 * found for the MCP request (the operator, or a partner confined to its tenant by the handlers themselves).
 */
export function handlerPort(ctx: FakeContext, handlers: OperationHandlers, caller: { partner: Tenant | undefined; baseUrl: string }): ControlPort {
  async function invoke({ operationId, path = {}, query = {}, body, clientId }: ControlCall, authorization?: string): Promise<ControlAnswer> {
    const handler = handlers[operationId] as unknown as AnyHandler;
    const headers = new Map<string, string>();
    if (clientId !== undefined) headers.set('x-client-id', clientId);
    if (authorization !== undefined) headers.set('authorization', authorization);
    const call = {
      path,
      query,
      body,
      baseUrl: caller.baseUrl,
      get tenant(): Tenant {
        throw new Error(`${operationId} has no authenticated tenant`);
      },
      controlPartner: caller.partner,
      header: (name: string) => headers.get(name.toLowerCase()),
      attribute: () => undefined,
    } as unknown as OperationCall<OperationId>;
    try {
      const answer = await handler(call);
      return Buffer.isBuffer(answer.body) ? { status: answer.status, text: answer.body.toString('utf8') } : { status: answer.status, json: answer.body };
    } catch (error) {
      throw refusalOf(error);
    }
  }
  return {
    call: (request) => invoke(request),
    defaultClientId: async () => caller.partner?.client.client_id ?? ctx.tenants.defaultClientId,
    async token(clientId, scope) {
      const client = await credentialsOf({ call: (request) => invoke(request) }, clientId);
      const request = tokenRequestOf(client, scope, audiencesOf(caller.baseUrl)[0]!);
      return (await invoke({ operationId: 'createToken', body: request.body }, request.authorization)).json as Schemas['TokenResponse'];
    },
  };
}

/** The fake did not answer at all (not running, a wrong --url): said so, as a refusal the agent can act on. */
const unreachable = (base: string, error: unknown): ControlRefusal => {
  const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new ControlRefusal(problem(502, 'fake_unreachable', `The fake at ${base} did not answer (${cause}): is it running, and is --url (FAKE_URL) its base URL?`));
};

/** Over HTTP: the typed control client of a running fake (`--url`, or the one the stdio server started). */
export function clientPort(document: ApiDocument, options: Omit<ControlClientOptions, 'clientId'>): ControlPort {
  const base = options.url.replace(/\/$/, '');
  const routes = new Map(operationsOf(document).map((op) => [op.operationId, op]));
  const client = createControlClient({ ...options, url: base });
  let defaultId: Promise<string> | undefined;

  const port: ControlPort = {
    async call({ operationId, path = {}, query = {}, body, clientId }) {
      const route = routes.get(operationId)!;
      const target = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''));
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
      const relative = `${target.replace(/^\/__control/, '')}${search.size > 0 ? `?${search}` : ''}`;
      try {
        const response = await (clientId === undefined ? client : client.forClient(clientId)).send(route.method.toUpperCase(), relative, body);
        if (response.status === 204) return { status: 204 };
        const type = response.headers.get('content-type') ?? '';
        return type.includes('json') ? { status: response.status, json: await response.json() } : { status: response.status, text: await response.text() };
      } catch (error) {
        if (error instanceof ControlError) {
          throw new ControlRefusal(
            (error.problem as (Schemas['Problem'] & Record<string, unknown>) | undefined) ?? problem(error.status, 'unexpected_answer', `The control plane answered ${error.status} without a problem.`),
          );
        }
        throw unreachable(base, error);
      }
    },
    defaultClientId() {
      defaultId ??= port.call({ operationId: 'listClients' }).then(({ json }) => {
        const rows = (json as Schemas['ClientList']).data;
        return (rows.find((row) => row.default) ?? rows[0])!.client_id;
      });
      defaultId.catch(() => (defaultId = undefined));
      return defaultId;
    },
    async token(clientId, scope) {
      const client = await credentialsOf(port, clientId);
      const request = tokenRequestOf(client, scope, new URL(base).host);
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (request.authorization) headers.authorization = request.authorization;
      const response = await fetch(`${base}/oauth2/token`, { method: 'POST', headers, body: new URLSearchParams(request.body) }).catch((error: unknown) => {
        throw unreachable(base, error);
      });
      const answer = (await response.json()) as Schemas['TokenResponse'] & { error?: string; error_description?: string };
      if (!response.ok) throw new ControlRefusal(problem(response.status, answer.error ?? 'token_refused', answer.error_description ?? `The token endpoint answered ${response.status}.`));
      return answer;
    },
  };
  return port;
}
