import { describe, expect, it, vi } from 'vitest';
import { Clock } from '../../src/domain/clock.js';
import { FaultBook } from '../../src/records/faults.js';

describe('what a restart restores beside the world (STATE_DIR)', () => {
  it('a fault book goes on where it stopped: the same probability draws, counts and next id', () => {
    const original = new FaultBook();
    original.add({ path: '/v1/assets', status: 503, probability: 0.5, seed: 7 });
    original.add({ status: 500, count: 3 });
    const hits = (book: FaultBook, n: number) =>
      Array.from({ length: n }, () => book.take('GET', '/v1/assets')?.id ?? '-').join(' ');
    hits(original, 5);
    const restored = new FaultBook();
    restored.restoreState(JSON.parse(JSON.stringify(original.exportState())));
    expect(restored.list()).toEqual(original.list());
    expect(hits(restored, 12)).toBe(hits(original, 12));
    expect(restored.add({ drop: true }).id).toBe(original.add({ drop: true }).id);
  });

  it('a clock keeps its offset from real time, and refuses one beyond the years a date can show', () => {
    const clock = new Clock();
    clock.set(new Date('2031-01-01T00:00:00Z'));
    const restored = new Clock();
    restored.restore(clock.offset);
    expect(Math.abs(restored.now().getTime() - clock.now().getTime())).toBeLessThan(50);
    expect(() => new Clock().restore(1e16)).toThrow(/between 1970-01-01T00:00:00Z and 9998-12-31T23:59:59Z/);
  });

  it('a running clock set to the latest instant allowed still loads a year later; one that ran past the last date shows is put back there', () => {
    const clock = new Clock();
    clock.set(new Date('9998-12-31T23:59:59Z'));
    expect(() => clock.advance(1)).toThrow(/9998-12-31T23:59:59Z/);
    const offset = clock.offset;
    const realNow = Date.now();
    const later = vi.spyOn(Date, 'now').mockReturnValue(realNow + 366 * 86_400_000);
    try {
      const restored = new Clock();
      restored.restore(offset);
      expect(restored.now().toISOString()).toBe('9999-12-31T23:59:59.000Z');
      later.mockReturnValue(realNow + 300 * 86_400_000);
      const sooner = new Clock();
      sooner.restore(offset);
      expect(sooner.now().getTime()).toBeLessThan(Date.UTC(9999, 11, 31));
    } finally {
      later.mockRestore();
    }
  });

  it('a frozen clock comes back frozen at its instant', () => {
    const clock = new Clock();
    clock.freeze();
    clock.set(new Date('2031-01-01T00:00:00Z'));
    const restored = new Clock();
    restored.restore(clock.offset, clock.frozenAt);
    expect(restored.frozen).toBe(true);
    expect(restored.now().toISOString()).toBe('2031-01-01T00:00:00.000Z');
  });
});
