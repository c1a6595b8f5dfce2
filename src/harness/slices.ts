/**
 * Work over a whole journal, written once as a generator that yields between records: the library runs it at once
 * (`runNow`, its caller's own time), the control plane gives the event loop a turn whenever a slice has taken its
 * budget (`runSliced`), so a proof call over a full journal never holds up the other tenants' requests.
 */
export type Slices<T> = Generator<void, T, void>;

export function runNow<T>(work: Slices<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** Milliseconds of work between two turns of the event loop. */
export const SLICE_BUDGET_MS = 10;

export async function runSliced<T>(work: Slices<T>, budgetMs = SLICE_BUDGET_MS): Promise<T> {
  let started = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() - started >= budgetMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      started = performance.now();
    }
  }
}

/**
 * Blocks of work that cannot be cut (a `JSON.parse` of a large text), run one per turn of the event loop: each waits
 * for the one before it and then for a turn (`setImmediate`), so that several arriving together never add up to one
 * long block, and the requests between them are served.
 */
export function oneBlockPerTurn(): <T>(block: () => T) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(block: () => T): Promise<T> => {
    const turn = last.then(
      () => new Promise<void>((resolve) => setImmediate(resolve)),
      () => new Promise<void>((resolve) => setImmediate(resolve)),
    );
    const done = turn.then(block);
    last = done.catch(() => undefined);
    return done;
  };
}
