import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cleanEnv } from '../support/cli.js';
import { TOOL_NAMES } from '../support/mcp.js';

// A foreign MCP client: the MCP Inspector 2.x in CLI mode (`mcp-inspector --cli <command> --method …`) against
// `investment-api-fake mcp` over stdio. It needs Node ≥ 22.19, so .ci/run installs it beside an official Node 24
// binary (both from the npm registry) and names them in MCP_INSPECTOR_CLI and MCP_INSPECTOR_NODE. Locally the test
// is skipped without them; under CI=true it fails, never skips.
const inspectorCli = process.env.MCP_INSPECTOR_CLI;
const inspectorNode = process.env.MCP_INSPECTOR_NODE ?? process.execPath;
const available = inspectorCli !== undefined && existsSync(inspectorCli) && existsSync(inspectorNode);
const ci = process.env.CI === 'true';

function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const catalog = join(mkdtempSync(join(tmpdir(), 'mcp-inspector-')), 'mcp.json');
  return new Promise((resolve) => {
    execFile(
      inspectorNode,
      [inspectorCli!, '--cli', process.execPath, CLI, 'mcp', ...args],
      { env: { ...cleanEnv, MCP_CATALOG_PATH: catalog }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the MCP Inspector (CLI mode) against investment-api-fake mcp', () => {
  it('is installed where CI runs it', () => {
    if (ci)
      expect(
        available,
        'MCP_INSPECTOR_CLI and MCP_INSPECTOR_NODE must name the Inspector 2.x and a Node ≥ 22.19 (.ci/run installs them)',
      ).toBe(true);
  });

  // each call starts the Inspector (Node 24), which starts investment-api-fake mcp, which starts a fake
  it.skipIf(!available && !ci)('lists the 22 tools', { timeout: 90_000 }, async () => {
    const { code, stdout, stderr } = await inspector(['--method', 'tools/list']);
    expect(code, stderr).toBe(0);
    const { tools } = JSON.parse(stdout) as {
      tools: { name: string; inputSchema: { properties: Record<string, unknown> } }[];
    };
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect(stderr).toMatch(/Schema portability: 0 errors/);
  });

  it.skipIf(!available && !ci)(
    'calls set_clock and get_order (a refusal naming its code)',
    { timeout: 90_000 },
    async () => {
      const [moved, missing] = await Promise.all([
        inspector(['--method', 'tools/call', '--tool-name', 'set_clock', '--tool-arg', 'advance_seconds=86400']),
        inspector([
          '--method',
          'tools/call',
          '--tool-name',
          'get_order',
          '--tool-arg',
          'order_id=00000000-0000-4000-8000-000000000000',
        ]),
      ]);
      expect(moved.code, moved.stderr).toBe(0);
      const result = JSON.parse(moved.stdout) as { structuredContent: { now: string; frozen: boolean } };
      expect(Date.parse(result.structuredContent.now) - Date.now()).toBeGreaterThan(86_000_000);
      // the tool result is printed as it came, then the Inspector says it was an error
      expect(missing.stdout).toMatch(/"isError": true/);
      expect(missing.stdout).toMatch(/"text": "not_found \(404\): /);
    },
  );
});
