// Every code block of the README and the docs, run as its marker says (test/support/doc-pages.ts), from the package
// as a partner gets it: `npm pack`, installed into a fresh project with TypeScript (strict, skipLibCheck off), vitest
// (no config of its own) and what the block's page says to install. The TypeScript blocks are files of that project,
// type-checked together; the test files run under vitest; the shell sessions run in bash against the packed CLI;
// the commands that start the fake start it; the editor configuration of MCP connects as an editor does. The one
// change made to a block is the port: a free one for 8080 (and 8081).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, freePort, ROOT } from '../support/cli.js';
import { type DocBlock, docBlocks } from '../support/doc-pages.js';
import { pack, sh, type PackResult } from '../support/pack.js';
import { howItRuns, packagesImported } from '../support/snippets.js';

const blocks = docBlocks().map((block) => ({ ...block, how: howItRuns(block), where: `${block.page}:${block.line}` }));
type Block = (typeof blocks)[number];
const ofKind = (kind: string) => blocks.filter((block) => block.how.kind === kind);
/** The block's file in the partner's project: named after its page and line, a test file when it is one. */
const fileOf = (block: DocBlock) =>
  `${block.page.replace(/^docs\//, '').replace(/\.md$/, '')}-${block.line}${howItRuns(block).kind === 'test' ? '.test' : ''}.ts`;
const typescript = blocks.filter((block) => block.how.kind === 'test' || block.how.kind === 'module');

let work: string;
let project: string;
let packed: PackResult;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'snippets-'));
  packed = await pack(work);
  tarball = join(work, packed.filename);
  project = join(work, 'partner');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner', private: true, type: 'module' }));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        // each block is a file of its own, whether it imports anything or not
        moduleDetection: 'force',
        noEmit: true,
        types: ['node'],
      },
      include: ['*.ts'],
    }),
  );
  for (const block of typescript) writeFileSync(join(project, fileOf(block)), block.code);
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
    'dependencies' | 'devDependencies',
    Record<string, string>
  >;
  const versions = { ...manifest.dependencies, ...manifest.devDependencies };
  // what the pages say to install beside the package (the unit test holds each page to saying it)
  const extra = [...new Set(typescript.flatMap((block) => packagesImported(block.code)))];
  await sh(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      tarball,
      ...['typescript', 'vitest', '@types/node', ...extra].map((name) => `${name}@${versions[name]}`),
    ],
    project,
  );
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the TypeScript blocks', () => {
  it('are there: the suites a partner pastes, and the typed /v1 client', () => {
    expect(ofKind('test').length).toBeGreaterThanOrEqual(4);
    expect(ofKind('test').some((block) => block.code.includes('createClient<paths>'))).toBe(true);
    expect(ofKind('test').some((block) => block.code.includes("DELETE('/v1/orders/{order_id}/'"))).toBe(true);
  });

  it('type-check as written, strict and without skipLibCheck', async () => {
    const failed = await sh(
      process.execPath,
      [join(project, 'node_modules/typescript/bin/tsc'), '-p', project],
      project,
    )
      .then(() => '')
      .catch((error: Error) => error.message);
    expect(failed).toBe('');
  }, 300_000);

  it('that are test files pass under vitest, with no config', async () => {
    const results = join(work, 'results.json');
    await sh(
      process.execPath,
      // timeouts of a shared, loaded CI machine: the blocks are what is tested here, not its speed
      [
        join(project, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--testTimeout=60000',
        '--hookTimeout=60000',
        '--reporter=json',
        `--outputFile=${results}`,
      ],
      project,
    ).catch((error: Error) => error);
    const outcome = JSON.parse(readFileSync(results, 'utf8')) as {
      testResults: {
        name: string;
        status: string;
        message: string;
        assertionResults: { failureMessages: string[] }[];
      }[];
    };
    const byFile = Object.fromEntries(
      outcome.testResults.map((file) => [
        file.name.slice(project.length + 1),
        file.status === 'passed'
          ? 'passed'
          : [file.message, ...file.assertionResults.flatMap((test) => test.failureMessages)].join('\n'),
      ]),
    );
    expect(byFile).toEqual(Object.fromEntries(ofKind('test').map((block) => [fileOf(block), 'passed'])));
  }, 300_000);
});

