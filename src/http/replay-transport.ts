import { IncomingMessage, ServerResponse, type RequestListener } from 'node:http';
import { Socket } from 'node:net';
import { documentNumber } from '../api/document.js';

const REPLAY = Symbol('investment-api-fake.twin-replay');

/** A request the twin replays: it goes the fake's whole way, but is neither forwarded again nor journaled. */
export const isTwinReplay = (req: IncomingMessage): boolean =>
  (req as IncomingMessage & { [REPLAY]?: true })[REPLAY] === true;

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
 * The twin's way into the fake's one request pipeline: Node's own request and response objects handed to the same
 * app, as its server hands them over, without a socket (a socket's writes were most of a replay's cost). The answer
 * is what the app ends the response with. A replay is marked on its request object, so nothing can forge the mark.
 */
export function replayTransport(app: RequestListener): ReplayTransport {
  // past an injected fault's longest latency: a replay the app never ends does not hold up the comparisons after it
  const timeoutMs = documentNumber('/components/schemas/FaultCreate/properties/latency_ms/maximum') + 5_000;
  return {
    send: ({ method, url, headers, body }) =>
      new Promise<ReplayAnswer>((resolveOnce, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the twin did not answer within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        timer.unref();
        const resolve = (answer: ReplayAnswer): void => {
          clearTimeout(timer);
          resolveOnce(answer);
        };
        // an unconnected socket: what the pipeline reads of one (its address, whether it is encrypted) says "local"
        const socket = new Socket();
        const req = new IncomingMessage(socket);
        const all = { ...headers, ...(body.length > 0 && { 'content-length': String(body.length) }) };
        req.method = method;
        req.url = url;
        req.httpVersion = '1.1';
        req.httpVersionMajor = 1;
        req.httpVersionMinor = 1;
        req.headers = Object.fromEntries(Object.entries(all).map(([k, v]) => [k.toLowerCase(), v]));
        req.rawHeaders = Object.entries(all).flat();
        (req as IncomingMessage & { [REPLAY]?: true })[REPLAY] = true;
        if (body.length > 0 && method !== 'HEAD') req.push(body);
        req.push(null);
        req.complete = true;
        const res = new ServerResponse(req);
        const chunks: Buffer[] = [];
        const keep = (chunk: unknown, encoding: unknown): void => {
          if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
          chunks.push(
            Buffer.isBuffer(chunk)
              ? chunk
              : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
          );
        };
        // own properties: Express sets its own prototype on the response, and these stay
        res.write = ((chunk: unknown, encoding?: unknown, done?: unknown) => {
          keep(chunk, encoding);
          const callback = [encoding, done].find((a) => typeof a === 'function') as (() => void) | undefined;
          callback?.();
          return true;
        }) as ServerResponse['write'];
        res.end = ((chunk?: unknown, encoding?: unknown, done?: unknown) => {
          keep(chunk, encoding);
          if (!res.headersSent) res.writeHead(res.statusCode);
          const type = res.getHeader('content-type');
          resolve({
            status: res.statusCode,
            body: Buffer.concat(chunks),
            contentType: typeof type === 'string' ? type : undefined,
          });
          const callback = [chunk, encoding, done].find((a) => typeof a === 'function') as (() => void) | undefined;
          callback?.();
          // what waits for the answer to go out (the pipeline's settle steps) hears it did
          res.emit('finish');
          res.emit('close');
          socket.destroy();
          return res;
        }) as ServerResponse['end'];
        // a connection the pipeline drops (an injected fault on the twin's tenant) answers nothing: status 0
        const dropped = (): void => resolve({ status: 0, body: Buffer.alloc(0), contentType: undefined });
        res.destroy = ((): ServerResponse => {
          dropped();
          return res;
        }) as ServerResponse['destroy'];
        socket.once('close', dropped);
        try {
          app(req, res);
        } catch (error) {
          reject(error);
        }
      }),
    close: async () => undefined,
  };
}
