import type { RequestHandler } from 'express';
import type { FakeContext } from '../context.js';
import type { OperationHandlers } from '../http/operation.js';

/**
 * `/__control/mcp` (sessions.ts), mounted behind the control guard. The MCP SDK and the tools are loaded on the
 * endpoint's first request: a fake that is never asked for them starts as fast as before.
 */
export function mcpEndpoint(ctx: FakeContext, handlers: OperationHandlers): RequestHandler {
  let sessions: Promise<RequestHandler> | undefined;
  return async (req, res, next) => {
    if (req.path !== '/') return next();
    sessions ??= import('./sessions.js').then(({ mcpSessions }) => mcpSessions(ctx, handlers));
    await (await sessions)(req, res, next);
  };
}
