import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Tenant, TenantRegistry } from '../domain/tenants.js';
import { writeFileAtomic } from './state-files.js';
import { tenantFileName, tenantFileParts, tenantFileText } from './tenant-file.js';

const TENANTS = 'tenants';

/** What STATE_DIR's writes say of themselves (the health check shows it). */
export type PersistenceHealth =
  | { status: 'ok' }
  | {
      status: 'degraded';
      /** When the first write of this failed stretch failed. */
      since: string;
      /** Why, without paths or client ids (the health check answers anyone): `ENOSPC (write)`, `lock lost: …`. */
      reason: string;
      /** Tenants whose last change is not on disk. */
      tenants_not_saved: number;
    };

/** stop() or SIGTERM could not write every changed tenant: the process must not end as if they were kept. */
class StateNotSavedError extends Error {
  override name = 'StateNotSavedError';
}

export interface StateWriterOptions {
  /** At most this long after a change, its tenant is written (default 500 ms, so well within the second promised). */
  delayMs?: number;
  /** Tenants whose file holds them as they are (restored at start): not written again until they change. */
  kept?: Iterable<Tenant>;
  /** Gives STATE_DIR back (the lock), once the last writes are done. */
  release?: () => void;
  /** Takes the lock again after it was lost (answers its release; throws while another process holds it). */
  relock?: () => () => void;
  /** A write failed (`file`), the directory took writes again, or the lock was lost: for the log. */
  onError(error: unknown, file: string): void;
  onRecovered?(): void;
}

/** A stretch of serializing gives the event loop back after this long, so others' requests wait at most about this. */
const SLICE_MS = 8;
/** A tenant that changed under its serializing this many times in a row is serialized in one step instead. */
const INCREMENTAL_TRIES = 3;

/** Pieces joined up to about a MiB each: few writes for a small tenant, no one long copy for a large one. */
function joined(parts: readonly string[]): string[] {
  const out: string[] = [];
  let group: string[] = [];
  let length = 0;
  for (const part of parts) {
    group.push(part);
    length += part.length;
    if (length >= 1 << 20) {
      out.push(group.join(''));
      group = [];
      length = 0;
    }
  }
  if (group.length > 0) out.push(group.join(''));
  return out;
}

/**
 * What a tenant's file depends on, read in O(1): the world's version (every write, step, reset and restore moves it
 * on), the faults' revision, the clock and the client record (small). Equal fingerprints: nothing to write.
 */
const fingerprint = (tenant: Tenant): string =>
  `${tenant.store.version}|${tenant.faults.revision}|${tenant.clock.frozen ? `f${tenant.clock.frozenAt}` : `r${tenant.clock.offset}`}|${JSON.stringify(tenant.client)}`;

/** An error as the health check may show it: its code and system call, never its message (it names paths). */
function reasonOf(error: unknown): string {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (code) return syscall ? `${code} (${syscall})` : code;
  return error instanceof Error ? error.name : 'unknown error';
}

/**
 * Writes tenants to STATE_DIR off the request path: a tenant a call reached is marked, and a timer writes every
 * marked tenant that changed since its last write at most `delayMs` later, one file each, atomically; `close()`
 * writes what is left (shutdown). A tenant that only reads is never rewritten. A large tenant is serialized in slices
 * between which the event loop serves others (SLICE_MS). A failed write is retried at the next round; until it
 * succeeds, `health` says `degraded` (the health check, and writes answer 503 `state_not_saved`), and `close()`
 * rejects.
 */
export class StateWriter {
  private readonly dirty = new Set<Tenant>();
  /** The fingerprint of each tenant as its file holds it. */
  private readonly written = new WeakMap<Tenant, string>();
  private readonly failed = new Map<Tenant, unknown>();
  private failingSince: number | undefined;
  private lastFailure: unknown;
  private lockLost: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly delayMs: number;
  private release: (() => void) | undefined;
  private relocking: NodeJS.Timeout | undefined;

  constructor(
    private readonly stateDir: string,
    private readonly registry: TenantRegistry,
    private readonly options: StateWriterOptions,
  ) {
    this.delayMs = options.delayMs ?? 500;
    this.release = options.release;
    for (const tenant of options.kept ?? []) this.written.set(tenant, fingerprint(tenant));
    registry.onTouch((tenant) => this.mark(tenant));
  }

  get health(): PersistenceHealth {
    if (this.failed.size === 0 && !this.lockLost) return { status: 'ok' };
    return {
      status: 'degraded',
      since: new Date(this.failingSince ?? Date.now()).toISOString(),
      reason: this.lockLost ? `lock lost (${reasonOf(this.lockLost)})` : reasonOf(this.lastFailure),
      tenants_not_saved: this.failed.size,
    };
  }

