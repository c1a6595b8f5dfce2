import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { until } from './waits.js';

/**
 * Temporary STATE_DIRs and the fakes a test file starts over them: after each test, the fakes still `running` stop
 * and the folders go. A test that stops a fake itself takes it out of `running` first (`stopped` does both).
 */
export interface Health {
  status: number;
  body: {
    status: string;
    persistence?: { status: string; reason?: string; since?: string; tenants_not_saved?: number };
  };
}

/** The health check of the fake at `url`: its status and body. */
export async function healthOf(url: string): Promise<Health> {
  const response = await fetch(`${url}/__control/health`);
  return { status: response.status, body: (await response.json()) as Health['body'] };
}

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
    /** A fake over `dir` with a client `acme` whose file is on disk. */
    withAcme: async (dir: string): Promise<{ fake: FakeServer; file: string }> => {
      const fake = await startServer({ stateDir: dir });
      running.push(fake);
      await fake.control.addClient({ client_id: 'acme', client_secret: 's' });
      const file = join(dir, 'tenants', 'acme.json');
      await until(() => {
        try {
          return statSync(file).isFile();
        } catch {
          return false;
        }
      });
      return { fake, file };
    },
  };
}
