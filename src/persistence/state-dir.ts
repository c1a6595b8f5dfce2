import { accessSync, closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ApiDocument } from '../api/document.js';
import { keyPairFromPem, pkcs8Pem } from '../auth/key-file.js';
import { rsaKeyPair, type RsaKeyPair } from '../auth/key-pair.js';
import { toClientRecord } from '../domain/clients.js';
import { Clock } from '../domain/clock.js';
import { FaultBook } from '../harness/faults.js';
import type { ClientRecord, Tenant, TenantRegistry } from '../domain/tenants.js';
import { checkWorld } from '../domain/world.js';
import { compileTenantFileValidator, tenantFileName, tenantFileText, upgradeTenantFile, type TenantFile } from './tenant-file.js';

/** A STATE_DIR that cannot be used: the start stops with this message, which names the file. */
export class StateDirError extends Error {
  override name = 'StateDirError';
}

export const SIGNING_KEY_FILE_NAME = 'signing-key.pem';
const TENANTS = 'tenants';
// Temporary files of a write cut short (SIGKILL between write and rename): never read, removed at start.
const isTemporary = (name: string): boolean => name.startsWith('.') && name.endsWith('.tmp');
let temporaries = 0;
const temporaryOf = (file: string): string => join(dirname(file), `.${basename(file)}.${process.pid}.${++temporaries}.tmp`);

