import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiDocument } from '../api/document.js';
import { ControlRefusal, type ControlPort } from './port.js';
import { refusalText } from './render.js';
import { carrier } from './schemas.js';
import type { ToolDefinition } from './operation-tool.js';
import { toolsOf } from './tools.js';

const MCP_SERVER_NAME = 'investment-api-fake';

const INSTRUCTIONS = [
  'Drives the investment-api-fake sandbox through its control plane: tenants (one per OAuth client), their worlds,',
  'clocks and orders, injected faults, the journal of what a client sent, proof (verify) and the readiness report.',
  'Every tool takes an optional client_id (the tenant; the default client when absent). A refusal is a tool error',
  'naming the problem code. Start with get_state or list_clients; reset before reproducing a scenario.',
].join(' ');

/** The server's instructions, naming the fake it drives when it knows where it is. */
const instructionsFor = (url: string | undefined): string =>
  url === undefined
    ? INSTRUCTIONS
    : `${INSTRUCTIONS} The fake this server drives answers at ${url} (its API, /docs and the console at /console/).`;

type Carriers = { inputSchema: ReturnType<typeof carrier>; outputSchema?: ReturnType<typeof carrier> };
const carriers = new WeakMap<ToolDefinition, Carriers>();

/**
 * A tool's schemas as the SDK takes them, made once per tool and shared by every session's server (zod schemas do
 * not change once made): made per session, they were most of what an open session weighed (bench/mcp-sessions.mjs).
 */
function carriersOf(tool: ToolDefinition): Carriers {
  let made = carriers.get(tool);
  if (!made)
    carriers.set(
      tool,
      (made = {
        inputSchema: carrier(tool.input.schema, tool.input.check),
        ...(tool.output && { outputSchema: carrier(tool.output) }),
      }),
    );
  return made;
}

const refused = (error: ControlRefusal): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: refusalText(error.problem) }],
});

/**
 * An MCP server (the SDK's McpServer) with the 22 tools over one control port. Unknown tools and arguments that break
 * a tool's schema are answered by the SDK as it answers them; a control-plane refusal is a tool error naming its code.
 */
export function createMcpServer(
  document: ApiDocument,
  port: ControlPort,
  options: { version: string; url?: string },
): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: 'investment-api-fake sandbox', version: options.version },
    { instructions: instructionsFor(options.url) },
  );
  for (const tool of toolsOf(document)) {
    server.registerTool(
      tool.name,
      {
        title: tool.annotations.title,
        description: tool.description,
        ...carriersOf(tool),
        annotations: tool.annotations,
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const result = await tool.run(args, port);
          return {
            content: [{ type: 'text', text: result.text }],
            ...(result.structured && { structuredContent: result.structured }),
          };
        } catch (error) {
          if (error instanceof ControlRefusal) return refused(error);
          throw error;
        }
      },
    );
  }
  return server;
}
