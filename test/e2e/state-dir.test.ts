import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchToken } from '../../src/index.js';
import { exitOf, freePort, killLaunched, spawnCli } from '../support/cli.js';
import { healthOf } from '../support/state-dirs.js';
import { itOnTmpfs, tmpfsFixtures } from '../support/tmpfs.js';
import { sleep, until } from '../support/waits.js';

// The CLI with STATE_DIR, as a host runs it: restarts by SIGTERM and by SIGKILL keep every tenant, account, clock and
// token (docs/scaling.md).
const dirs: string[] = [];
const tmpfs = tmpfsFixtures();
afterEach(() => {
  killLaunched();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const cli = (port: number, stateDir: string) => spawnCli(port, ['--state-dir', stateDir], { LOG_LEVEL: 'silent' });

const json = { 'content-type': 'application/json' };
const ACCOUNT = JSON.stringify({
  type: 'individual',
  external_id: 'e2e-kept',
  first_name: 'Ada',
  last_name: 'Lovelace',
  dob_day: 10,
  dob_month: 12,
  dob_year: 1985,
  country: 'GB',
  city: 'London',
  line1: '1 St James Sq',
  postal_code: 'SW1Y 4JH',
});

describe('the CLI with STATE_DIR', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`a restart after ${signal} (a second after the last change) keeps every tenant, account, clock and token`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cli-state-'));
      dirs.push(dir);
      const port = await freePort();
      const first = await cli(port, dir);
      await fetch(`${first.url}/__control/clients`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ client_id: 'acme', client_secret: 's' }),
      });
      await fetch(`${first.url}/__control/clock`, {
        method: 'POST',
        headers: { ...json, 'x-client-id': 'acme' },
        body: JSON.stringify({ now: '2030-02-03T04:05:06Z' }),
      });
      const token = await fetchToken(first.url, 'acme', 's');
      const created = await fetch(`${first.url}/v1/accounts`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${token}` },
        body: ACCOUNT,
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      await new Promise((r) => setTimeout(r, 1000));
      const exit = exitOf(first.child);
      first.child.kill(signal);
      expect(await exit).toBe(signal === 'SIGTERM' ? 0 : null);

      const second = await cli(port, dir);
      expect(second.exited).toBe(false);
      const read = await fetch(`${second.url}/v1/accounts/${id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(read.status).toBe(200);
      const clock = (await (
        await fetch(`${second.url}/__control/clock`, { headers: { 'x-client-id': 'acme' } })
      ).json()) as { now: string };
      expect(clock.now.startsWith('2030-02-03T04:')).toBe(true);
    });
  }

  it('a second process on the same STATE_DIR fails to start (exit 1), naming the holder; the first goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-state-'));
    dirs.push(dir);
    const first = await cli(await freePort(), dir);
    const second = await cli(await freePort(), dir);
    expect(second.exited).toBe(true);
    expect(second.child.exitCode).toBe(1);
    expect(second.output()).toContain(
      `investment-api-fake failed to start: STATE_DIR "${dir}" is in use by process ${first.child.pid} on host`,
    );
    const created = await fetch(`${first.url}/__control/clients`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ client_id: 'acme', client_secret: 's' }),
    });
    expect(created.status).toBe(201);
    expect((await healthOf(first.url)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
  });

  itOnTmpfs(
    'STATE_DIR remounted read-only while running: writes 503 until it is writable again, then all is saved and SIGTERM exits 0',
    async () => {
      const dir = tmpfs.mount('4m');
      const fake = await cli(await freePort(), dir);
      await fetch(`${fake.url}/__control/clients`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ client_id: 'acme', client_secret: 's' }),
      });
      await sleep(800);
      execFileSync('mount', ['-o', 'remount,ro', dir]);
      const moved = await fetch(`${fake.url}/__control/clock`, {
        method: 'POST',
        headers: { ...json, 'x-client-id': 'acme' },
        body: JSON.stringify({ now: '2030-01-01T00:00:00Z' }),
      });
      expect(moved.status).toBe(200);
      await until(async () => (await healthOf(fake.url)).status === 503);
      expect((await healthOf(fake.url)).body.persistence?.reason).toMatch(/^EROFS/);
      const refused = await fetch(`${fake.url}/__control/faults`, {
        method: 'POST',
        headers: { ...json, 'x-client-id': 'acme' },
        body: JSON.stringify({ status: 500 }),
      });
      expect(refused.status).toBe(503);
      execFileSync('mount', ['-o', 'remount,rw', dir]);
      await until(async () => (await healthOf(fake.url)).status === 200);
      const exit = exitOf(fake.child);
      fake.child.kill('SIGTERM');
      expect(await exit).toBe(0);
      const second = await cli(await freePort(), dir);
      const clock = (await (
        await fetch(`${second.url}/__control/clock`, { headers: { 'x-client-id': 'acme' } })
      ).json()) as { now: string };
      expect(clock.now.startsWith('2030-01-01T00:0')).toBe(true);
    },
  );

  it('a corrupt state file stops the start (exit 1) with a message naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-state-'));
    dirs.push(dir);
    const port = await freePort();
    const first = await cli(port, dir);
    await fetch(`${first.url}/__control/clients`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ client_id: 'acme', client_secret: 's' }),
    });
    const exit = exitOf(first.child);
    first.child.kill('SIGTERM');
    await exit;
    const file = join(dir, 'tenants', 'acme.json');
    writeFileSync(file, '{"format": "investment-api-fake/tenant@1"');
    const second = await cli(port, dir);
    expect(second.exited).toBe(true);
    expect(second.child.exitCode).toBe(1);
    expect(second.output()).toContain(`investment-api-fake failed to start: The state file "${file}" is not JSON`);
  });
});
