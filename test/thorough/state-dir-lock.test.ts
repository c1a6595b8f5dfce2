import { readFileSync, mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fetchToken, type FakeServer } from '../../src/index.js';
import { healthOf, stateDirFixtures } from '../support/state-dirs.js';
import { sleep, until } from '../support/waits.js';

// STATE_DIR's lock over real time (its refresh every 5 s, a stale lock after 30 s), a large tenant's file, and the
// writer's 500 ms timer left alone by reads: the slow half of test/library/state-dir-safety.test.ts, run by `npm run test:e2e`.
const { stateDir, start, stopped, withAcme } = stateDirFixtures();
const health = (fake: FakeServer) => healthOf(fake.url);
const control = (fake: FakeServer, path: string, init: RequestInit = {}) =>
  fetch(`${fake.url}/__control${path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });

describe('STATE_DIR is locked to one instance, over time', () => {
  it('the holder keeps its lock past its refreshes (every 5 s): health stays ok and writes go on', async () => {
    const { fake } = await withAcme(stateDir());
    await sleep(5600);
    expect((await health(fake)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
    await fake.control.forClient('acme').addFault({ status: 500 });
  }, 15_000);

  it('a lock taken from the holder (its folder changed under it) makes writes 503 until it is taken back', async () => {
    const dir = stateDir();
    const { fake } = await withAcme(dir);
    const long = new Date('2020-01-01T00:00:00Z');
    utimesSync(join(dir, 'lock'), long, long);
    // the holder sees it at its next refresh (5 s), then takes the (now stale) lock back
    let lost: Awaited<ReturnType<typeof health>> | undefined;
    await until(async () => {
      const now = await health(fake);
      if (now.status === 503) lost ??= now;
      return lost !== undefined && now.status === 200;
    }, 9000);
    expect(lost?.body.persistence?.reason).toBe('lock lost (ECOMPROMISED)');
    await fake.control.forClient('acme').addFault({ status: 500 });
    expect(JSON.parse(readFileSync(join(dir, 'lock', 'holder.json'), 'utf8')).pid).toBe(process.pid);
  }, 15_000);

  it('a lock held on another host (a new container on the same volume) is waited for until it is stale, then taken over', async () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'lock'));
    writeFileSync(
      join(dir, 'lock', 'holder.json'),
      JSON.stringify({ pid: process.pid, hostname: 'other-host', started: '2026-01-01T00:00:00.000Z' }),
    );
    // last refreshed 28 s ago: stale (30 s) in 2 s
    const refreshed = new Date(Date.now() - 28_000);
    utimesSync(join(dir, 'lock'), refreshed, refreshed);
    const began = Date.now();
    const fake = await start({ stateDir: dir });
    expect(Date.now() - began).toBeGreaterThanOrEqual(1900);
    expect(JSON.parse(readFileSync(join(dir, 'lock', 'holder.json'), 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
    });
    expect((await health(fake)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
  });
});

describe('a tenant is written only when it changed, also when large', () => {
  it('a large tenant, serialized in slices while requests go on, comes back whole after a restart', async () => {
    const dir = stateDir();
    const options = { stateDir: dir, fixtureScale: { accounts: 1500, orders: 3000 } };
    const fake = await start(options);
    await fake.control.addClient({ client_id: 'big', client_secret: 's' });
    const token = await fetchToken(fake.url, 'big', 's');
    // reads of the tenant while its file is being made
    for (let i = 0; i < 20; i++)
      await fetch(`${fake.url}/v1/orders?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    const before = fake.state('big');
    await stopped(fake);
    const again = await start(options);
    expect(again.state('big')).toEqual(before);
  }, 60_000);
});

describe('a tenant is written only when it changed', () => {
  it('reads (API and control plane) never rewrite its file; a change does, once', async () => {
    const dir = stateDir();
    const { fake, file } = await withAcme(dir);
    const written = () => statSync(file).ino;
    const before = written();
    const token = await fetchToken(fake.url, 'acme', 's');
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${fake.url}/v1/accounts`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
        200,
      );
      expect((await control(fake, '/state', { headers: { 'x-client-id': 'acme' } })).status).toBe(200);
      await sleep(250);
    }
    expect(written()).toBe(before);
    await fake.control.forClient('acme').addFault({ status: 500, path: '/v1/nothing' });
    await until(() => written() !== before);
  });

  it('a restored tenant is not rewritten at start, nor by its first reads', async () => {
    const dir = stateDir();
    const { fake, file } = await withAcme(dir);
    await stopped(fake);
    const before = statSync(file).ino;
    const again = await start({ stateDir: dir });
    await fetchToken(again.url, 'acme', 's');
    await again.control.forClient('acme').faults();
    await sleep(1200);
    expect(statSync(file).ino).toBe(before);
  });
});
