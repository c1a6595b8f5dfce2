import { operationsById, type ApiDocument } from '../api/document.js';
import type { OperationId, Schemas } from '../api/types.js';
import { ControlError, createControlClient, tokenRequestOf, type ControlClientOptions } from '../control-client.js';
import { problem } from '../http/problem.js';

/**
 * What the MCP tools stand on: one control-plane operation called by its operationId, through the typed control
 * client: over the network (the stdio server, against a fake it started or one `--url` names), or into the fake's own
 * app in its process (the `/__control/mcp` endpoint, in-process.ts). The tools never reach past it: every rule, every
 * refusal and a partner's confinement to its tenant are the control plane's, as it answers any HTTP caller.
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
interface ControlAnswer {
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
  /** The fake's base URL as the tools address it: its tokens' issuer, and the only host they are valid at. */
  readonly baseUrl: string;
}

type ClientRow = Schemas['ClientList']['data'][number];

async function credentialsOf(port: ControlPort, clientId: string): Promise<ClientRow> {
  const { json } = await port.call({ operationId: 'listClients', clientId });
  const row = (json as Schemas['ClientList']).data.find((client) => client.client_id === clientId);
  if (!row)
    throw new ControlRefusal(problem(404, 'client_not_found', `No client has client_id "${clientId.slice(0, 200)}".`));
  return row;
}

/** The fake did not answer at all (not running, a wrong --url): said so, as a refusal the agent can act on. */
const unreachable = (base: string, error: unknown): ControlRefusal => {
  const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
  return new ControlRefusal(
    problem(
      502,
      'fake_unreachable',
      `The fake at ${base} did not answer (${cause}): is it running, and is --url (FAKE_URL) its base URL?`,
    ),
  );
};

/**
 * The typed control client of a fake: at `url` over the network (`--url`, or the one the stdio server started), or
 * through `fetch` into its app (the MCP endpoint, addressed as its caller addressed it).
 */
export function clientPort(document: ApiDocument, options: Omit<ControlClientOptions, 'clientId'>): ControlPort {
  const base = options.url.replace(/\/$/, '');
  const send = options.fetch ?? fetch;
  const routes = operationsById(document);
  const client = createControlClient({ ...options, url: base });
  let defaultId: Promise<string> | undefined;

  const port: ControlPort = {
    baseUrl: base,
    async call({ operationId, path = {}, query = {}, body, clientId }) {
      const route = routes.get(operationId)!;
      const target = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''));
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(query))
        if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
      const relative = `${target.replace(/^\/__control/, '')}${search.size > 0 ? `?${search}` : ''}`;
      try {
        const response = await (clientId === undefined ? client : client.forClient(clientId)).send(
          route.method.toUpperCase(),
          relative,
          body,
        );
        if (response.status === 204) return { status: 204 };
        const type = response.headers.get('content-type') ?? '';
        return type.includes('json')
          ? { status: response.status, json: await response.json() }
          : { status: response.status, text: await response.text() };
      } catch (error) {
        if (error instanceof ControlError) {
          throw new ControlRefusal(
            (error.problem as (Schemas['Problem'] & Record<string, unknown>) | undefined) ??
              problem(
                error.status,
                'unexpected_answer',
                `The control plane answered ${error.status} without a problem.`,
              ),
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
      const request = tokenRequestOf(base, client.client_id, client.client_secret, {
        scope,
        authMethod: client.token_endpoint_auth_method,
      });
      const response = await send(request.url, request.init).catch((error: unknown) => {
        throw unreachable(base, error);
      });
      const answer = (await response.json()) as Schemas['TokenResponse'] & {
        error?: string;
        error_description?: string;
      };
      if (!response.ok)
        throw new ControlRefusal(
          problem(
            response.status,
            answer.error ?? 'token_refused',
            answer.error_description ?? `The token endpoint answered ${response.status}.`,
          ),
        );
      return answer;
    },
  };
  return port;
}
