#!/usr/bin/env node
import type { AddressInfo } from 'node:net';
import { prepareRsaKeyPair } from './auth/key-pair.js';

// The signing key is made on the thread pool while the modules below load: the two are the bulk of startup.
const keyPair = prepareRsaKeyPair();
const { createContext } = await import('./app.js');
const { DEFAULTS, optionsFromCli, USAGE } = await import('./config.js');
const { listen, SHUTDOWN_GRACE_MS } = await import('./server.js');
const { keepProcessAlive } = await import('./process-guard.js');

async function main(): Promise<void> {
  let options;
  try {
    options = optionsFromCli(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return;
  }

  await keyPair;
  const ctx = createContext(options);
  keepProcessAlive(ctx.logger);
  const server = await listen(ctx, options.port ?? DEFAULTS.port, options.host);
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    `investment-api-fake listening on http://localhost:${port} (seed ${options.seed ?? DEFAULTS.seed}, default client ${ctx.tenants.defaultClientId}); docs at /docs\n`,
  );

  // On SIGTERM/SIGINT: stop accepting, close idle keep-alive connections, finish requests in flight, exit 0.
  const shutdown = (signal: string): void => {
    process.stdout.write(`${signal} received, shutting down\n`);
    void server.drain(SHUTDOWN_GRACE_MS).then(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`investment-api-fake failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
