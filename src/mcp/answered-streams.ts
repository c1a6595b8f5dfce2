import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

interface JsonStreams {
  _streamMapping: Map<unknown, { resolveJson?: unknown }>;
  _requestToStreamMapping: Map<unknown, unknown>;
}

const isJsonStreams = (value: unknown): value is JsonStreams =>
  typeof value === 'object' &&
  value !== null &&
  (value as JsonStreams)._streamMapping instanceof Map &&
  (value as JsonStreams)._requestToStreamMapping instanceof Map;

/**
 * The SDK's Streamable HTTP transport (1.x, 1.32 included) keeps an entry for every POST it answered in JSON
 * response mode (modelcontextprotocol/typescript-sdk#2559: the answer is resolved, the entry's cleanup never runs),
 * and the entry holds the answer: an open session grew by every answer it gave. After each request, the entries no
 * request waits on any more are let go. This reads the transport's internals, so it checks their shape first and
 * steps aside when they differ (an SDK that cleans up after itself needs nothing).
 */
export function releaseAnsweredStreams(transport: StreamableHTTPServerTransport): void {
  const inner = (transport as unknown as { _webStandardTransport?: unknown })._webStandardTransport;
  if (!isJsonStreams(inner)) return;
  const waitedOn = new Set(inner._requestToStreamMapping.values());
  for (const [id, stream] of inner._streamMapping) {
    if (typeof stream?.resolveJson === 'function' && !waitedOn.has(id)) inner._streamMapping.delete(id);
  }
}
