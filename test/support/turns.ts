import { runSliced } from '../../src/util/slices.js';

/** Runs work in slices of 1 ms, counting the setImmediate callbacks that ran meanwhile (the event loop's turns). */
export async function slicedCountingTurns<T>(
  work: Parameters<typeof runSliced<T>>[0],
): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const turn = (): void => {
    turns++;
    if (!done) setImmediate(turn);
  };
  setImmediate(turn);
  const result = await runSliced(work, 1);
  done = true;
  return { result, turns };
}
