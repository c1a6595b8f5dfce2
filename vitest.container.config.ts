import { defineConfig } from 'vitest/config';

// The container suite: the image built and run by a real Docker engine (`npm run test:container`). It is not part
// of `npm test`, which needs Node alone; `.ci/run` prepares the engine with ../shared/tools/docker-engine.sh first.
export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    globalSetup: ['test/container/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Containers share the host network and the machine's two cores: one file at a time.
    fileParallelism: false,
  },
});
