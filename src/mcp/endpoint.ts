import type { RequestListener } from 'node:http';
import type { RequestHandler } from 'express';
import type { FakeContext } from '../context.js';

/**
 * `/__control/mcp` (sessions.ts), mounted behind the control guard; its tools call the control plane through `app`,
 * the app it is mounted in (in-process.ts). The MCP SDK and the tools are loaded on the endpoint's first request: a
 * fake that is never asked for them starts as fast as before.
 */
export function mcpEndpoint(ctx: FakeContext, app: RequestListener): RequestHandler {
  let sessions: Promise<RequestHandler> | undefined;
  return async (req, res, next) => {
    if (req.path !== '/') return next();
    sessions ??= import('./sessions.js').then(({ mcpSessions }) => mcpSessions(ctx, app));
    await (await sessions)(req, res, next);
  };
}