interface Started {
  stop: () => Promise<void>;
  output: () => string;
}
const started: Started[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

/** The block as it runs here: each port it names (8080, 8081) a free one, in that order. */
async function withFreePorts(code: string): Promise<{ code: string; ports: number[] }> {
  const ports = [await freePort(), await freePort()];
  return {
    code: code.replace(/\b808([01])\b/g, (_, n: string) => String(ports[Number(n)])),
    ports: code.includes('8081') ? ports : ports.slice(0, 1),
  };
}

const healthy = async (port: number, what: () => string) => {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${port}/__control/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing healthy on port ${port}: ${what()}`);
};

/**
 * Runs a serve block in bash in the project, the fake on the free port (`PORT` for a line that names none): each
 * fake it starts must answer on its port; then they are stopped (the bash process group).
 */
async function serve(block: Block): Promise<{ ports: number[] }> {
  const run = await withFreePorts(block.code);
  // the package as a partner installs it, from the tarball here
  const script = run.code.replace(/^(npm (?:i|install)\b.*?)\binvestment-api-fake\b/gm, `$1${tarball}`);
  const child = spawn('bash', ['-c', script], {
    cwd: project,
    env: { ...cleanEnv, PORT: String(run.ports[0]) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  started.push({
    output: () => output,
    stop: async () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      await exited;
    },
  });
  for (const port of run.ports) await healthy(port, () => output);
  return run;
}

/** The packed CLI on a free port, as `npx investment-api-fake` starts it. */
async function packedCli(port: number, env: Record<string, string> = {}): Promise<void> {
  const child = spawn(join(project, 'node_modules/.bin/investment-api-fake'), [], {
    cwd: project,
    env: { ...cleanEnv, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  started.push({
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  });
  await healthy(port, () => output);
}

describe('the shell sessions', () => {
  it.each(ofKind('shell'))(
    '$where runs in bash against the packed CLI',
    async (block) => {
      const above = blocks[blocks.indexOf(block) - 1]!;
      let script: string;
      if (block.how.afterAbove) {
        expect(above.how.kind).toBe('serve');
        const { ports } = await serve(above);
        script = block.code.replace(/\b808([01])\b/g, (_, n: string) => String(ports[Number(n)]));
      } else {
        const before = blocks.find((b) => b.name !== undefined && b.name === block.how.after);
        if (block.how.after !== undefined) expect(before?.how.kind, block.how.after).toBe('shell');
        const run = await withFreePorts(`${before?.code ?? ''}${block.code}`);
        await packedCli(run.ports[0]!);
        script = run.code;
      }
      const { stdout } = await sh('bash', ['-euo', 'pipefail', '-c', script], project);
      process.stdout.write(`${block.where}:\n${stdout.slice(0, 600)}\n`);
    },
    120_000,
  );
});

describe('the commands that start the fake', () => {
  it.each(ofKind('serve'))(
    '$where starts the packed CLI, which answers on its port',
    async (block) => {
      await serve(block);
    },
    240_000,
  );
});

describe('the configurations', () => {
  it.each(ofKind('config'))(
    "$where ($how.tool): every server of the editor's configuration connects",
    async (block) => {
      expect(block.how.tool).toBe('mcp');
      const run = await withFreePorts(block.code);
      const servers = (
        JSON.parse(run.code) as {
          mcpServers: Record<
            string,
            {
              command?: string;
              args?: string[];
              env?: Record<string, string>;
              url?: string;
              headers?: Record<string, string>;
            }
          >;
        }
      ).mcpServers;
      // the fake the configuration's remote entries reach, guarded by the token they carry
      const token = Object.values(servers).find((server) => server.env?.CONTROL_TOKEN)?.env?.CONTROL_TOKEN;
      await packedCli(run.ports[0]!, token ? { CONTROL_TOKEN: token } : {});
      const tools: Record<string, number> = {};
      for (const [name, server] of Object.entries(servers)) {
        const transport = server.command
          ? new StdioClientTransport({
              command: server.command,
              args: server.args ?? [],
              cwd: project,
              env: { ...(cleanEnv as Record<string, string>), ...server.env },
              stderr: 'ignore',
            })
          : new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers: server.headers ?? {} } });
        const client = new Client({ name: 'editor', version: '1.0.0' });
        await client.connect(transport);
        try {
          tools[name] = (await client.listTools()).tools.length;
        } finally {
          await client.close();
        }
      }
      expect(Object.keys(tools)).toEqual(Object.keys(servers));
      for (const count of Object.values(tools)) expect(count).toBeGreaterThan(5);
    },
    120_000,
  );
});
