import { createRequire } from 'node:module';
import type { Logger as PinoLogger, LoggerOptions } from 'pino';

/** What the fake logs through: pino's methods it calls (the CLI's and a library user's pino logger both fit). */
export type Logger = Pick<PinoLogger, 'error' | 'warn' | 'info' | 'debug'>;

const ignore = (): void => undefined;
/** The library's default, `silent`: nothing to write, so pino is not loaded (its load would slow every first start). */
const SILENT: Logger = { error: ignore, warn: ignore, info: ignore, debug: ignore };

const loadPino = (): typeof import('pino').pino =>
  (createRequire(import.meta.url)('pino') as typeof import('pino')).pino;

/** A logger at `level` (pino's levels), with pino loaded only when something may be written. */
export function createLogger(level: string, options: Omit<LoggerOptions, 'level'> = {}): Logger {
  return level === 'silent' ? SILENT : loadPino()({ ...options, level });
}
