import { decodeFormAsSent } from '../api/form-urlencoded.js';

/** RFC 9110 §7.6.1: headers that concern one connection, never forwarded (with those `Connection` names). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Name/value pairs of raw headers (`rawHeaders`), less hop-by-hop ones, `Host` and `Content-Length` (set anew). */
function endToEnd(rawHeaders: readonly string[]): [string, string][] {
  const named = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'connection')
      for (const name of rawHeaders[i + 1]!.split(',')) named.add(name.trim().toLowerCase());
  }
  const kept: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || lower === 'host' || lower === 'content-length') continue;
    kept.push([name, rawHeaders[i + 1]!]);
  }
  return kept;
}

/**
 * The client's headers as the upstream gets them: its own `Host`, the body's length, no hop-by-hop header, and no
 * `Expect: 100-continue` (the fake answered it, and has the whole body to send).
 */
export function forwardedRequestHeaders(
  rawHeaders: readonly string[],
  upstreamHost: string,
  bodyLength: number,
  hadBody: boolean,
): [string, string][] {
  return [
    ['Host', upstreamHost],
    ...endToEnd(rawHeaders).filter(([name]) => name.toLowerCase() !== 'expect'),
    ...(hadBody || bodyLength > 0 ? ([['Content-Length', String(bodyLength)]] as [string, string][]) : []),
  ];
}

/**
 * The upstream's headers as the client gets them: every end-to-end header as it came, the length of the body sent
 * (the upstream's own for an answer to HEAD, which has no body but says how long the GET's would be).
 */
export function answerHeaders(rawHeaders: readonly string[], bodyLength: number, head = false): string[] {
  const kept = endToEnd(rawHeaders).flat();
  if (!head) return [...kept, 'Content-Length', String(bodyLength)];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === 'content-length') return [...kept, 'Content-Length', rawHeaders[i + 1]!];
  return kept;
}

/**
 * A token request's body with its `audience` rewritten from the fake's own host to the upstream's (its `hostname`
 * when the client named the fake's hostname): the one field changed, every other byte as the client sent it.
 */
export function rewriteAudience(body: Buffer, own: { host: string; hostname: string }, upstream: URL): Buffer {
  const text = body.toString('latin1');
  let changed = false;
  const pairs = text.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (decodeFormAsSent(name) !== 'audience') return pair;
    const value = decodeFormAsSent(eq < 0 ? '' : pair.slice(eq + 1)).toLowerCase();
    const to =
      value === own.host.toLowerCase()
        ? upstream.host
        : value === own.hostname.toLowerCase()
          ? upstream.hostname
          : undefined;
    if (to === undefined) return pair;
    changed = true;
    return `${name}=${encodeURIComponent(to)}`;
  });
  return changed ? Buffer.from(pairs.join('&'), 'latin1') : body;
}
