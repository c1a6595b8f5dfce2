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
const SLICE_BUDGET_MS = 10;

/**
 * The budget of work that may share a turn with other sliced work and with the requests' own (shadow mode parses one
 * large answer while it compares another): a smaller slice each, so that the turn stays short.
 */
export const SHARED_SLICE_BUDGET_MS = 4;

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

/** Work that takes several turns of the event loop (`runSliced`), one piece after another: never two sharing a turn. */
export function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const done = last.then(work, work);
    last = done.catch(() => undefined);
    return done;
  };
}
