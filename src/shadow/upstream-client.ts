import http from 'node:http';
import https from 'node:https';
import { trustedCertificates } from './trust.js';

/** What the upstream answered: its status, its headers as they came (raw names and order), its body's bytes. */
export interface UpstreamAnswer {
  status: number;
  statusMessage: string;
  /** Name, value, name, value… as received. */
  rawHeaders: string[];
  /** The body's bytes as they came, never joined here (a 7 MB copy per answer, several arriving at once). */
  chunks: Buffer[];
  /** The body's length in bytes. */
  size: number;
}

interface UpstreamRequest {
  method: string;
  /** Path and query, as the client sent them. */
  url: string;
  headers: [string, string][];
  body: Buffer;
}

/** Why the upstream could not be used: the client gets a 502 `upstream_unreachable` naming it. */
export class UpstreamUnreachable extends Error {
  override name = 'UpstreamUnreachable';
}

export interface UpstreamClient {
  readonly base: URL;
  send(request: UpstreamRequest): Promise<UpstreamAnswer>;
  /** Closes the kept-alive sockets. */
  close(): void;
}

/** The most an upstream's answer may hold: a bigger one is cut and refused, never buffered whole. */
const MAX_UPSTREAM_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * Node's own HTTP client with a keep-alive agent. Not fetch: fetch decodes `Content-Encoding` and so would not hand
 * the client the upstream's bytes. One timer bounds the whole exchange (connect, headers, body); the answer's body is
 * counted as it streams in and refused past its limit.
 */
export function upstreamClient(
  baseUrl: string,
  { timeoutMs, maxAnswerBytes = MAX_UPSTREAM_ANSWER_BYTES }: { timeoutMs: number; maxAnswerBytes?: number },
): UpstreamClient {
  const base = new URL(baseUrl);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: 128, ca: trustedCertificates() })
    : new http.Agent({ keepAlive: true, maxSockets: 128 });
  const request = secure ? https.request : http.request;
  // a base URL with a path (https://host/api) prefixes every forwarded path
  const prefix = base.pathname.replace(/\/$/, '');
  return {
    base,
    close: () => agent.destroy(),
    send: ({ method, url, headers, body }) =>
      new Promise<UpstreamAnswer>((resolve, reject) => {
        let done = false;
        const fail = (why: string): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          outgoing.destroy();
          reject(new UpstreamUnreachable(why));
        };
        const outgoing = request(
          {
            protocol: base.protocol,
            hostname: base.hostname,
            port: base.port,
            method,
            path: `${prefix}${url}`,
            headers: headers.flat(),
            agent,
          },
          (answer) => {
            const chunks: Buffer[] = [];
            let size = 0;
            answer.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > maxAnswerBytes) return fail(`the upstream's answer is over ${maxAnswerBytes} bytes`);
              chunks.push(chunk);
            });
            answer.on('error', (error) => fail(`the upstream's answer broke off (${error.message})`));
            answer.on('aborted', () => fail("the upstream's answer broke off"));
            answer.on('end', () => {
              if (done) return;
              done = true;
              clearTimeout(timer);
              resolve({
                status: answer.statusCode ?? 0,
                statusMessage: answer.statusMessage ?? '',
                rawHeaders: answer.rawHeaders,
                chunks,
                size,
              });
            });
          },
        );
        const timer = setTimeout(() => fail(`the upstream did not answer within ${timeoutMs} ms`), timeoutMs);
        outgoing.on('error', (error: NodeJS.ErrnoException) =>
          fail(`the upstream at ${base.origin} cannot be reached (${error.code ?? error.message})`),
        );
        outgoing.end(body);
      }),
  };
}
