import { describe, expect, it } from 'vitest';
import { stateDirRefused } from '../../src/persistence/state-error.js';

const failure = (code: string, message: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code });

describe('a STATE_DIR the file system refuses', () => {
  it('names the process’s uid and how to give it the folder when permission is denied', () => {
    const error = stateDirRefused(
      '/data',
      'cannot be used',
      failure('EACCES', "EACCES: permission denied, mkdir '/data/tenants'"),
    );
    expect(error.name).toBe('StateDirError');
    expect(error.message).toContain(
      `STATE_DIR "/data" cannot be used: EACCES: permission denied, mkdir '/data/tenants'`,
    );
    expect(error.message).toContain(`This process runs as uid ${process.getuid!()}`);
    expect(error.message).toContain(`chown -R ${process.getuid!()} <folder>`);
    expect(
      stateDirRefused('/data', 'cannot be locked', failure('EPERM', 'EPERM: operation not permitted')).message,
    ).toContain('runs as uid');
  });

  it('says only what happened for any other failure', () => {
    expect(stateDirRefused('/data', 'cannot be used', failure('ENOTDIR', 'ENOTDIR: not a directory')).message).toBe(
      'STATE_DIR "/data" cannot be used: ENOTDIR: not a directory',
    );
  });
});
