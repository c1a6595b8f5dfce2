import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';
import { bodyParsers } from '../http/body.js';
import { baseUrlOf } from '../http/request-context.js';
import { stateOf } from '../http/request-state.js';
import { packageVersion } from '../package-info.js';
import { releaseAnsweredStreams } from './answered-streams.js';
import { inProcessPort, type Caller } from './in-process.js';
import { createMcpServer } from './server.js';
import { SessionBook } from './session-book.js';

/**
 * Sessions one owner (the operator, or one partner) keeps at most: a new one past that closes the owner's own least
 * recently used. The instance keeps at most MAX_MCP_SESSIONS, all owners together (session-book.ts).
 */
export const MAX_MCP_SESSIONS_PER_OWNER = 100;
export const MAX_MCP_SESSIONS = 500;

interface Session {
  transport: StreamableHTTPServerTransport;
  /** The caller as the session's latest request presented itself (the control guard let it through). */
  caller: Caller;
}

/** What the control plane reads of a request's caller, for the tools' calls made on its behalf. */
function callerOf(req: Request, ctx: FakeContext): Caller {
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'host', 'x-forwarded-proto']) {
    const value = req.get(name);
    if (value !== undefined) headers[name] = value;
  }
  return { baseUrl: baseUrlOf(req, ctx), headers };
}

/** Who opens a session (`operator`, or `partner:<client_id>`): only that caller may use it, and its caps are its own. */
const ownerOf = (partner: Tenant | undefined): string => (partner ? `partner:${partner.client.client_id}` : 'operator');

/** A JSON-RPC error as the SDK's transport answers one (no request id: it could not be read). */
function rpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * `/__control/mcp`: the MCP tools over Streamable HTTP, mounted behind the control plane's guard, so the Host rule,
 * the Origin rule (DNS rebinding, cross-site pages), the JSON-only body and the token (the operator's, or a partner's
 * with the scope `control`) are the control plane's. Stateful, as the transport's session rules say: `initialize`
 * opens a session (`Mcp-Session-Id`), later requests carry it (none → 400, an unknown one → 404), `DELETE` ends it.
 * A session belongs to whoever opened it: another caller presenting its id gets 404, so a partner's tools act on its
 * own tenant only, through the control plane, which confines it (in-process.ts).
 */
export function mcpSessions(ctx: FakeContext, app: RequestListener): RequestHandler {
  const sessions = new SessionBook<Session>(
    { perOwner: MAX_MCP_SESSIONS_PER_OWNER, total: MAX_MCP_SESSIONS },
    (session) => void session.transport.close(),
  );
  // a partner's sessions go with its client (DELETE /__control/clients/{client_id})
  ctx.tenants.onRemove((tenant) => sessions.closeOwner(ownerOf(tenant)));
  const [json] = bodyParsers();
  // the server is the package (as the stdio server is); the document's info.version is the API's
  const version = packageVersion();

  const open = async (
    caller: Caller,
    owner: string,
    place: { release(): void },
  ): Promise<StreamableHTTPServerTransport> => {
    const server = createMcpServer(ctx.api.document, inProcessPort(ctx.api.document, app, caller), {
      version,
      url: caller.baseUrl,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => sessions.add(id, owner, { transport, caller }, place),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
      void server.close().catch(() => undefined);
    };
    await server.connect(transport);
    return transport;
  };

  const readBody = (req: Request, res: Response): Promise<void> =>
    new Promise((resolve, reject) =>
      json!(req, res, (error?: unknown) => (error === undefined ? resolve() : reject(error))),
    );

  return async (req, res) => {
    const caller = callerOf(req, ctx);
    if (req.method === 'POST') await readBody(req, res);
    const id = req.get('mcp-session-id');
    let transport: StreamableHTTPServerTransport;
    const owner = ownerOf(stateOf(req).controlPartner);
    if (id !== undefined) {
      // now its owner's most recently used; another owner's session is as unknown as a closed one
      const session = sessions.use(id, owner);
      if (!session) return rpcError(res, 404, 'Session not found: initialize a new one.');
      // the caller as this request presents itself (a partner's renewed token)
      Object.assign(session.caller, caller);
      transport = session.transport;
    } else if (req.method === 'POST' && isInitializeRequest(req.body)) {
      const place = sessions.reserve(owner);
      if (!place)
        return rpcError(
          res,
          409,
          `limit_reached: this instance keeps ${MAX_MCP_SESSIONS} MCP sessions, every owner's together, and holds that many, none of them yours: try again once others have closed theirs (DELETE with their Mcp-Session-Id).`,
        );
      try {
        transport = await open(caller, owner, place);
        await transport.handleRequest(req, res, req.body);
        releaseAnsweredStreams(transport);
      } finally {
        place.release();
      }
      // an initialize the transport refused (its Accept header, a second one in a batch…) opened no session
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await transport.close();
      return;
    } else {
      return rpcError(res, 400, 'Bad Request: no valid session (send initialize first, then its Mcp-Session-Id).');
    }
    await transport.handleRequest(req, res, req.body);
    releaseAnsweredStreams(transport);
  };
}
