import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiDocument } from '../api/document.js';
import { keyPairFromPem, pkcs8Pem } from '../auth/key-file.js';
import { rsaKeyPair, type RsaKeyPair } from '../auth/key-pair.js';
import { toClientRecord } from '../domain/clients.js';
import { Clock } from '../domain/clock.js';
import { FaultBook } from '../records/faults.js';
import type { ClientRecord, TenantRegistry } from '../domain/tenants.js';
import { checkWorld } from '../domain/world.js';
import { StateDirError, stateDirRefused } from './state-error.js';
import { FOLDER_MODE, readStateFile, writeFileAtomicSync } from './state-files.js';
import { compileTenantFileValidator, tenantFileName, upgradeTenantFile, type TenantFile } from './tenant-file.js';

const SIGNING_KEY_FILE_NAME = 'signing-key.pem';
const TENANTS = 'tenants';
// Temporary files of a write cut short (SIGKILL between write and rename): never read, removed at start.
const isTemporary = (name: string): boolean => name.startsWith('.') && name.endsWith('.tmp');
/** A PEM key pair is a few KiB: more is not one. */
const KEY_FILE_BYTES = 64 * 1024;

/** The key pair of SIGNING_KEY_FILE (PEM, RSA). */
export const readSigningKeyFile = (file: string): RsaKeyPair => {
  try {
    // the operator's file: a link is followed (a mounted secret is one), but it must lead to a regular file
    return keyPairFromPem(
      readStateFile(file, 'SIGNING_KEY_FILE', { maxBytes: KEY_FILE_BYTES, json: false, followLinks: true, own: false }),
      `SIGNING_KEY_FILE "${file}"`,
    );
  } catch (error) {
    throw new StateDirError((error as Error).message);
  }
};

const isLink = (file: string): boolean => {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
};

/**
 * The key pair STATE_DIR keeps (PKCS#8 PEM, mode 0600), so tokens issued before a restart stay valid; made (the
 * process's own pair) and written on the first start.
 */
export function keptSigningKey(stateDir: string): RsaKeyPair {
  const file = join(stateDir, SIGNING_KEY_FILE_NAME);
  if (existsSync(file) || isLink(file)) {
    try {
      return keyPairFromPem(
        readStateFile(file, 'The signing key', { maxBytes: KEY_FILE_BYTES, json: false }),
        `The signing key "${file}"`,
      );
    } catch (error) {
      throw new StateDirError(
        `${(error as Error).message} Restore it from a backup, or delete it to start with a new key (tokens issued before are then refused).`,
      );
    }
  }
  const pair = rsaKeyPair();
  try {
    writeFileAtomicSync(file, pkcs8Pem(pair));
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
    // private, as a database keeps its data directory: STATE_DIR made 0700 when the fake makes it, tenants/ always
    mkdirSync(stateDir, { recursive: true, mode: FOLDER_MODE });
    mkdirSync(folder, { recursive: true, mode: FOLDER_MODE });
    if (!lstatSync(folder).isDirectory()) throw new Error(`"${folder}" is not a directory`);
    chmodSync(folder, FOLDER_MODE);
  } catch (error) {
    throw stateDirRefused(stateDir, 'cannot be used', error);
  }
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    throw stateDirRefused(folder, 'cannot be read', error);
  }
  // anything but a regular file (a link, a FIFO, a device, a folder) is refused by name, never opened
  for (const entry of entries) {
    if (!entry.isFile()) {
      const kind = entry.isSymbolicLink()
        ? 'a symbolic link'
        : entry.isFIFO()
          ? 'a FIFO'
          : entry.isDirectory()
            ? 'a directory'
            : 'not a regular file';
      throw new StateDirError(
        `"${join(folder, entry.name)}" is ${kind}: STATE_DIR's tenants folder holds regular files only. Move it away.`,
      );
    }
  }
  const names = entries.map((e) => e.name);
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
      parsed = upgradeTenantFile(JSON.parse(readStateFile(file, 'The state file')));
    } catch (error) {
      if (error instanceof StateDirError) throw error;
      throw new StateDirError(`The state file "${file}" is not JSON: ${(error as Error).message}`);
    }
    const errors = validate(parsed);
    if (errors.length === 0)
      errors.push(...checkWorld((parsed as TenantFile).world).map((e) => ({ ...e, path: `/world${e.path}` })));
    if (errors.length > 0) {
      const list = errors
        .slice(0, 10)
        .map((e) => `  ${e.path}: ${e.message}`)
        .join('\n');
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
      throw new StateDirError(
        `The state file "${file}" holds client "${tenant.client.client_id}", whose file is "${tenantFileName(tenant.client.client_id)}".`,
      );
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