  /** Another process took STATE_DIR's lock, or it could not be refreshed: nothing this one writes is safe any more. */
  lost(error: Error): void {
    if (this.lockLost) return;
    this.lockLost = error;
    this.failingSince ??= Date.now();
    this.options.onError(error, join(this.stateDir, 'lock'));
    this.retakeLock();
  }

  /**
   * Tries to take the lock again every `delayMs` (a directory read-only for longer than the lock's stale time, then
   * writable again): once it has it, what changed meanwhile is written and the writer is healthy again; while another
   * process holds it, it keeps failing.
   */
  private retakeLock(): void {
    const { relock } = this.options;
    if (!relock || this.closed) return;
    this.relocking = setTimeout(() => {
      try {
        this.release = relock();
      } catch {
        return this.retakeLock();
      }
      this.lockLost = undefined;
      for (const tenant of this.failed.keys()) this.mark(tenant);
      if (this.failed.size === 0) this.recovered();
    }, this.delayMs).unref();
  }

  mark(tenant: Tenant): void {
    this.dirty.add(tenant);
    // unref: a library user's process may end with a write pending; stop() writes it first
    if (!this.timer && !this.closed) this.timer = setTimeout(() => void this.flush(), this.delayMs).unref();
  }

  /** Writes every marked tenant that changed, now (after any write under way). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeMarked());
    return this.writing;
  }

  /**
   * The last writes (shutdown): what changed is written, nothing is marked after, and the lock is given back. Rejects
   * with a StateNotSavedError when a tenant's last change could not be written.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relocking);
    try {
      await this.flush();
    } finally {
      if (!this.lockLost) this.release?.();
    }
    const health = this.health;
    if (health.status === 'degraded') {
      throw new StateNotSavedError(
        `${health.tenants_not_saved} tenant(s) could not be written to STATE_DIR "${this.stateDir}" (${health.reason}, since ${health.since}): their last changes are lost.`,
      );
    }
  }

  private async writeMarked(): Promise<void> {
    if (this.dirty.size === 0) return;
    const tenants = [...this.dirty];
    this.dirty.clear();
    let sequence: Map<Tenant, number> | undefined;
    for (const tenant of tenants) {
      const before = fingerprint(tenant);
      if (this.written.get(tenant) === before && !this.failed.has(tenant)) continue;
      if (this.lockLost) {
        this.fail(tenant, this.lockLost);
        continue;
      }
      sequence ??= new Map([...this.registry.all()].map((t, i) => [t, i]));
      const file = join(this.stateDir, TENANTS, tenantFileName(tenant.client.client_id));
      try {
        // it changed while being serialized: again at once, as it is then (the last try in one step), so a tenant
        // under constant writes is not left waiting for later rounds
        let parts: string[] | undefined;
        let state = before;
        for (let tries = 0; parts === undefined; tries++) {
          if (tries > 0) state = fingerprint(tenant);
          parts = await this.serialize(
            tenant,
            sequence.get(tenant) ?? sequence.size,
            state,
            tries >= INCREMENTAL_TRIES,
          );
        }
        await writeFileAtomic(file, parts);
        this.written.set(tenant, state);
        this.succeeded(tenant);
      } catch (error) {
        // logged once per failing stretch of a tenant, not at each retry
        if (!this.failed.has(tenant)) this.options.onError(error, file);
        this.fail(tenant, error);
      }
    }
  }

  /**
   * The tenant's file in pieces, the event loop given back every SLICE_MS; undefined when the tenant changed in
   * between (the pieces would mix two states). One that keeps changing is serialized in one step.
   */
  private async serialize(
    tenant: Tenant,
    sequence: number,
    before: string,
    inOneStep: boolean,
  ): Promise<string[] | undefined> {
    if (inOneStep || this.closed) return [tenantFileText(tenant, sequence)];
    const parts: string[] = [];
    let sliceStart = performance.now();
    for (const part of tenantFileParts(tenant, sequence)) {
      parts.push(part);
      if (performance.now() - sliceStart < SLICE_MS) continue;
      await nextTurn();
      if (fingerprint(tenant) !== before) return undefined;
      sliceStart = performance.now();
    }
    return joined(parts);
  }

  private fail(tenant: Tenant, error: unknown): void {
    this.failed.set(tenant, error);
    this.lastFailure = error;
    this.failingSince ??= Date.now();
    // tried again at the next round, until the directory takes it (or the process stops)
    if (!this.closed) this.mark(tenant);
  }

  private succeeded(tenant: Tenant): void {
    if (!this.failed.delete(tenant) || this.failed.size > 0 || this.lockLost) return;
    this.recovered();
  }

  private recovered(): void {
    this.failingSince = undefined;
    this.lastFailure = undefined;
    this.options.onRecovered?.();
  }
}
