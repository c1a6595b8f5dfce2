import { afterEach } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';

/** `start()` like startServer, every server it started stopped after each test. */
export function stoppedAfterEachTest() {
  const started: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  return async (...args: Parameters<typeof startServer>): Promise<FakeServer> => {
    const server = await startServer(...args);
    started.push(server);
    return server;
  };
}
