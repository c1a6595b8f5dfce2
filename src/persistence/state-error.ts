/** A STATE_DIR that cannot be used: the start stops with this message, which names the file. */
export class StateDirError extends Error {
  override name = 'StateDirError';
}

/**
 * A STATE_DIR refused for `why` (`cannot be used`, `cannot be locked`, …): the message, and when the file system
 * said no to this process (EACCES, EPERM: most often a host folder owned by root mounted into the image, which runs
 * as uid 1000), who the process is and how to give it the folder.
 */
export function stateDirRefused(stateDir: string, why: string, error: unknown): StateDirError {
  const { code, message } = error as NodeJS.ErrnoException;
  const uid = process.getuid?.();
  const hint =
    (code === 'EACCES' || code === 'EPERM') && uid !== undefined
      ? `. This process runs as uid ${uid}${uid === 1000 ? ' (the image\'s user "node")' : ''}: give it the folder (on the host: chown -R ${uid} <folder>), or mount a folder it owns, or a named volume.`
      : '';
  return new StateDirError(`STATE_DIR "${stateDir}" ${why}: ${message}${hint}`);
}
