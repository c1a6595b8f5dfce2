import type { ApiDocument } from '../api/document.js';
import type { World } from '../api/types.js';
import type { RsaKeyPair } from '../auth/key-pair.js';
import type { ClientRecord, TenantRegistry } from '../domain/tenants.js';
import { clientsToStart, keptSigningKey, readSigningKeyFile, readStateDir, restoreTenants } from './state-dir.js';
import { lockStateDir } from './state-lock.js';
import { StateWriter } from './state-writer.js';

/** What the writer tells the instance's log (read when it happens: the CLI replaces the logger after the start). */
interface WriterEvents {
  onError(error: unknown, file: string): void;
  onRecovered(): void;
}

/** What STATE_DIR (or SIGNING_KEY_FILE alone) kept, for the start: context.ts's `KeptState`. */
export interface OpenedState {
  signingKey?: RsaKeyPair;
  clients(configured: readonly ClientRecord[]): ClientRecord[];
  worlds: Map<string, World>;
  restore(tenants: TenantRegistry): void;
  write(tenants: TenantRegistry, events: WriterEvents): StateWriter | undefined;
  release(): void;
}

const keyFileOnly = (signingKeyFile: string | undefined): OpenedState => ({
  ...(signingKeyFile !== undefined && { signingKey: readSigningKeyFile(signingKeyFile) }),
  clients: (configured) => [...configured],
  worlds: new Map(),
  restore: () => {},
  write: () => undefined,
  release: () => {},
});

/**
 * The persistence satellite's start: STATE_DIR locked first (a second process on it fails to start, naming the
 * holder), then read whole; the lock goes back if reading fails, or through the writer once its last writes are done.
 * Without STATE_DIR, only SIGNING_KEY_FILE's key.
 */
export function openState(options: { stateDir?: string; signingKeyFile?: string }, document: ApiDocument): OpenedState {
  const { stateDir, signingKeyFile } = options;
  if (stateDir === undefined) return keyFileOnly(signingKeyFile);
  // a lock lost later is the writer's to report (it is made last); until then nothing has been written
  let writer: StateWriter | undefined;
  const lock = (): (() => void) => lockStateDir(stateDir, (error) => writer?.lost(error));
  const release = lock();
  try {
    const restored = readStateDir(stateDir, document);
    const signingKey = signingKeyFile !== undefined ? readSigningKeyFile(signingKeyFile) : keptSigningKey(stateDir);
    return {
      signingKey,
      clients: (configured) => clientsToStart(configured, restored),
      worlds: new Map(restored.tenants.map((t) => [t.client.client_id, t.world])),
      restore: (tenants) => restoreTenants(tenants, restored),
      write: (tenants, events) =>
        (writer = new StateWriter(stateDir, tenants, {
          kept: restored.tenants.map((t) => tenants.get(t.client.client_id)),
          release,
          relock: lock,
          ...events,
        })),
      release,
    };
  } catch (error) {
    release();
    throw error;
  }
}
