import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { jsonDepth, MAX_JSON_DEPTH } from '../api/json-depth.js';
import { StateDirError } from './state-error.js';

/** What STATE_DIR holds is private: client secrets and the signing key. Files 0600, folders 0700. */
const FILE_MODE = 0o600;
export const FOLDER_MODE = 0o700;

/**
 * The largest tenant file read: five times a tenant at MAX_RECORDS_PER_TENANT's default (100,000 records: ~75 MB as
 * the fake writes it, bench/state-dir-isolation.mjs), and below the longest string V8 makes (~512 MiB). A larger one (or /dev/zero behind a name)
 * is refused by name before it is read.
 */
const MAX_STATE_FILE_BYTES = 400 * 1024 * 1024;

let temporaries = 0;
const temporaryOf = (file: string): string =>
  join(dirname(file), `.${basename(file)}.${process.pid}.${++temporaries}.tmp`);

/** A write that took nothing and said nothing: an error, or the loop below would never end. */
const nothingWritten = (asked: number): NodeJS.ErrnoException =>
  Object.assign(new Error(`the file system wrote 0 of ${asked} bytes`), { code: 'EIO', syscall: 'write' });

/** Every byte of `bytes` at `position`: a short write (a nearly full disk) is continued until done or an error. */
async function writeWhole(handle: FileHandle, bytes: Uint8Array, position: number): Promise<number> {
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    if (bytesWritten <= 0) throw nothingWritten(bytes.length - done);
    done += bytesWritten;
  }
  return position + bytes.length;
}

function writeWholeSync(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) {
    const written = writeSync(fd, bytes, done, bytes.length - done, done);
    if (written <= 0) throw nothingWritten(bytes.length - done);
    done += written;
  }
}

/**
 * A state file replaced whole or not at all: a temporary file (0600) written to its last byte (a short write is
 * continued, never taken as done), fsync, rename over the old one, fsync of the folder. On any error the temporary
 * file goes and the old file stays as it was. Not write-file-atomic (npm's): it makes one write() and ignores how much
 * of it was written, the short write that cut tenant files on a nearly full disk; nor does it take a file in parts.
 */
export async function writeFileAtomic(file: string, text: string | readonly string[]): Promise<void> {
  const temporary = temporaryOf(file);
  try {
    const handle = await open(temporary, 'w', FILE_MODE);
    try {
      let position = 0;
      for (const part of typeof text === 'string' ? [text] : text)
        position = await writeWhole(handle, Buffer.from(part, 'utf8'), position);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    // the write's own error is the one to tell (a folder that cannot be written cannot be cleaned either)
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  const folder = await open(dirname(file), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** The same, synchronously: for the start (the signing key, the lock's holder), before the server answers anything. */
export function writeFileAtomicSync(file: string, text: string): void {
  const temporary = temporaryOf(file);
  try {
    const fd = openSync(temporary, 'w', FILE_MODE);
    try {
      writeWholeSync(fd, Buffer.from(text, 'utf8'));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // the write's own error is the one to tell
    }
    throw error;
  }
  const folder = openSync(dirname(file), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

/** 0600, where the file system lets it: a read-only one keeps what it has, and reading goes on. */
function makePrivate(fd: number): void {
  try {
    fchmodSync(fd, FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EROFS' && code !== 'EPERM') throw error;
  }
}

// O_NOFOLLOW: a symbolic link is not followed (ELOOP); O_NONBLOCK: opening a FIFO does not wait for a writer.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

const kindOf = (stat: ReturnType<typeof fstatSync>): string =>
  stat.isDirectory()
    ? 'a directory'
    : stat.isFIFO()
      ? 'a FIFO'
      : stat.isCharacterDevice()
        ? 'a character device'
        : stat.isBlockDevice()
          ? 'a block device'
          : stat.isSocket()
            ? 'a socket'
            : 'not a regular file';

/**
 * A file STATE_DIR keeps, read as a request body is: a regular file only (a symbolic link, a FIFO or a device is
 * refused by name, never waited on), at most `maxBytes`, JSON no deeper than a body may be (`json`). One of
 * STATE_DIR's own (`own`) is made private (0600) if an earlier release left it readable by others, where the
 * directory lets it; the operator's SIGNING_KEY_FILE is theirs (often mounted read-only), and is left as it is.
 */
export function readStateFile(
  file: string,
  what: string,
  { maxBytes = MAX_STATE_FILE_BYTES, json = true, followLinks = false, own = true } = {},
): string {
  let fd: number;
  try {
    fd = openSync(file, followLinks ? READ_FLAGS & ~(constants.O_NOFOLLOW ?? 0) : READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new StateDirError(`${what} "${file}" is a symbolic link: STATE_DIR takes regular files only.`);
    throw new StateDirError(`${what} "${file}" cannot be read: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new StateDirError(`${what} "${file}" is ${kindOf(stat)}: STATE_DIR takes regular files only.`);
    if (stat.size > maxBytes)
      throw new StateDirError(
        `${what} "${file}" holds ${stat.size} bytes, more than the ${maxBytes} a state file may hold.`,
      );
    if (own && (stat.mode & 0o077) !== 0) makePrivate(fd);
    const buffer = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    const bytes = buffer.subarray(0, read);
    if (json) {
      const depth = jsonDepth(bytes);
      if (depth > MAX_JSON_DEPTH)
        throw new StateDirError(
          `${what} "${file}" nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} are accepted, as in a request body.`,
        );
    }
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof StateDirError) throw error;
    throw new StateDirError(`${what} "${file}" cannot be read: ${(error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}
