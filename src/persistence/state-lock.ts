import { createRequire } from 'node:module';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as ProperLockfile from 'proper-lockfile';
import { StateDirError, stateDirRefused } from './state-error.js';
import { FOLDER_MODE, writeFileAtomicSync } from './state-files.js';

/**
 * proper-lockfile, loaded only by a process with STATE_DIR (it loads graceful-fs and signal-exit, of no use without).
 */
const require = createRequire(import.meta.url);
const lockLibrary = (): typeof ProperLockfile => require('proper-lockfile') as typeof ProperLockfile;

/** The lock: a directory made atomically (mkdir) inside STATE_DIR, so every process that mounts the folder sees it. */
const LOCK = 'lock';
/** Who holds it, inside the lock directory, so it goes with the lock. */
const HOLDER = 'holder.json';
/**
 * The holder refreshes the lock's mtime every UPDATE_MS; a lock not refreshed for STALE_MS is taken over (a holder
 * killed on another machine). Generous: a holder whose event loop is held for seconds (a large world made) keeps it.
 */
const STALE_MS = 30_000;
const UPDATE_MS = 5_000;
/** How often a start waiting for another host's lock looks at it again. */
const POLL_MS = 500;

interface Holder {
  pid: number;
  hostname: string;
  started: string;
  /** The process's start in clock ticks after boot (Linux: /proc/<pid>/stat), so a reused pid is told apart. */
  process_start?: string;
}

const describe = (holder: Holder | undefined): string =>
  holder ? `process ${holder.pid} on host "${holder.hostname}", since ${holder.started}` : 'a process that is starting';

function readHolder(lockDir: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(lockDir, HOLDER), 'utf8').slice(0, 4096)) as Partial<Holder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.hostname !== 'string' || typeof parsed.started !== 'string')
      return undefined;
    const holder: Holder = { pid: parsed.pid, hostname: parsed.hostname, started: parsed.started };
    if (typeof parsed.process_start === 'string') holder.process_start = parsed.process_start;
    return holder;
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

/** A process as Linux's /proc shows it: its state letter and start time; undefined without /proc or once gone. */
function processOf(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // after the command's name in parentheses (which may hold spaces): state is the 3rd field, starttime the 22nd
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] && fields[19] ? { state: fields[0], start: fields[19] } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A holder of this host that is gone: its process no longer runs; or it was killed and its parent has not reaped it
 * yet (a zombie: `kill(pid, 0)` still succeeds); or its pid is another process's now (a container restarted after a
 * kill runs as the same pid), told by its start time, or without /proc by its pid being ours and older than this
 * process. A holder of another host is gone only when its lock goes stale (proper-lockfile).
 */
function gone(holder: Holder | undefined): boolean {
  if (!holder || holder.hostname !== hostname()) return false;
  if (!running(holder.pid)) return true;
  const current = processOf(holder.pid);
  if (current?.state === 'Z' || current?.state === 'X') return true;
  if (current && holder.process_start !== undefined) return current.start !== holder.process_start;
  if (holder.pid === process.pid) return Date.parse(holder.started) < Date.now() - process.uptime() * 1000 - 1000;
  return false;
}

/** How long ago the lock was last refreshed; undefined when there is no lock. */
function sinceRefresh(lockDir: string): number | undefined {
  try {
    return Date.now() - statSync(lockDir).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Waits while STATE_DIR's lock is held from another host (or by a holder not yet named) and refreshed: a new container
 * on the same volume takes it once the old one's lock is stale (STALE_MS without a refresh), saying that it waits,
 * rather than refusing to start while the old one was merely slow to die. A lock of this host is left to
 * lockStateDir, which takes it over at once when its holder is gone and refuses while it runs.
 */
export async function waitForStateDir(stateDir: string, say: (line: string) => void): Promise<void> {
  const lockDir = join(stateDir, LOCK);
  let saidAt: number | undefined;
  for (;;) {
    const age = sinceRefresh(lockDir);
    if (age === undefined || age > STALE_MS) return;
    const holder = readHolder(lockDir);
    if (holder?.hostname === hostname()) return;
    if (saidAt === undefined || Date.now() - saidAt >= STALE_MS) {
      saidAt = Date.now();
      say(
        `STATE_DIR "${stateDir}" is locked by ${describe(holder)}, refreshed ${(age / 1000).toFixed(1)} s ago: waiting until it is stale (${STALE_MS / 1000} s without a refresh), then taking it over`,
      );
    }
    await sleep(Math.min(POLL_MS, STALE_MS - age + 10));
  }
}

/**
 * Takes STATE_DIR for this instance alone, as a database takes its data directory: a second process (or a second
 * instance in this one) on the same directory fails to start, naming the holder, instead of both writing the same
 * tenants (the last writer winning, silently). A lock left by a holder that is gone (killed) is taken over at once on
 * the same host, and after STALE_MS without refresh from another (waitForStateDir waits that long first). `onLost`:
 * the lock was taken from this holder (its refresh failed, or another process took it over): the caller stops
 * writing. Answers the release.
 */
export function lockStateDir(stateDir: string, onLost: (error: Error) => void): () => void {
  const library = lockLibrary();
  const lockDir = join(stateDir, LOCK);
  try {
    // private, as a database keeps its data directory (0700 when the fake makes it)
    mkdirSync(stateDir, { recursive: true, mode: FOLDER_MODE });
  } catch (error) {
    throw stateDirRefused(stateDir, 'cannot be used', error);
  }
  const options = { lockfilePath: lockDir, stale: STALE_MS, update: UPDATE_MS, realpath: false, onCompromised: onLost };
  let release: () => void;
  try {
    release = takeOver(library, stateDir, lockDir, options);
  } catch (error) {
    if (error instanceof StateDirError) throw error;
    throw stateDirRefused(stateDir, 'cannot be locked', error);
  }
  try {
    // proper-lockfile checks that the lock folder's mtime is the one it set: a file added inside changes it: set back
    chmodSync(lockDir, FOLDER_MODE);
    const { mtime } = statSync(lockDir);
    const start = processOf(process.pid)?.start;
    const holder: Holder = {
      pid: process.pid,
      hostname: hostname(),
      started: new Date().toISOString(),
      ...(start !== undefined && { process_start: start }),
    };
    writeFileAtomicSync(join(lockDir, HOLDER), JSON.stringify(holder));
    utimesSync(lockDir, mtime, mtime);
  } catch (error) {
    release();
    throw stateDirRefused(stateDir, 'cannot be locked', error);
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
