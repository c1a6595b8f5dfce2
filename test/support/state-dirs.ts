import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';

/**
 * Temporary STATE_DIRs and the fakes a test file starts over them: after each test, the fakes still `running` stop
 * and the folders go. A test that stops a fake itself takes it out of `running` first (`stopped` does both).
 */
export function stateDirFixtures() {
  const dirs: string[] = [];
  const running: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((f) => f.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    running,
    stateDir: (): string => {
      const dir = mkdtempSync(join(tmpdir(), 'fake-state-'));
      dirs.push(dir);
      return dir;
    },
    start: async (options: Parameters<typeof startServer>[0]): Promise<FakeServer> => {
      const fake = await startServer(options);
      running.push(fake);
      return fake;
    },
    stopped: async (fake: FakeServer): Promise<void> => {
      running.splice(running.indexOf(fake), 1);
      await fake.stop();
    },
  };
}
