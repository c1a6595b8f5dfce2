import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// vitest's default is one worker fewer than the cores: a single worker on a 2-core CI runner. Use every core.
const WORKERS = Math.max(2, availableParallelism());

/**
 * How the tests reach the sources, for every config (this one, the browser's and the container's): the package by its
 * name, and the fixtures' generator, which the compiled code require()s on first use (faker stays unloaded for the
 * default world) and which require() cannot load as TypeScript.
 */
export const sourceResolve = {
  alias: [
    // The examples import the package by name, as a partner would; here that name is the source.
    {
      find: 'investment-api-fake/testcontainers',
      replacement: fileURLToPath(new URL('./src/testcontainers.ts', import.meta.url)),
    },
    { find: 'investment-api-fake/vitest', replacement: fileURLToPath(new URL('./src/vitest.ts', import.meta.url)) },
    { find: 'investment-api-fake', replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    { find: /^\.\/generator\.js$/, replacement: fileURLToPath(new URL('./fixtures/generate.ts', import.meta.url)) },
  ],
};

export default defineConfig({
  resolve: sourceResolve,
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Pact's verifier (test/library/pact-verifier.test.ts) reports its use unless told not to
    env: { PACT_DO_NOT_TRACK: 'true' },
    maxWorkers: WORKERS,
    // `npm run coverage`: every project, line and branch coverage of the source.
    coverage: { provider: 'v8', include: ['src/**'], reporter: ['text-summary', 'text', 'json-summary', 'html'] },
    projects: [
      {
        // `npm test`: Node alone, no processes spawned, no installs. Test files share their worker's module
        // graph (isolate: false), so the compiled OpenAPI validator and the RSA key pair, both process-wide and
        // immutable, are made once per worker instead of once per file. Every test builds its own app or tenant.
        extends: true,
        test: {
          name: 'fast',
          include: [
            'test/unit/**/*.test.ts',
            'test/http/**/*.test.ts',
            'test/library/**/*.test.ts',
            'test/contract/**/*.test.ts',
            'test/fuzz/**/*.test.ts',
          ],
          isolate: false,
          setupFiles: ['test/support/close-servers.ts'],
          // a tenth of each property's runs (test/support/runs.ts); the thorough project makes them all
          provide: { fullRuns: false },
        },
      },
      {
        // `npm run test:core`: the API's and the control plane's tests on the core alone, no satellite attached
        // (test/support/test-app.ts reads FAKE_CORE_ONLY; SATELLITES.md, "The seam"). Left out: the files
        // that also try a satellite (the proof's report, verify and exports), which `fast` runs on the product.
        extends: true,
        test: {
          name: 'core',
          include: ['test/http/**/*.test.ts'],
          exclude: [
            'test/http/{control-partners,export,export-pact,harness,journal-attacks,lost-answers}.test.ts',
            'test/http/{queries-as-data,readiness,reliability,routes-to-the-letter,verify}.test.ts',
          ],
          env: { FAKE_CORE_ONLY: '1' },
          isolate: false,
          setupFiles: ['test/support/close-servers.ts'],
          provide: { fullRuns: false },
        },
      },
      {
        // `npm run test:e2e`: what would slow `npm test` without adding a kind of check to it: every property and
        // fuzz run at its full count, large worlds, the fake's own real-time timers (test/thorough).
        extends: true,
        test: {
          name: 'thorough',
          include: ['test/fuzz/**/*.test.ts', 'test/unit/order-progression.test.ts', 'test/thorough/**/*.test.ts'],
          isolate: false,
          setupFiles: ['test/support/close-servers.ts'],
          provide: { fullRuns: true },
        },
      },
      {
        // `npm run test:e2e`: the built CLI as a process, the README session, the Dockerfile's steps (two npm ci),
        // the package as a partner installs it. test/browser and test/container have their own configs.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/docker/**/*.test.ts', 'test/package/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        // A partner's suite, run by `npm run test:e2e` and, against a CLI process, by test/e2e/examples.test.ts.
        extends: true,
        test: {
          name: 'examples',
          include: ['examples/**/*.test.ts'],
          globalSetup: ['examples/vitest/global-setup.ts'],
          setupFiles: ['examples/vitest/setup.ts'],
        },
      },
    ],
  },
});