/** As write-file-atomic does it: a temporary file, fsync, rename over the old one, fsync of the folder. */
export async function writeFileAtomic(file: string, text: string, mode = 0o644): Promise<void> {
  const temporary = temporaryOf(file);
  try {
    const handle = await open(temporary, 'w', mode);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(dirname(file), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** The same, synchronously: for the start, before the server answers anything. */
function writeFileAtomicSync(file: string, text: string, mode: number): void {
  const temporary = temporaryOf(file);
  try {
    const fd = openSync(temporary, 'w', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  const folder = openSync(dirname(file), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new StateDirError(`${what} "${file}" cannot be read: ${(error as Error).message}`);
  }
}

/** The key pair of SIGNING_KEY_FILE (PEM, RSA). */
export const readSigningKeyFile = (file: string): RsaKeyPair => {
  try {
    return keyPairFromPem(readText(file, 'SIGNING_KEY_FILE'), `SIGNING_KEY_FILE "${file}"`);
  } catch (error) {
    throw new StateDirError((error as Error).message);
  }
};

/**
 * The key pair STATE_DIR keeps (PKCS#8 PEM, mode 0600), so tokens issued before a restart stay valid; made (the
 * process's own pair) and written on the first start.
 */
export function keptSigningKey(stateDir: string): RsaKeyPair {
  const file = join(stateDir, SIGNING_KEY_FILE_NAME);
  if (existsSync(file)) {
    try {
      return keyPairFromPem(readText(file, 'The signing key'), `The signing key "${file}"`);
    } catch (error) {
      throw new StateDirError(`${(error as Error).message} Restore it from a backup, or delete it to start with a new key (tokens issued before are then refused).`);
    }
  }
  const pair = rsaKeyPair();
  try {
    writeFileAtomicSync(file, pkcs8Pem(pair), 0o600);
  } catch (error) {
    throw new StateDirError(`The signing key "${file}" cannot be written: ${(error as Error).message}`);
  }
  return pair;
}

/** What a STATE_DIR held at start: every tenant's file, in creation order. */
export interface RestoredState {
  tenants: TenantFile[];
}

/**
 * Reads every tenant file of STATE_DIR (made when missing). A file that cannot be read, is not JSON, fails the
 * schema or the rules of a world, or is named for another client stops the start with a message naming it:
 * nothing is silently replaced.
 */
export function readStateDir(stateDir: string, document: ApiDocument): RestoredState {
  const folder = join(stateDir, TENANTS);
  try {
    mkdirSync(folder, { recursive: true });
    accessSync(folder, constants.R_OK | constants.W_OK);
  } catch (error) {
    throw new StateDirError(`STATE_DIR "${stateDir}" cannot be used: ${(error as Error).message}`);
  }
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    throw new StateDirError(`STATE_DIR "${folder}" cannot be read: ${(error as Error).message}`);
  }
  const validate = names.some((n) => n.endsWith('.json')) ? compileTenantFileValidator(document) : () => [];
  const tenants: TenantFile[] = [];
  for (const name of names.sort()) {
    const file = join(folder, name);
    if (isTemporary(name)) {
      rmSync(file, { force: true });
      continue;
    }
    if (!name.endsWith('.json')) continue;
    let parsed: unknown;
    try {
      parsed = upgradeTenantFile(JSON.parse(readText(file, 'The state file')));
    } catch (error) {
      if (error instanceof StateDirError) throw error;
      throw new StateDirError(`The state file "${file}" is not JSON: ${(error as Error).message}`);
    }
    const errors = validate(parsed);
    if (errors.length === 0) errors.push(...checkWorld((parsed as TenantFile).world).map((e) => ({ ...e, path: `/world${e.path}` })));
    if (errors.length > 0) {
      const list = errors.slice(0, 10).map((e) => `  ${e.path}: ${e.message}`).join('\n');
      throw new StateDirError(`The state file "${file}" is not a valid tenant (${errors.length} problem(s)):\n${list}`);
    }
    const tenant = parsed as TenantFile;
    try {
      // what the schema cannot say: a clock a date can show, fault paths that compile
      new Clock().restore(tenant.clock_offset_ms, tenant.clock_frozen_at_ms);
      new FaultBook().restoreState(tenant.faults);
    } catch (error) {
      throw new StateDirError(`The state file "${file}" is not a valid tenant: ${(error as Error).message}`);
    }
    if (tenantFileName(tenant.client.client_id) !== name) {
      throw new StateDirError(`The state file "${file}" holds client "${tenant.client.client_id}", whose file is "${tenantFileName(tenant.client.client_id)}".`);
    }
    tenants.push(tenant);
  }
  return { tenants: tenants.sort((a, b) => a.sequence - b.sequence) };
}

/**
 * The client records to start with: the configured ones (CLIENTS) first, in their order, as STATE_DIR kept them
 * when it did; then every other client it kept. A kept record is read through toClientRecord (new settings get their
 * defaults) and keeps any other field it has.
 */
export function clientsToStart(configured: readonly ClientRecord[], restored: RestoredState): ClientRecord[] {
  const kept = new Map(restored.tenants.map((t) => [t.client.client_id, { ...t.client, ...toClientRecord(t.client) }]));
  const first = configured.map((client) => kept.get(client.client_id) ?? client);
  const ids = new Set(first.map((c) => c.client_id));
  return [...first, ...[...kept.values()].filter((c) => !ids.has(c.client_id))];
}

/** Puts back what the worlds do not hold: each tenant's clock offset, faults, orders' progression and investor activity. */
export function restoreTenants(registry: TenantRegistry, restored: RestoredState): void {
  for (const file of restored.tenants) {
    const tenant = registry.get(file.client.client_id);
    tenant.clock.restore(file.clock_offset_ms, file.clock_frozen_at_ms);
    tenant.faults.restoreState(file.faults);
    if (file.progression) tenant.progression.restoreState(file.progression);
    else tenant.progression.restart(tenant.now());
    if (file.activity) tenant.activity.restoreState(file.activity);
    else tenant.activity.restart(tenant.now());
    tenant.changed();
  }
}

export interface StateWriterOptions {
  /** At most this long after a change, its tenant is written (default 500 ms, so well within the second promised). */
  delayMs?: number;
  onError(error: unknown, file: string): void;
}

// A write is promised within a second of a change. Serializing happens on the main thread (the tenant lives there),
// so a big tenant (tens of thousands of records) waits up to this long between writes, to keep that cost low; the
// rest of the second is left for serializing and writing it.
const LONGEST_DELAY_MS = 750;
const SERIALIZING_SHARE = 20;

/**
 * Writes tenants to STATE_DIR off the request path: a tenant a call reached is marked, and a timer writes every
 * marked tenant at most `delayMs` later, one file each, atomically; `close()` writes what is left (shutdown). A
 * failed write is logged and tried again at the next round.
 */
export class StateWriter {
  private readonly dirty = new Set<Tenant>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly shortestDelayMs: number;
  private delayMs: number;

  constructor(
    private readonly stateDir: string,
    private readonly registry: TenantRegistry,
    private readonly options: StateWriterOptions,
  ) {
    this.shortestDelayMs = this.delayMs = options.delayMs ?? 500;
    registry.onTouch((tenant) => this.mark(tenant));
  }

  mark(tenant: Tenant): void {
    this.dirty.add(tenant);
    // unref: a library user's process may end with a write pending; stop() writes it first
    if (!this.timer && !this.closed) this.timer = setTimeout(() => void this.flush(), this.delayMs).unref();
  }

  /** Writes every marked tenant now (after any write under way). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeMarked());
    return this.writing;
  }

  /** The last writes (shutdown): what is marked is written, and nothing is marked after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async writeMarked(): Promise<void> {
    if (this.dirty.size === 0) return;
    const tenants = [...this.dirty];
    this.dirty.clear();
    const sequence = new Map([...this.registry.all()].map((tenant, i) => [tenant, i]));
    let slowest = 0;
    for (const tenant of tenants) {
      const file = join(this.stateDir, TENANTS, tenantFileName(tenant.client.client_id));
      try {
        const began = performance.now();
        const text = tenantFileText(tenant, sequence.get(tenant) ?? sequence.size);
        slowest = Math.max(slowest, performance.now() - began);
        await writeFileAtomic(file, text);
      } catch (error) {
        this.options.onError(error, file);
        if (!this.closed) this.mark(tenant);
      }
    }
    this.delayMs = Math.min(LONGEST_DELAY_MS, Math.max(this.shortestDelayMs, slowest * SERIALIZING_SHARE));
  }
}
