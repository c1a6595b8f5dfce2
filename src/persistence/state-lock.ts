import { createRequire } from 'node:module';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type * as ProperLockfile from 'proper-lockfile';
import { StateDirError } from './state-error.js';
import { FOLDER_MODE, writeFileAtomicSync } from './state-files.js';

/**
 * proper-lockfile, loaded only by a process with STATE_DIR (it loads graceful-fs and signal-exit, which a process
 * without one has no use for).
 */
const require = createRequire(import.meta.url);
const lockLibrary = (): typeof ProperLockfile => require('proper-lockfile') as typeof ProperLockfile;

/** The lock: a directory made atomically (mkdir) inside STATE_DIR, so every process that mounts the folder sees it. */
const LOCK = 'lock';
/** Who holds it, inside the lock directory, so it goes with the lock. */
const HOLDER = 'holder.json';
/**
 * The holder refreshes the lock's mtime every UPDATE_MS; a lock not refreshed for STALE_MS is taken over (a holder
 * killed on another machine). Generous, so a holder whose event loop is held for seconds (a large world generated at
 * start) keeps it.
 */
const STALE_MS = 30_000;
const UPDATE_MS = 5_000;

interface Holder {
  pid: number;
  hostname: string;
  started: string;
}

const describe = (holder: Holder | undefined): string =>
  holder ? `process ${holder.pid} on host "${holder.hostname}", since ${holder.started}` : 'a process that is starting';

function readHolder(lockDir: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(lockDir, HOLDER), 'utf8').slice(0, 4096)) as Partial<Holder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.hostname !== 'string' || typeof parsed.started !== 'string') return undefined;
    return { pid: parsed.pid, hostname: parsed.hostname, started: parsed.started };
  } catch {
    return undefined;
  }
}

/** Whether a process of this host is running (EPERM: it is, as another user's). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A holder of this host that is gone: its process no longer runs, or its pid is ours but it started before this
 * process did (a container restarted after a kill runs as the same pid). A holder of another host is gone only when
 * its lock goes stale (proper-lockfile).
 */
function gone(holder: Holder | undefined): boolean {
  if (!holder || holder.hostname !== hostname()) return false;
  if (holder.pid === process.pid) return Date.parse(holder.started) < Date.now() - process.uptime() * 1000 - 1000;
  return !running(holder.pid);
}

/**
 * Takes STATE_DIR for this instance alone, as a database takes its data directory: a second process (or a second
 * instance in this one) on the same directory fails to start, naming the holder, instead of both writing the same
 * tenants (the last writer winning, silently). A lock left by a holder that is gone (killed) is taken over at once on
 * the same host, and after STALE_MS without refresh from another. `onLost`: the lock was taken from this holder (its
 * refresh failed, or another process took it over): the caller stops writing. Answers the release.
 */
export function lockStateDir(stateDir: string, onLost: (error: Error) => void): () => void {
  const library = lockLibrary();
  const lockDir = join(stateDir, LOCK);
  try {
    // private, as a database keeps its data directory (0700 when the fake makes it)
    mkdirSync(stateDir, { recursive: true, mode: FOLDER_MODE });
  } catch (error) {
    throw new StateDirError(`STATE_DIR "${stateDir}" cannot be used: ${(error as Error).message}`);
  }
  const options = { lockfilePath: lockDir, stale: STALE_MS, update: UPDATE_MS, realpath: false, onCompromised: onLost };
  let release: () => void;
  try {
    release = takeOver(library, stateDir, lockDir, options);
  } catch (error) {
    if (error instanceof StateDirError) throw error;
    throw new StateDirError(`STATE_DIR "${stateDir}" cannot be locked: ${(error as Error).message}`);
  }
  try {
    // proper-lockfile checks that the lock folder's mtime is the one it set: a file added inside changes it, so it is
    // set back
    chmodSync(lockDir, FOLDER_MODE);
    const { mtime } = statSync(lockDir);
    writeFileAtomicSync(join(lockDir, HOLDER), JSON.stringify({ pid: process.pid, hostname: hostname(), started: new Date().toISOString() } satisfies Holder));
    utimesSync(lockDir, mtime, mtime);
  } catch (error) {
    release();
    throw new StateDirError(`STATE_DIR "${stateDir}" cannot be locked: ${(error as Error).message}`);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // the holder file first: proper-lockfile removes the lock with rmdir, which takes an empty directory only
    rmSync(join(lockDir, HOLDER), { force: true });
    try {
      release();
    } catch {
      // already taken over (onLost said so): nothing of ours to remove
    }
  };
}

type LockOptions = Parameters<typeof ProperLockfile.lockSync>[1];

function takeOver(library: typeof ProperLockfile, stateDir: string, lockDir: string, options: LockOptions): () => void {
  try {
    return library.lockSync(stateDir, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTEMPTY: proper-lockfile found the lock stale but could not rmdir it (our holder file is inside)
    const holder = readHolder(lockDir);
    if (code === 'ENOTEMPTY' || (code === 'ELOCKED' && gone(holder))) {
      rmSync(lockDir, { recursive: true, force: true });
      return library.lockSync(stateDir, options);
    }
    if (code !== 'ELOCKED') throw error;
    throw new StateDirError(
      `STATE_DIR "${stateDir}" is in use by ${describe(holder)} (its lock "${lockDir}"): two processes on one directory would overwrite each other's tenants. Stop that one, or give this one another STATE_DIR.`,
    );
  }
}
