/** Waits `ms` of real time: only where the fake's own real-time behaviour (a timer, a socket) is what is tested. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every `every` ms until it holds; fails after `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms = 10_000, every = 20): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await sleep(every);
  }
}
