import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Whether properties make every run (the `thorough` project of `npm run test:e2e`) or a share (`npm test`). */
    fullRuns: boolean;
  }
}

/** The share of each property's runs the fast project makes: enough to catch a plain break, quick. */
const FAST_SHARE = 0.1;

/**
 * How many runs a property or fuzz test makes: `full` in the `thorough` project (`npm run test:e2e`), a tenth of it
 * in `npm test`; `FUZZ_RUNS` sets it for both, to explore further.
 */
export function propertyRuns(full: number): number {
  if (process.env.FUZZ_RUNS) return Number(process.env.FUZZ_RUNS);
  return inject('fullRuns') ? full : Math.max(10, Math.round(full * FAST_SHARE));
}
