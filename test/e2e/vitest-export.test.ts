// A session exported as a vitest file (GET /__control/export?format=vitest) runs as the platform's team would run one
// attached to a bug report: in a project where investment-api-fake is this package as built. It passes, and it fails,
// naming the request, when one starting-world record is swapped for another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { ReplayProject } from '../support/replay-project.js';
import { driveSession } from '../support/replayed-session.js';

let project: ReplayProject;

beforeAll(() => {
  project = new ReplayProject();
});
afterAll(() => project.remove());

describe('a session exported as a vitest file', () => {
  let fake: FakeServer;
  let exported: string;
  let used: Awaited<ReturnType<typeof driveSession>>;

  beforeAll(async () => {
    fake = await startServer({ seed: 1 });
    fake.reset();
    used = await driveSession(fake);
    exported = await fake.control.exportRequests('vitest');
  });
  afterAll(() => fake.stop());

  it('passes against the package that wrote it', async () => {
    const { passed, output } = await project.run('session.test.ts', exported);
    expect(passed, output).toBe(true);
    expect(output).toMatch(/Tests\s+\d+ passed/);
    expect(output).not.toMatch(/skipped/);
  }, 120_000);

  it('fails, naming the request, when a starting-world account is swapped for another existing one', async () => {
    expect(exported).toContain(used.startingAccountId);
    const swapped = exported.replaceAll(used.startingAccountId, used.otherAccountId);
    const { passed, output } = await project.run('swapped.test.ts', swapped);
    expect(passed, output).toBe(false);
    expect(output).toContain(`GET /v1/accounts/${used.otherAccountId} → 200`);
    expect(output).toMatch(/1 failed/);
  }, 120_000);
});

describe('a session that began by loading a snapshot', () => {
  it('inlines the snapshot, restores it at its place, and passes', async () => {
    const fake = await startServer({ seed: 2 });
    try {
      fake.reset();
      const world = fake.state();
      const account = world.accounts[0]!;
      world.accounts[0] = { ...account, city: 'Snapshot City' };
      await fake.control.restore(world);
      const token = await fake.token();
      const read = await fetch(`${fake.url}/v1/accounts/${account.id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await read.json()) as { city: string }).city).toBe('Snapshot City');
      const exported = await fake.control.exportRequests('vitest');
      expect(exported).toContain('await control.restore(SNAPSHOT_1 as World)');

      const { passed, output } = await project.run('snapshot.test.ts', exported);
      expect(passed, output).toBe(true);
      // the answer read after the snapshot says what the snapshot held: without it, the replay fails
      const { passed: withoutSnapshot } = await project.run('no-snapshot.test.ts', exported.replace('await control.restore(SNAPSHOT_1 as World);', ''));
      expect(withoutSnapshot).toBe(false);
    } finally {
      await fake.stop();
    }
  }, 120_000);
});
