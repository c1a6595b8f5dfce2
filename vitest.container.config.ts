import { defineConfig } from 'vitest/config';
import { sourceResolve } from './vitest.config.js';

// The container suite: the image built and run by a real Docker engine (`npm run test:container`). It is not part
// of `npm test`, which needs Node alone; `.ci/run` prepares the engine with ../shared/tools/docker-engine.sh first.
export default defineConfig({
  // The Testcontainers example imports the package by name, as a partner would; here that name is the source.
  resolve: sourceResolve,
  test: {
    // *.spec.ts: the main config's projects take test/**/*.test.ts and examples/**/*.test.ts, which need Node alone.
    include: ['test/container/**/*.spec.ts', 'examples/testcontainers/**/*.spec.ts'],
    // This engine has no bridge network (../shared/tools/docker-engine.sh): the Testcontainers module finds that out
    // and shares the host's network; Testcontainers is told the host (in a container it would look for the bridge
    // network's gateway), and its reaper (Ryuk), which needs a mapped port, is off: the tests stop what they start.
    env: {
      FAKE_IMAGE: process.env.FAKE_IMAGE ?? 'investment-api-fake:container-test',
      FAKE_IMAGE_GIVEN: process.env.FAKE_IMAGE ? '1' : '',
      TESTCONTAINERS_RYUK_DISABLED: 'true',
      TESTCONTAINERS_HOST_OVERRIDE: '127.0.0.1',
    },
    globalSetup: ['test/container/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Containers share the host network and the machine's two cores: one file at a time.
    fileParallelism: false,
  },
});
