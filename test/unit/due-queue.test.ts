import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../src/domain/due-queue.js';

describe('DueQueue', () => {
  it('answers what was pushed earliest first, whatever the order of pushes and pops in between', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant('pop' as const)), { maxLength: 300 }),
        (steps) => {
          const queue = new DueQueue<number>();
          const model: number[] = [];
          for (const step of steps) {
            if (step === 'pop') {
              if (model.length === 0) continue;
              model.sort((a, b) => a - b);
              expect(queue.peekAt()).toBe(model[0]);
              expect(queue.pop()).toBe(model.shift());
            } else {
              queue.push(step, step);
              model.push(step);
            }
            expect(queue.size).toBe(model.length);
          }
          expect(queue.peekAt()).toBe(model.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...model));
        },
      ),
    );
  });

  it('is empty after clear', () => {
    const queue = new DueQueue<string>();
    queue.push(2, 'b');
    queue.push(1, 'a');
    queue.clear();
    expect(queue.size).toBe(0);
    expect(queue.peekAt()).toBe(Number.POSITIVE_INFINITY);
  });
});
