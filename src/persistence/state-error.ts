/** A STATE_DIR that cannot be used: the start stops with this message, which names the file. */
export class StateDirError extends Error {
  override name = 'StateDirError';
}
