import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The examples import the package by name, as a partner would; here that name is the source.
    alias: { 'investment-api-fake': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fake', include: ['test/**/*.test.ts'], exclude: ['test/browser/**'], globalSetup: ['test/support/global-setup.ts'] } },
      { extends: true, test: { name: 'examples', include: ['examples/**/*.test.ts'], globalSetup: ['examples/vitest/global-setup.ts'] } },
    ],
  },
});
