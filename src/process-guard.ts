import type { Logger } from './logger.js';

/**
 * The CLI's last line of defence: a fake shared by a CI fleet must not exit on a bug. Errors of requests are answered
 * as 500 problems by the pipeline; whatever still escapes (a listener, a timer) is logged and the process goes on.
 * (The library installs nothing: the process belongs to the partner's test runner.)
 */
export function keepProcessAlive(logger: Logger): void {
  process.on('uncaughtException', (error) =>
    logger.error({ err: error }, 'uncaught exception; the server keeps running'),
  );
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: reason }, 'unhandled rejection; the server keeps running'),
  );
}
