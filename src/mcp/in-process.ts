import type { RequestListener } from 'node:http';
import type { ApiDocument } from '../api/document.js';
import type { Fetch } from '../control-client.js';
import { replayTransport } from '../http/replay-transport.js';
import { clientPort, type ControlPort } from './port.js';

/** The caller of an MCP request, as the control plane reads one. */
export interface Caller {
  /** Its public base URL (BASE_URL, else its scheme and Host): the address its tools' calls are made to. */
  baseUrl: string;
  /** `Authorization` (the operator's token, a partner's own, or none), `Host` and `X-Forwarded-Proto`, as it sent them. */
  headers: Record<string, string>;
}

/**
 * `fetch` into the fake's own app, in this process, as shadow mode's twin replays reach it (replay-transport.ts):
 * each call goes the one pipeline, guard, route, validation, handler and error writer, as a request over HTTP would.
 * Marked as the twin's replays are, a call is neither journaled nor forwarded upstream (a tool's token request is the
 * agent's, not the client's traffic). Each call is addressed as the caller addressed the fake (so a partner's token,
 * issued for that address, is verified as it was), and each control call carries the caller's `Authorization`: the
 * guard finds the operator or confines the partner, as it did for the MCP request; a token request proves its own
 * client.
 */
function appFetch(app: RequestListener, base: string, caller: () => Caller): Fetch {
  const transport = replayTransport(app);
  return async (url, init) => {
    if (!url.startsWith(`${base}/`)) throw new TypeError(`${url} is not on ${base}`);
    const target = url.slice(base.length);
    const { authorization, ...address } = caller().headers;
    const headers: Record<string, string> = { ...Object.fromEntries(new Headers(init.headers)), ...address };
    if (authorization !== undefined && target.startsWith('/__control/')) headers.authorization = authorization;
    const body =
      init.body === undefined || init.body === null
        ? Buffer.alloc(0)
        : Buffer.from(String(init.body as string | URLSearchParams));
    const method = init.method ?? 'GET';
    const answer = await transport.send({ method, url: target, headers, body });
    // as fetch says of a connection that closed without an answer (an injected fault on the token endpoint)
    if (answer.status === 0)
      throw new TypeError('fetch failed', { cause: new Error('the fake closed the connection without an answer') });
    const empty = answer.status === 204 || answer.status === 304 || method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(answer.body), {
      status: answer.status,
      headers: answer.contentType === undefined ? {} : { 'content-type': answer.contentType },
    });
  };
}

/**
 * The tools' port at `/__control/mcp`: the typed control client into the app (`appFetch`), for the session's caller
 * as its latest request proves it, addressed as that request was.
 */
export function inProcessPort(document: ApiDocument, app: RequestListener, caller: Caller): ControlPort {
  let current: { baseUrl: string; port: ControlPort } | undefined;
  const port = (): ControlPort => {
    const base = caller.baseUrl.replace(/\/$/, '');
    if (current?.baseUrl !== base)
      current = { baseUrl: base, port: clientPort(document, { url: base, fetch: appFetch(app, base, () => caller) }) };
    return current.port;
  };
  return {
    call: (request) => port().call(request),
    defaultClientId: () => port().defaultClientId(),
    token: (clientId, scope) => port().token(clientId, scope),
    get baseUrl() {
      return port().baseUrl;
    },
  };
}
