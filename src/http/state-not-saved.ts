import { DomainError } from '../api/errors.js';
import type { OperationId } from '../api/types.js';
import type { FakeContext } from '../context.js';

/** Operations that change nothing a restart keeps, whatever their method: a token, a question about the journal. */
const KEEP_NOTHING = new Set<OperationId>(['createToken', 'verifyRequests']);
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * With STATE_DIR, a change is acknowledged only while the directory takes writes, as a database answers when it
 * cannot commit: while it cannot (full, read-only, its lock lost), every write answers 503 `state_not_saved` and
 * changes nothing, so no client is told a change was made that a restart would lose. Reads go on. The writer retries
 * and, once the directory takes its writes again, so does this.
 */
export function refuseUnsavedWrite(
  ctx: Pick<FakeContext, 'stateWriter'>,
  method: string,
  operationId: OperationId,
): void {
  const writer = ctx.stateWriter;
  if (writer === undefined || READS.has(method) || KEEP_NOTHING.has(operationId)) return;
  const health = writer.health;
  if (health.status === 'ok') return;
  throw new DomainError(
    503,
    'state_not_saved',
    `STATE_DIR cannot take writes (${health.reason}, since ${health.since}), so this change would not survive a restart: nothing was changed. Try again later; GET /__control/health says when it is ok again.`,
    undefined,
    { 'Retry-After': '5' },
  );
}
