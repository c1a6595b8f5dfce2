#!/usr/bin/env node
import module from 'node:module';
import type { AddressInfo } from 'node:net';
import { prepareRsaKeyPair } from './auth/key-pair.js';
import { packageVersion as version } from './package-info.js';

// Node ≥ 22.1 keeps the compiled code of the modules below on disk (the OS temp dir; NODE_COMPILE_CACHE picks
// another, NODE_DISABLE_COMPILE_CACHE=1 turns it off): later starts skip compiling them. Node 20 has no such thing.
// The CLI owns its process, so it may; the library leaves that to the process that imports it.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// The signing key is made on the thread pool while the modules below load: the two are the bulk of startup.
const keyPair = prepareRsaKeyPair();
const { logStartWarnings } = await import('./context.js');
const { DEFAULTS, InvalidClientError, optionsFromCli, StartRefused, USAGE } = await import('./config.js');
const { BudgetsConflict } = await import('./domain/budgets.js');
const { listen, SHUTDOWN_GRACE_MS } = await import('./server.js');
const { keepProcessAlive } = await import('./process-guard.js');
const { banner, exposureWarning } = await import('./banner.js');
const { cliLogger } = await import('./log-format.js');
const { waitForStateDir } = await import('./persistence/state-lock.js');
const { closeStarted, productContext, startSatellites } = await import('./satellites.js');

async function main(): Promise<void> {
  // `investment-api-fake mcp`: the control plane as an MCP server over stdio (src/cli-mcp.ts)
  if (process.argv[2] === 'mcp')
    return (await import('./cli-mcp.js')).runMcpStdio(process.argv.slice(3), process.env, version());
  let options: ReturnType<typeof optionsFromCli>;
  try {
    options = optionsFromCli(process.argv.slice(2), process.env, process.stdout.isTTY === true);
  } catch (error) {
    process.stderr.write(
      `investment-api-fake: ${(error as Error).message}\nSee investment-api-fake --help for every option.\n`,
    );
    process.exit(2);
  }
  if (options === 'help') return void process.stdout.write(USAGE);
  if (options === 'version') return void process.stdout.write(`${version()}\n`);

  // Not awaited: the health check needs no key, and whoever signs or publishes with it waits for it (SigningKeys).
  // A process whose key pair cannot be made still stops, as it did before listening.
  keyPair.catch((error: unknown) => {
    process.stderr.write(
      `investment-api-fake failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
  // said whatever the log level, as a refused start is: it is why the start takes this long
  if (options.stateDir !== undefined)
    await waitForStateDir(options.stateDir, (line) => process.stderr.write(`investment-api-fake: ${line}\n`));
  let ctx: ReturnType<typeof productContext>;
  try {
    ctx = productContext(options);
  } catch (error) {
    if (error instanceof StartRefused || error instanceof BudgetsConflict) {
      process.stderr.write(`investment-api-fake: ${error.message}\n`);
      process.exit(2);
    }
    if (!(error instanceof InvalidClientError)) throw error;
    process.stderr.write(
      `investment-api-fake: CLIENTS: ${error.message}\nSee investment-api-fake --help for every option.\n`,
    );
    process.exit(2);
  }
  ctx.logger = cliLogger(options.logLevel ?? 'info', options.logFormat);
  logStartWarnings(ctx);
  keepProcessAlive(ctx.logger);
  let server: Awaited<ReturnType<typeof listen>>;
  try {
    server = await listen(ctx, options.port, options.host);
  } catch (error) {
    if (!(error instanceof StartRefused)) throw error;
    process.stderr.write(`investment-api-fake: ${error.message}\n`);
    process.exit(2);
  }
  const address = server.address() as AddressInfo;
  const defaultClient = (options.clients ?? DEFAULTS.clients)[0]!;
  // under --demo, a partner's session against this server (src/demo/), unless --demo-partner off
  const started = startSatellites(ctx, address);
  process.stdout.write(
    banner({
      version: version(),
      address,
      options,
      defaultClient,
      clientCount: (options.clients ?? DEFAULTS.clients).length,
      ...('demo' in started && { demoPartner: true }),
    }),
  );
  const warning = exposureWarning(address, options);
  if (warning) process.stderr.write(warning);

  // On SIGTERM/SIGINT: stop accepting, close idle keep-alive connections, finish requests in flight, exit 0.
  const shutdown = (signal: string): void => {
    process.stdout.write(`${signal} received, shutting down\n`);
    // with STATE_DIR, what changed since the last write is written before the process ends
    void closeStarted(started)
      .then(() => server.drain(SHUTDOWN_GRACE_MS))
      .then(() => ctx.stateWriter?.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(
            `could not write STATE_DIR at shutdown: ${error instanceof Error ? error.message : String(error)}\n`,
          );
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `investment-api-fake failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
