import { describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { releaseAnsweredStreams } from '../../src/mcp/answered-streams.js';

/** The Node transport's web-standard core, which keeps the entries (the SDK's internals, as the shim reads them). */
type Core = { handleRequest(request: Request): Promise<Response>; _streamMapping: Map<string, unknown> };

async function sessionWithAnswers(count: number) {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => 'session',
    enableJsonResponse: true,
  });
  const server = new McpServer({ name: 'probe', version: '1' });
  server.registerTool('echo', { description: 'echo' }, async () => ({
    content: [{ type: 'text', text: 'x'.repeat(10_000) }],
  }));
  await server.connect(transport);
  const core = (transport as unknown as { _webStandardTransport: Core })._webStandardTransport;
  const post = async (body: unknown) => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': 'session',
      'mcp-protocol-version': '2025-06-18',
    };
    const response = await core.handleRequest(
      new Request('http://fake.test/__control/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
    );
    expect(response.status).toBe(200);
    await response.text();
  };
  await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  for (let id = 1; id <= count; id++)
    await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
  return { transport, core };
}

describe('an MCP session’s answered requests', () => {
  it('are let go after each request: a session keeps no entry per answer it gave (typescript-sdk#2559)', async () => {
    const { transport, core } = await sessionWithAnswers(5);
    releaseAnsweredStreams(transport);
    expect(core._streamMapping.size).toBe(0);
    await transport.close();
  });

  it('a request still waited on keeps its entry', async () => {
    const { transport, core } = await sessionWithAnswers(1);
    const waiting = { resolveJson: () => undefined, cleanup: () => undefined };
    core._streamMapping.set('in-flight', waiting);
    (core as unknown as { _requestToStreamMapping: Map<number, string> })._requestToStreamMapping.set(99, 'in-flight');
    releaseAnsweredStreams(transport);
    expect([...core._streamMapping.keys()]).toEqual(['in-flight']);
  });

  it('are left alone when the transport is not shaped as known', () => {
    expect(() => releaseAnsweredStreams({} as StreamableHTTPServerTransport)).not.toThrow();
  });
});
