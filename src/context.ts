import type { FakeOptions } from './config.js';
import type { LinkSigner } from './domain/documents.js';
import type { SigningKeys, VerifiedTokens } from './auth/jwt.js';
import type { LoadedDocument } from './api/document.js';
import type { Logger } from './logger.js';
import type { Journal } from './harness/journal.js';
import type { TenantRegistry } from './domain/tenants.js';
import type { StateWriter } from './persistence/state-writer.js';
import type { FidelityLog } from './harness/fidelity/log.js';
import type { Budgets } from './domain/budgets.js';

/** Shadow mode (`--upstream`): its report, and what `stop()` closes (src/http/shadow/). */
export interface ShadowModeState {
  fidelity: FidelityLog;
  close(): Promise<void>;
}

/** Everything one server instance owns, so instances never share state (only immutable, compiled things are per process). */
export interface FakeContext {
  options: FakeOptions & { tokenTtlSeconds: number };
  api: LoadedDocument;
  tenants: TenantRegistry;
  keys: SigningKeys;
  /** The tokens whose signature this instance has verified: one cache for every step that reads a bearer token. */
  tokens: VerifiedTokens;
  linkSigner: LinkSigner;
  journal: Journal;
  /** The memory budgets, every one filled in (CONTRACT 15), and the heap limit their defaults were drawn from. */
  budgets: Budgets & { heapLimit: number };
  /** What the start found worth a warning (settings whose budgets pass half of the heap limit): logged once listening. */
  startWarnings: string[];
  logger: Logger;
  /** With STATE_DIR: writes the tenants a call reached, off the request path. */
  stateWriter?: StateWriter;
  /** In shadow mode only. */
  shadow?: ShadowModeState;
}
