import type { ApiDocument } from '../api/document.js';
import type { World } from '../api/types.js';
import type { ClientRecord, TenantRegistry } from '../domain/tenants.js';
import { clientsToStart, keptSigningKey, readSigningKeyFile, readStateDir, restoreTenants } from './state-dir.js';
import { lockStateDir } from './state-lock.js';
import { StateWriter, type StateWriterOptions } from './state-writer.js';

/** What the writer tells the instance's log (read when it happens: the CLI replaces the logger after the start). */
type WriterEvents = Pick<StateWriterOptions, 'onError' | 'onRecovered'>;

// What these answer is the core's `KeptState` (src/context.ts), which the seam (src/satellites.ts) holds them to.
const keyFileOnly = (signingKeyFile: string | undefined) => ({
  ...(signingKeyFile !== undefined && { signingKey: readSigningKeyFile(signingKeyFile) }),
  clients: (configured: readonly ClientRecord[]) => [...configured],
  worlds: new Map<string, World>(),
  restore: (_tenants: TenantRegistry) => {},
  write: (_tenants: TenantRegistry, _events: WriterEvents): StateWriter | undefined => undefined,
  release: () => {},
});

/**
 * The persistence satellite's start: STATE_DIR locked first (a second process on it fails to start, naming the
 * holder), then read whole; the lock goes back if reading fails, or through the writer once its last writes are done.
 * Without STATE_DIR, only SIGNING_KEY_FILE's key.
 */
export function openState(options: { stateDir?: string; signingKeyFile?: string }, document: ApiDocument) {
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
      clients: (configured: readonly ClientRecord[]) => clientsToStart(configured, restored),
      worlds: new Map(restored.tenants.map((t) => [t.client.client_id, t.world])),
      restore: (tenants: TenantRegistry) => restoreTenants(tenants, restored),
      write: (tenants: TenantRegistry, events: WriterEvents) =>
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
