import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Schemas } from '../../src/api/types.js';
import { packageVersion } from '../../src/package-info.js';
import { CLI, cleanEnv, exitOf, killLaunched, launch } from '../support/cli.js';
import { exerciseEveryTool, expectSchemaRefusals, expectTheTools, ok, refused } from '../support/mcp.js';

// `investment-api-fake mcp` (docs/mcp.md): the built CLI as an MCP server over stdio, driven by the SDK's own client.
afterAll(killLaunched);

/** The SDK's client on a spawned `investment-api-fake mcp …`; its stderr kept. */
async function stdioClient(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { ...(cleanEnv as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

// each test spawns the CLI (and a fake or two): more than the default 20 s on a loaded machine
describe('investment-api-fake mcp over stdio', { timeout: 60_000 }, () => {
  it('without --url starts a fake on an ephemeral port, names it in its instructions, and runs every tool over the control client', async () => {
    const { client, stderr } = await stdioClient([]);
    const url = /answers at (http:\/\/127\.0\.0\.1:\d+)/.exec(client.getInstructions() ?? '')?.[1];
    expect(url).toBeDefined();
    expect(stderr()).toContain(`started a fake at ${url}`);
    expect(client.getServerVersion()).toMatchObject({ name: 'investment-api-fake', version: packageVersion() });
    expect(await fetch(`${url}/__control/health`).then((r) => r.json())).toEqual({ status: 'ok' });
    await expectTheTools(client);
    await exerciseEveryTool(client, url!, 'mcp-stdio-tenant');
    await expectSchemaRefusals(client);
    await client.close();
    // its fake stops with it
    await expect(fetch(`${url}/__control/health`)).rejects.toThrow();
  });

  it('with --url drives a running fake, with CONTROL_TOKEN when it is guarded', async () => {
    const fake = await launch([], { CONTROL_TOKEN: 'stdio-ops' });
    const { client } = await stdioClient(['--url', fake.url], { CONTROL_TOKEN: 'stdio-ops' });
    expect(client.getInstructions()).toContain(fake.url);
    const moved = await ok<Schemas['Clock']>(client, 'set_clock', { at: '2030-06-01T00:00:00Z', frozen: true });
    const seen = await fetch(`${fake.url}/__control/clock`, { headers: { authorization: 'Bearer stdio-ops' } }).then(
      (r) => r.json(),
    );
    expect(seen).toEqual(moved.value);
    await ok(client, 'reset');
    await client.close();

    // FAKE_URL, without the token: every refusal is a tool error naming the problem code
    const unguarded = await stdioClient([], { FAKE_URL: fake.url });
    await refused(unguarded.client, 'get_clock', {}, /^invalid_control_token \(401\): /);
    await unguarded.client.close();
  });

  it('with --client-id and --client-secret acts as a partner: its own tenant only', async () => {
    const clients = [
      { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
      { client_id: 'acme', client_secret: 'acme-secret', scopes: ['read:accounts', 'control'] },
    ];
    const fake = await launch([], { CONTROL_TOKEN: 'stdio-ops', CLIENTS: JSON.stringify(clients) });
    const { client } = await stdioClient(['--url', fake.url, '--client-id', 'acme', '--client-secret', 'acme-secret']);
    const state = await ok<{ client: { client_id: string } }>(client, 'get_state');
    expect(state.value.client.client_id).toBe('acme');
    expect((await ok<Schemas['ClientList']>(client, 'list_clients')).value.data.map((c) => c.client_id)).toEqual([
      'acme',
    ]);
    await refused(client, 'get_clock', { client_id: 'sandbox-client' }, /^forbidden_tenant \(403\): /);
    await refused(client, 'create_client', { client_id: 'x', client_secret: 'y' }, /^operator_only \(403\): /);
    await client.close();
  });

  it('writes nothing but protocol messages to stdout, logs to stderr, and exits 0 when its client closes stdin', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp'], { env: cleanEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_clock', arguments: {} } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'readiness_report', arguments: {} } });
    const deadline = Date.now() + 20_000;
    while (!stdout.includes('"id":3') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const exited = exitOf(child);
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBe(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[1]!).result.structuredContent).toMatchObject({ frozen: false });
    expect(stderr).toMatch(/started a fake at http:\/\/127\.0\.0\.1:\d+/);
  });

  it('refuses a bad --url or a flag the fake does not know, on stderr, with a non-zero exit', async () => {
    for (const args of [['--url', 'not a url'], ['--no-such-flag']]) {
      const child = spawn(process.execPath, [CLI, 'mcp', ...args], { env: cleanEnv, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      expect(await exitOf(child)).not.toBe(0);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/url|flag|option/i);
    }
  });
});
