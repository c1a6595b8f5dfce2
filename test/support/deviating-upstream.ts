import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../../src/index.js';

export type Transform = (
  request: { method: string; path: string; headers: http.IncomingHttpHeaders; body: string },
  answer: { status: number; body: unknown },
) =>
  | { status: number; body: unknown; raw?: string; contentType?: string; headers?: Record<string, string> }
  | undefined;

/**
 * An upstream that deviates: a small HTTP server in front of a real fake that hands requests on as they are and
 * alters the answers `transform` picks (status, body, or raw bytes), as a real service that moved away from the
 * fake would. Answers `{ url, close }`.
 */
export async function deviatingUpstream(
  target: string,
  transform: Transform,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
      ) as Record<string, string>;
      const body = Buffer.concat(chunks);
      // the fake behind checks the audience against its own host: the proxy is a host of its own, so it is told
      const forwarded =
        req.url === '/oauth2/token'
          ? Buffer.from(
              body.toString().replace(/audience=[^&]*/, `audience=${encodeURIComponent(new URL(target).host)}`),
            )
          : body;
      const response = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 && { body: forwarded }),
      });
      const text = await response.text();
      const contentType = response.headers.get('content-type') ?? 'application/json';
      const path = req.url!.split('?')[0]!;
      const altered = transform(
        { method: req.method!, path, headers: req.headers, body: body.toString() },
        { status: response.status, body: text === '' ? undefined : JSON.parse(text) },
      );
      if (!altered) {
        res.writeHead(response.status, { 'content-type': contentType });
        res.end(text);
        return;
      }
      res.writeHead(altered.status, { 'content-type': altered.contentType ?? contentType, ...altered.headers });
      res.end(altered.raw ?? (altered.body === undefined ? '' : JSON.stringify(altered.body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fake behind a deviating upstream and a fake in shadow mode in front of it, both of one seed; `stop` ends all three. */
export async function shadowOfDeviatingUpstream(transform: Transform, seed = 7) {
  const behind = await startServer({ seed });
  const upstream = await deviatingUpstream(behind.url, transform);
  const shadow = await startServer({ seed, upstream: upstream.url });
  const stop = async () => {
    await shadow.stop();
    await upstream.close();
    await behind.stop();
  };
  return { behind, upstreamUrl: upstream.url, shadow, stop };
}
