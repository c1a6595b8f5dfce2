import { defineConfig } from 'vitest/config';
import { sourceResolve } from './vitest.config.js';

// The browser suite (`npm run test:browser`): the console and /docs in Debian's Chromium through playwright-core.
// It is not part of `npm test`, which needs Node alone; `.ci/run` installs Chromium first. Under CI=true a
// missing browser fails the run (test/browser/global-setup.ts), it never skips.
export default defineConfig({
  resolve: sourceResolve,
  test: {
    // *.spec.ts: the main config's projects take test/**/*.test.ts, which need Node alone.
    include: ['test/browser/**/*.spec.ts'],
    globalSetup: ['test/browser/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One browser at a time: the machine's two cores are shared, and a starved renderer makes waits flaky.
    fileParallelism: false,
  },
});
