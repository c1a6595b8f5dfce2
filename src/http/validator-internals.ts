import { createRequire } from 'node:module';
import type { Logger } from '../logger.js';

/**
 * Loads a module as express-openapi-validator's own code does: one of its files (`./framework/…`, relative to its
 * entry) or one of its dependencies (`path-to-regexp`). Not public: `package.json` accepts any `^5.6.2`, so what it
 * answers may be shaped otherwise after an upgrade, and whoever reads it must check.
 */
export type LoadValidatorInternal = (request: string) => unknown;

export const loadValidatorInternal: LoadValidatorInternal = (request) =>
  createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'))(request);

/**
 * What a shim of the validator did: `undefined` when it is in place (now or before), or why it stepped aside (the
 * internals it needs are not shaped as it knows them), leaving the library as it is: slower, never wrong.
 */
export type ShimOutcome = string | undefined;

/** An error's first line, for a reason. */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message.split('\n')[0]! : String(error);

/** Loads one internal module, or says why it cannot be loaded. */
export function loadInternal(
  load: LoadValidatorInternal,
  request: string,
): { module: Record<string, unknown> } | { missing: string } {
  try {
    const module = load(request);
    return typeof module === 'object' && module !== null
      ? { module: module as Record<string, unknown> }
      : { missing: `${request} is not a module object` };
  } catch (error) {
    return { missing: `${request} cannot be loaded (${messageOf(error)})` };
  }
}

/** Replaces an export of an internal module, or says why it cannot (an ES module's namespace, a getter). */
export function replaceExport(module: Record<string, unknown>, name: string, value: unknown): ShimOutcome {
  try {
    module[name] = value;
  } catch (error) {
    return `its ${name} cannot be replaced (${messageOf(error)})`;
  }
  return module[name] === value ? undefined : `its ${name} cannot be replaced`;
}

/** Runs a shim (the app runs each once): why it stepped aside, if it did, is one debug line; it never stops the start. */
export function applyShim(name: string, shim: () => ShimOutcome, logger: Logger): void {
  let reason: ShimOutcome;
  try {
    reason = shim();
  } catch (error) {
    reason = `it failed (${messageOf(error)})`;
  }
  if (reason !== undefined) {
    logger.debug(
      { shim: name, reason },
      `validator shim ${name} stepped aside: ${reason}; express-openapi-validator runs as it is (slower, same answers)`,
    );
  }
}
