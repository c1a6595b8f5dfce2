import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/persistence/state-files.js';

// A state file is replaced whole or not at all (docs/scaling.md): here the file system is made to write
// fewer bytes than asked (as a nearly full disk does) or to fail mid-file, for the async writer and the sync one.

type AsyncWrite = (
  this: FileHandle,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number,
) => Promise<{ bytesWritten: number; buffer: Uint8Array }>;
type SyncWrite = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => number;

const dirs: string[] = [];
const undo: (() => void)[] = [];
afterEach(() => {
  for (const restore of undo.splice(0)) restore();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding `state.json` as it was before the write under test. */
function folderWithOldFile(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-write-'));
  dirs.push(dir);
  const file = join(dir, 'state.json');
  writeFileSync(file, OLD);
  return { dir, file };
}

/** FileHandle#write as this file system does it: `write` is handed the real one. */
async function asyncWritesAs(write: (real: AsyncWrite) => AsyncWrite): Promise<void> {
  const probe = await open(tmpdir(), 'r');
  const prototype = Object.getPrototypeOf(probe) as { write: AsyncWrite };
  await probe.close();
  const real = prototype.write;
  prototype.write = write(real);
  undo.push(() => (prototype.write = real));
}

/** fs.writeSync as this file system does it (the ES module bindings follow, by syncBuiltinESMExports). */
function syncWritesAs(write: (real: SyncWrite) => SyncWrite): void {
  const real = fs.writeSync as unknown as SyncWrite;
  const faulty = write(real);
  // writeSync(fd, string) too: as bytes, so the string form cannot write more than the file system lets it
  (fs as { writeSync: unknown }).writeSync = (
    fd: number,
    data: Uint8Array | string,
    offset = 0,
    length?: number,
    position: number | null = null,
  ) =>
    typeof data === 'string'
      ? faulty(fd, Buffer.from(data), 0, Buffer.byteLength(data), null as never)
      : faulty(fd, data, offset, length ?? data.length - offset, position as never);
  syncBuiltinESMExports();
  undo.push(() => {
    (fs as { writeSync: unknown }).writeSync = real;
    syncBuiltinESMExports();
  });
}

const noSpace = (): NodeJS.ErrnoException =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
const OLD = JSON.stringify({ kept: 'the last good state' });
const NEW = JSON.stringify({
  accounts: Array.from({ length: 400 }, (_, i) => ({ id: `acc-${i}`, name: `Ada Lovelace the ${i}th, née Byron` })),
});
const PARTS = [NEW.slice(0, 1000), NEW.slice(1000, 5000), NEW.slice(5000)];
const leftovers = (dir: string): string[] => readdirSync(dir).filter((name) => name !== 'state.json');

describe('a state file is written whole', () => {
  it('the async writer continues short writes (7 bytes at most each) until every byte of every part is written', async () => {
    const { dir, file } = folderWithOldFile();
    let calls = 0;
    await asyncWritesAs(
      (real) =>
        function (buffer, offset, length, position) {
          calls++;
          return real.call(this, buffer, offset, Math.min(length, 7), position);
        },
    );
    await writeFileAtomic(file, PARTS);
    expect(readFileSync(file, 'utf8')).toBe(NEW);
    expect(calls).toBeGreaterThan(NEW.length / 7 - 1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(leftovers(dir)).toEqual([]);
  });

  it('the sync writer continues short writes until every byte is written', () => {
    const { dir, file } = folderWithOldFile();
    syncWritesAs(
      (real) => (fd, buffer, offset, length, position) => real(fd, buffer, offset, Math.min(length, 7), position),
    );
    writeFileAtomicSync(file, NEW);
    expect(readFileSync(file, 'utf8')).toBe(NEW);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('or not at all: the old file survives', () => {
  it('the async writer, when the disk fills mid-file (a short write, then ENOSPC), rejects; the old file is as it was and no temporary is left', async () => {
    const { dir, file } = folderWithOldFile();
    let written = 0;
    await asyncWritesAs(
      (real) =>
        async function (buffer, offset, length, position) {
          if (written >= 3000) throw noSpace();
          const result = await real.call(this, buffer, offset, Math.min(length, 3000 - written), position);
          written += result.bytesWritten;
          return result;
        },
    );
    await expect(writeFileAtomic(file, PARTS)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(readFileSync(file, 'utf8')).toBe(OLD);
    expect(leftovers(dir)).toEqual([]);
  });

  it('the sync writer, when the disk fills mid-file, throws; the old file is as it was and no temporary is left', () => {
    const { dir, file } = folderWithOldFile();
    let written = 0;
    syncWritesAs((real) => (fd, buffer, offset, length, position) => {
      if (written >= 3000) throw noSpace();
      const n = real(fd, buffer, offset, Math.min(length, 3000 - written), position);
      written += n;
      return n;
    });
    expect(() => writeFileAtomicSync(file, NEW)).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    expect(readFileSync(file, 'utf8')).toBe(OLD);
    expect(leftovers(dir)).toEqual([]);
  });

  it('a write that takes no byte and reports no error is an error (EIO), never an endless loop nor success', async () => {
    const { dir, file } = folderWithOldFile();
    await asyncWritesAs(() => async (buffer) => ({ bytesWritten: 0, buffer }));
    await expect(writeFileAtomic(file, NEW)).rejects.toMatchObject({ code: 'EIO', syscall: 'write' });
    syncWritesAs(() => () => 0);
    expect(() => writeFileAtomicSync(file, NEW)).toThrow(expect.objectContaining({ code: 'EIO' }));
    expect(readFileSync(file, 'utf8')).toBe(OLD);
    expect(leftovers(dir)).toEqual([]);
  });
});
