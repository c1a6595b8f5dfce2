import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadApiDocument } from './api/document.js';
import type { TokenEndpointAuthMethod } from './api/types.js';
import { optionsFromCli } from './config.js';
import { clientPort } from './mcp/port.js';
import { createMcpServer } from './mcp/server.js';
import { startServer, type FakeServer } from './server.js';

export const MCP_USAGE = `investment-api-fake mcp: the sandbox's control plane as an MCP server over stdio

Usage: investment-api-fake mcp [--url <base URL>] [options of the fake]

  --url <base URL>   FAKE_URL: drive a running fake (with CONTROL_TOKEN when its control plane is guarded)
  --client-id <id> --client-secret <secret> [--token-auth-method client_secret_basic]
                     with --url: as a partner, by its own client granted the scope control (its tenant only)
  without --url      start a fake in this process on an ephemeral port of 127.0.0.1 (the other options and
                     variables of investment-api-fake apply to it: --seed, --demo, --clients, …); the server's
                     instructions name its URL

Only MCP messages go to stdout; diagnostics go to stderr. The server stops when its client closes stdin.
`;

const OWN_FLAGS = ['url', 'client-id', 'client-secret', 'token-auth-method'] as const;
type OwnFlags = Partial<Record<(typeof OWN_FLAGS)[number], string>>;

/** This command's own flags (`--url <u>` or `--url=<u>`, a partner's credentials), and the fake's arguments left. */
function splitFlags(argv: readonly string[]): { own: OwnFlags; rest: string[] } {
  const rest: string[] = [];
  const own: OwnFlags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = OWN_FLAGS.find((name) => arg === `--${name}` || arg.startsWith(`--${name}=`));
    if (!flag) {
      rest.push(arg);
      continue;
    }
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
    if (value === undefined) throw new Error(`--${flag} needs a value`);
    own[flag] = value;
  }
  return { own, rest };
}

/** A partner's own client (granted the scope `control`): the tools then act on its tenant only. */
function partnerOf(
  own: OwnFlags,
): { clientId: string; clientSecret: string; authMethod?: TokenEndpointAuthMethod } | undefined {
  if (own['client-id'] === undefined && own['client-secret'] === undefined) return undefined;
  if (own['client-id'] === undefined || own['client-secret'] === undefined)
    throw new Error("--client-id and --client-secret go together (a partner's own client with the scope control)");
  const method = own['token-auth-method'];
  if (method !== undefined && method !== 'client_secret_post' && method !== 'client_secret_basic')
    throw new Error('--token-auth-method is client_secret_post or client_secret_basic');
  return { clientId: own['client-id'], clientSecret: own['client-secret'], ...(method && { authMethod: method }) };
}

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(
      `--url "${url.slice(0, 200)}" is not a URL; give the fake's base URL, such as http://localhost:8080`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`--url must be http(s), not ${parsed.protocol}`);
  return url.replace(/\/$/, '');
}

/**
 * `investment-api-fake mcp`: an MCP server over stdio. The tools call the control plane over HTTP (the control
 * client): of the fake `--url` names, or of one started here. stdout carries protocol messages only.
 */
export async function runMcpStdio(argv: readonly string[], env: NodeJS.ProcessEnv, version: string): Promise<void> {
  // stdout belongs to the protocol: whatever a dependency logs goes to stderr
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const { own, rest } = splitFlags(argv);
  const partner = partnerOf(own);
  const flagUrl = own.url;
  // no protocol session with --help: its text goes to stdout, as the CLI's own
  if (rest.includes('--help') || rest.includes('-h')) return void process.stdout.write(MCP_USAGE);
  const given = flagUrl ?? env.FAKE_URL;
  let fake: FakeServer | undefined;
  let url: string;
  if (given !== undefined && given !== '') {
    if (rest.length > 0) throw new Error(`with --url the fake runs elsewhere: ${rest.join(' ')} cannot apply to it`);
    url = checkedUrl(given);
  } else if (partner) {
    throw new Error('--client-id and --client-secret name a partner of a running fake: give its --url');
  } else {
    const options = optionsFromCli(rest, env);
    if (options === 'help' || options === 'version')
      return void process.stdout.write(options === 'help' ? MCP_USAGE : `${version}\n`);
    // its own logs would go to stdout: the fake started here is silent, on an ephemeral port of this machine
    fake = await startServer({ ...options, port: 0, host: '127.0.0.1', logLevel: 'silent' });
    url = fake.url;
    process.stderr.write(`investment-api-fake mcp: started a fake at ${url}\n`);
  }
  const document = loadApiDocument().document;
  const port = clientPort(document, {
    url,
    ...(partner ? { clientCredentials: partner } : env.CONTROL_TOKEN && { controlToken: env.CONTROL_TOKEN }),
  });
  const server = createMcpServer(document, port, { version, url });
  const transport = new StdioServerTransport();

  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    (closing ??= (async () => {
      await server.close().catch(() => undefined);
      await fake?.stop();
      process.exit(0);
    })());
  // the client closed stdin (or the pipe broke): nothing more can come, so the server and its fake stop
  process.stdin.once('end', () => void shutdown());
  process.stdin.once('close', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  await server.connect(transport);
}
