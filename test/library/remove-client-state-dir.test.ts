import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlError, fetchToken } from '../../src/index.js';
import { healthOf, stateDirFixtures } from '../support/state-dirs.js';
import { sleep, until } from '../support/waits.js';

// A tenant removed with STATE_DIR: its file goes first, so a restart does not bring it back; a directory that cannot
// delete it answers 503 state_not_saved and nothing is removed (written whole or not at all, honest when it fails).
const { stateDir, start, stopped, withAcme } = stateDirFixtures();

const ids = async (fake: Awaited<ReturnType<typeof start>>) => (await fake.control.clients()).map((c) => c.client_id);

describe('removing a client with STATE_DIR', () => {
  it('deletes its file: a restart does not bring it back, and nothing writes it again', async () => {
    const dir = stateDir();
    const { fake, file } = await withAcme(dir);
    // a change not yet written when the removal comes: the pending write must not make the file again
    await fake.control.forClient('acme').setClock('2030-01-01T00:00:00Z');
    await fake.control.removeClient('acme');
    expect(existsSync(file)).toBe(false);
    await sleep(700);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(join(dir, 'tenants')).filter((name) => name.startsWith('acme'))).toEqual([]);
    await stopped(fake);

    const again = await start({ stateDir: dir });
    expect(await ids(again)).toEqual(['sandbox-client']);
    await expect(fetchToken(again.url, 'acme', 's')).rejects.toThrow(/invalid_client/);
  });

  it('a configured client removed comes back at the next start, from the fixtures: the configuration names it', async () => {
    const dir = stateDir();
    const clients = [
      { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
      { client_id: 'configured', client_secret: 'configured-secret' },
    ];
    const fake = await start({ stateDir: dir, clients });
    const world = fake.state('configured');
    world.accounts[0] = { ...world.accounts[0]!, city: 'Before the removal' };
    await fake.control.forClient('configured').restore(world);
    await until(() => existsSync(join(dir, 'tenants', 'configured.json')));
    await fake.control.removeClient('configured');
    expect(existsSync(join(dir, 'tenants', 'configured.json'))).toBe(false);
    await stopped(fake);

    const again = await start({ stateDir: dir, clients });
    expect(await ids(again)).toEqual(['sandbox-client', 'configured']);
    expect(again.state('configured').accounts[0]!.city).not.toBe('Before the removal');
  });

  it('a directory that cannot delete the file answers 503 state_not_saved: the client stays, in memory and on disk', async () => {
    const dir = stateDir();
    const { fake, file } = await withAcme(dir);
    const token = await fetchToken(fake.url, 'acme', 's');
    // the tenants folder replaced by a file: every change of it fails (ENOTDIR), as on a broken disk, even as root
    renameSync(join(dir, 'tenants'), join(dir, 'tenants.away'));
    writeFileSync(join(dir, 'tenants'), '');
    const refused = await fake.control.removeClient('acme').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ControlError);
    expect((refused as ControlError).status).toBe(503);
    expect((refused as ControlError).problem?.code).toBe('state_not_saved');
    expect((refused as ControlError).problem?.detail).toMatch(/ENOTDIR.*nothing was removed/);
    expect(await ids(fake)).toEqual(['sandbox-client', 'acme']);
    expect((await fetch(`${fake.url}/v1/accounts`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    // the directory said no: the health check says so until it takes writes again
    await until(async () => (await healthOf(fake.url)).status === 503);

    rmSync(join(dir, 'tenants'));
    renameSync(join(dir, 'tenants.away'), join(dir, 'tenants'));
    await until(async () => (await healthOf(fake.url)).status === 200);
    expect(existsSync(file)).toBe(true);
    // once it takes writes, the removal goes through
    await fake.control.removeClient('acme');
    expect(existsSync(file)).toBe(false);
    await stopped(fake);
    expect(await ids(await start({ stateDir: dir }))).toEqual(['sandbox-client']);
  });
});
