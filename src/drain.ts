import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** A listening server that can stop without cutting answers short. */
export type DrainableServer = Server & {
  /**
   * Stops accepting; closes idle keep-alive connections at once; answers the requests in flight, each with
   * `Connection: close` so its connection ends with it; after `graceMs` closes whatever is left. Safe to call twice.
   */
  drain(graceMs: number): Promise<void>;
};

/**
 * Keep-alive clients hold connections open between requests, so `server.close()` alone waits for them to time out
 * (5 s in Node): the server tracks its answers in flight to end each connection as soon as its answer is done.
 */
export function drainable(server: Server): DrainableServer {
  const inFlight = new Set<ServerResponse>();
  let draining: Promise<void> | undefined;

  const closeWhenDone = (res: ServerResponse): void => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };

  // First among the listeners, so the header is set before the app can answer.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (draining) closeWhenDone(res);
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      // an answer already under way when draining started went out keep-alive: its connection is idle now
      if (draining) server.closeIdleConnections();
    });
  });

  return Object.assign(server, {
    drain(graceMs: number): Promise<void> {
      draining ??= new Promise<void>((resolve) => {
        const forced = setTimeout(() => server.closeAllConnections(), graceMs);
        forced.unref();
        server.close(() => {
          clearTimeout(forced);
          resolve();
        });
        for (const res of inFlight) closeWhenDone(res);
        server.closeIdleConnections();
      });
      return draining;
    },
  });
}
