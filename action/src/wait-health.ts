/** Waits until the fake answers `GET /__control/health` with 200, as the image's own HEALTHCHECK asks it. */

const POLL_MS = 200;

export interface HealthWait {
  timeoutMs: number;
  /** Whether the fake still runs; when it does not, the wait ends at once with `output()` in its error. */
  running: () => Promise<boolean>;
  /** The end of the fake's output, for an error. */
  output: () => Promise<string>;
}

export async function waitForHealth(url: string, { timeoutMs, running, output }: HealthWait): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const healthy = await fetch(`${url}/__control/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return;
    if (!(await running()))
      throw new Error(`The fake stopped before it answered on ${url}. Its output:\n${await output()}`);
    if (Date.now() > deadline)
      throw new Error(
        `The fake did not answer ${url}/__control/health within ${timeoutMs / 1000} s. Its output:\n${await output()}`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
