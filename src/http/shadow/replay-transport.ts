import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, RequestListener } from 'node:http';

const REPLAY = Symbol('investment-api-fake.twin-replay');

/** A request the twin replays: it goes the fake's whole way, but is neither forwarded again nor journaled. */
export const isTwinReplay = (req: IncomingMessage): boolean => (req as IncomingMessage & { [REPLAY]?: true })[REPLAY] === true;

export interface ReplayAnswer {
  status: number;
  body: Buffer;
  contentType: string | undefined;
}

export interface ReplayTransport {
  send(request: { method: string; url: string; headers: Record<string, string>; body: Buffer }): Promise<ReplayAnswer>;
  close(): Promise<void>;
}

/**
 * The twin's way into the fake's one request pipeline: the same app, over a loopback socket of its own (opened on the
 * first replay), so that a replay is parsed, routed, authenticated, validated and answered exactly as a client's
 * request is. Requests arriving on it are marked as replays; nothing else can reach it, so nothing can forge the mark.
 */
export function replayTransport(app: RequestListener): ReplayTransport {
  let listening: Promise<{ server: http.Server; port: number }> | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const open = (): Promise<{ server: http.Server; port: number }> =>
    (listening ??= new Promise((resolve, reject) => {
      const server = http.createServer((req, res) => {
        (req as IncomingMessage & { [REPLAY]?: true })[REPLAY] = true;
        app(req, res);
      });
      server.once('error', reject);
      // never keeps a process alive that would otherwise end
      server.unref();
      server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }));
    }));
  return {
    async send({ method, url, headers, body }) {
      const { port } = await open();
      return new Promise<ReplayAnswer>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port, method, path: url, headers: { ...headers, ...(body.length > 0 && { 'content-length': String(body.length) }) }, agent }, (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('error', reject);
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks), contentType: answer.headers['content-type'] }));
        });
        request.on('error', reject);
        request.end(method === 'HEAD' || body.length === 0 ? undefined : body);
      });
    },
    async close() {
      agent.destroy();
      if (!listening) return;
      const { server } = await listening;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
