import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionBook } from '../../src/mcp/session-book.js';

/** A book of small caps whose sessions are their ids, and what it closed. */
function book(perOwner: number, total: number) {
  const closed: string[] = [];
  const sessions = new SessionBook<string>({ perOwner, total }, (session) => closed.push(session));
  let next = 0;
  const open = (owner: string): string | undefined => {
    const place = sessions.reserve(owner);
    if (!place) return undefined;
    const id = `${owner}-${next++}`;
    sessions.add(id, owner, id, place);
    return id;
  };
  return { sessions, closed, open };
}

describe('the MCP session book', () => {
  it('closes an owner’s own least recently used past its cap, and no other owner’s', () => {
    const { sessions, closed, open } = book(2, 10);
    const b = open('b')!;
    const [a1, a2, a3] = [open('a')!, open('a')!, open('a')!];
    expect(closed).toEqual([a1]);
    expect(sessions.use(b, 'b')).toBe(b);
    expect(sessions.use(a2, 'a')).toBe(a2);
    open('a');
    expect(closed).toEqual([a1, a3]);
  });

  it('answers a session to its owner only', () => {
    const { sessions, open } = book(2, 10);
    const a = open('a')!;
    expect(sessions.use(a, 'b')).toBeUndefined();
    expect(sessions.use(a, 'a')).toBe(a);
  });

  it('when the instance is full, an opener gives up its own oldest, and one holding none is refused', () => {
    const { closed, open } = book(3, 4);
    const [a1, , b1] = [open('a')!, open('a')!, open('b')!, open('b')!];
    expect(open('a')).toBeDefined();
    expect(closed).toEqual([a1]);
    expect(open('c')).toBeUndefined();
    expect(open('b')).toBeDefined();
    expect(closed).toEqual([a1, b1]);
  });

  it("closes every session of an owner whose client was removed, no other's, and gives their places to others", () => {
    const { sessions, closed, open } = book(3, 4);
    const [a1, a2, b1] = [open('partner:a')!, open('partner:a')!, open('partner:b')!];
    open('operator');
    expect(open('partner:c')).toBeUndefined();
    sessions.closeOwner('partner:a');
    expect(closed).toEqual([a1, a2]);
    expect(sessions.has(a1) || sessions.has(a2)).toBe(false);
    expect(sessions.use(b1, 'partner:b')).toBe(b1);
    expect(open('partner:c')).toBeDefined();
    sessions.closeOwner('partner:gone');
    expect(closed).toEqual([a1, a2]);
  });

  it('counts a session being opened against the total until it is added or released', () => {
    const { sessions, open } = book(3, 2);
    open('a');
    const place = sessions.reserve('b')!;
    expect(sessions.reserve('c')).toBeUndefined();
    place.release();
    place.release();
    expect(sessions.reserve('c')).toBeDefined();
  });

  it('never passes either cap, and never closes a session of anyone but the opener, whatever the order of openings, uses and closes', () => {
    const owner = fc.constantFrom('operator', 'a', 'b', 'c', 'd');
    const step = fc.oneof(
      fc.record({ open: owner }),
      fc.record({ use: fc.nat(), as: owner }),
      fc.record({ close: fc.nat() }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(step, { maxLength: 60 }),
        (perOwner, total, steps) => {
          const { sessions, closed, open } = book(perOwner, total);
          const live: { id: string; owner: string }[] = [];
          for (const s of steps) {
            if ('open' in s) {
              const before = closed.length;
              const id = open(s.open);
              for (const gone of closed.slice(before)) {
                expect(gone.startsWith(`${s.open}-`)).toBe(true);
                live.splice(
                  live.findIndex((l) => l.id === gone),
                  1,
                );
              }
              if (id) live.push({ id, owner: s.open });
            } else if ('use' in s && live.length > 0) {
              const target = live[s.use % live.length]!;
              expect(sessions.use(target.id, s.as)).toBe(target.owner === s.as ? target.id : undefined);
            } else if ('close' in s && live.length > 0) {
              const [gone] = live.splice(s.close % live.length, 1);
              sessions.remove(gone!.id);
            }
            expect(live.length).toBeLessThanOrEqual(total);
            for (const o of ['operator', 'a', 'b', 'c', 'd'])
              expect(live.filter((l) => l.owner === o).length).toBeLessThanOrEqual(perOwner);
            for (const l of live) expect(sessions.has(l.id)).toBe(true);
          }
        },
      ),
      { numRuns: 300, seed: 20261128 },
    );
  });
});
