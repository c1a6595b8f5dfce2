import { getHeapStatistics } from 'node:v8';
import type { AnswerOf } from '../api/types.js';
import { usageOf } from '../domain/usage.js';
import type { FakeContext } from '../context.js';
import { ok, type OperationHandlers } from '../http/operation.js';
import { checkedClientId, namedClientId, ensureOperator } from './tenant.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'budgets' | 'journal' | 'shadow' | 'stateWriter' | 'tenants'>;

/**
 * Up, and with STATE_DIR whether its writes are on disk: a directory that cannot take them answers 503 `degraded`
 * (the Docker health check then says unhealthy), naming persistence.
 */
function health(ctx: InstanceParts): AnswerOf<'getHealth'> {
  const persistence = ctx.stateWriter?.health;
  // said in shadow mode only, so that the console's Fidelity view asks for a report only where there is one
  const shadow = ctx.shadow !== undefined && { shadow_mode: true };
  if (persistence === undefined) return ok({ status: 'ok', ...shadow });
  if (persistence.status === 'ok') return ok({ status: 'ok', persistence, ...shadow });
  return { status: 503, body: { status: 'degraded', persistence, ...shadow } } as unknown as AnswerOf<'getHealth'>;
}

export function instanceHandlers(ctx: InstanceParts) {
  return {
    getHealth: () => health(ctx),
    getUsage: (call) => {
      checkedClientId(call, namedClientId(call));
      ensureOperator(call, 'read the usage of every budget');
      const heap = getHeapStatistics();
      return ok(
        usageOf(ctx.tenants, ctx.journal, ctx.budgets, { limit: heap.heap_size_limit, used: heap.used_heap_size }),
      );
    },
  } satisfies Partial<OperationHandlers>;
}
