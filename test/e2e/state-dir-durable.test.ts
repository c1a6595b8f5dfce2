import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchToken } from '../../src/index.js';
import { cleanEnv, CLI, exitOf, freePort, killLaunched, spawnCli } from '../support/cli.js';
import { healthOf } from '../support/state-dirs.js';
import { itOnTmpfs, tmpfsFixtures } from '../support/tmpfs.js';
import { sleep, until } from '../support/waits.js';

// Nothing lost (docs/scaling.md): a state file is replaced whole or not at all, on a file system that runs out of room
// mid-file too; a fake killed and started again at once on its STATE_DIR starts, keeping what it acknowledged.
const tmpfs = tmpfsFixtures();
const dirs: string[] = [];
const stops: (() => void)[] = [];
afterEach(() => {
  killLaunched();
  for (const stop of stops.splice(0)) stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const folder = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-durable-'));
  dirs.push(dir);
  return dir;
};

const json = { 'content-type': 'application/json' };
const account = (i: number) =>
  JSON.stringify({
    type: 'individual',
    external_id: `durable-${i}`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    dob_day: 10,
    dob_month: 12,
    dob_year: 1985,
    country: 'GB',
    city: 'London',
    line1: `${i} St James Sq`,
    postal_code: 'SW1Y 4JH',
  });
const createAccount = (url: string, token: string, i: number) =>
  fetch(`${url}/v1/accounts`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${token}` },
    body: account(i),
  });
const idOf = async (created: Response): Promise<string> => ((await created.json()) as { id: string }).id;
/** The status of each account's read: 200 for every one kept. */
const reads = (url: string, token: string, ids: readonly string[]): Promise<number[]> =>
  Promise.all(
    ids.map((id) =>
      fetch(`${url}/v1/accounts/${id}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status),
    ),
  );

describe('a full file system (a 64 KiB tmpfs: room for the first write of a tenant, not its second)', () => {
  itOnTmpfs(
    'keeps the old file whole; health degraded, writes 503 state_not_saved, SIGTERM exits 1; the next start loads the last good state',
    async () => {
      const dir = tmpfs.mount('64k');
      const port = await freePort();
      const fake = await spawnCli(port, ['--state-dir', dir], { LOG_LEVEL: 'silent' });
      expect(fake.exited).toBe(false);
      expect(
        (
          await fetch(`${fake.url}/__control/clients`, {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ client_id: 'acme', client_secret: 's' }),
          })
        ).status,
      ).toBe(201);
      const file = join(dir, 'tenants', 'acme.json');
      await until(async () => readdirSync(join(dir, 'tenants')).includes('acme.json'));
      await sleep(300);
      const good = readFileSync(file, 'utf8');
      expect((await healthOf(fake.url)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });

      // the world grows by an account: its file no longer fits beside the old one
      const token = await fetchToken(fake.url, 'acme', 's');
      const created = await createAccount(fake.url, token, 1);
      expect(created.status).toBe(201);
      const unsaved = await idOf(created);
      await until(async () => (await healthOf(fake.url)).status === 503);
      expect((await healthOf(fake.url)).body).toMatchObject({
        status: 'degraded',
        persistence: { status: 'degraded', reason: expect.stringMatching(/^ENOSPC/) },
      });
      expect(readFileSync(file, 'utf8')).toBe(good);
      expect(readdirSync(join(dir, 'tenants'))).toEqual(['acme.json']);

      const refused = await createAccount(fake.url, token, 2);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { code: string }).code).toBe('state_not_saved');

      const exit = exitOf(fake.child);
      fake.child.kill('SIGTERM');
      expect(await exit).toBe(1);
      expect(fake.output()).toMatch(
        /could not write STATE_DIR at shutdown: 1 tenant\(s\) could not be written .*ENOSPC/,
      );
      expect(readFileSync(file, 'utf8')).toBe(good);
      expect(readdirSync(join(dir, 'tenants'))).toEqual(['acme.json']);

      // the next start, on the disk still full, loads the last good state (acme, without the account it could not keep)
      const next = await spawnCli(port, ['--state-dir', dir], { LOG_LEVEL: 'silent' });
      expect(next.exited).toBe(false);
      const again = await fetchToken(next.url, 'acme', 's');
      expect(await reads(next.url, again, [unsaved])).toEqual([404]);
      expect((await healthOf(next.url)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
      // once it has room, what is acknowledged is written again
      tmpfs.grow(dir, '4m');
      const kept = await createAccount(next.url, again, 3);
      expect(kept.status).toBe(201);
      const keptId = await idOf(kept);
      await until(async () => readFileSync(file, 'utf8').includes(keptId));
    },
    60_000,
  );
});

/**
 * The CLI started by a parent that does not reap it (as a supervisor that has not yet waited for it): once SIGKILLed
 * it is a zombie, whose pid `kill(pid, 0)` still finds, until the parent ends.
 */
async function launchUnreaped(
  port: number,
  stateDir: string,
): Promise<{ pid: number; url: string; output: () => string; exited: () => boolean }> {
  const quoted = [process.execPath, CLI, '--state-dir', stateDir]
    .map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`)
    .join(' ');
  const parent = spawn('sh', ['-c', `${quoted} & echo "pid $!"; exec sleep 600`], {
    env: { ...cleanEnv, PORT: String(port), LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stops.push(() => parent.kill('SIGKILL'));
  let output = '';
  parent.stdout!.on('data', (d) => (output += d));
  parent.stderr!.on('data', (d) => (output += d));
  await until(async () => /pid \d+/.test(output));
  const pid = Number(/pid (\d+)/.exec(output)![1]);
  const exited = (): boolean => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
    } catch {
      return true;
    }
  };
  return { pid, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** Starts the CLI on `stateDir`, reaped or not, and answers once it is healthy, or fails naming what it said. */
async function startAtOnce(port: number, stateDir: string, reaped: boolean) {
  if (reaped) {
    const fake = await spawnCli(port, ['--state-dir', stateDir], { LOG_LEVEL: 'silent' });
    if (fake.exited) throw new Error(`the start was refused: ${fake.output()}`);
    return { kill: () => fake.child.kill('SIGKILL'), url: fake.url };
  }
  const fake = await launchUnreaped(port, stateDir);
  await until(async () => {
    if (fake.exited()) throw new Error(`the start was refused: ${fake.output()}`);
    return await fetch(`${fake.url}/__control/health`).then(
      (r) => r.ok,
      () => false,
    );
  }, 15_000);
  return { kill: () => process.kill(fake.pid, 'SIGKILL'), url: fake.url };
}

describe('a fake killed and started again at once on the same STATE_DIR', () => {
  it('ten times SIGKILL then a start at once (reaped or still a zombie): every start succeeds promptly and keeps every acknowledged create', async () => {
    const dir = folder();
    const port = await freePort();
    const acknowledged: string[] = [];
    for (let round = 0; round < 10; round++) {
      const began = Date.now();
      const fake = await startAtOnce(port, dir, round % 2 === 0);
      // promptly: a lock waited for until stale would take 30 s
      expect(Date.now() - began).toBeLessThan(15_000);
      const token = await fetchToken(fake.url, 'sandbox-client', 'sandbox-secret');
      expect(await reads(fake.url, token, acknowledged)).toEqual(acknowledged.map(() => 200));
      const created = await createAccount(fake.url, token, round);
      expect(created.status).toBe(201);
      acknowledged.push(await idOf(created));
      // written within about half a second of its change (README); a second leaves room on a loaded machine
      await sleep(1200);
      fake.kill();
    }
    const last = await startAtOnce(port, dir, true);
    const token = await fetchToken(last.url, 'sandbox-client', 'sandbox-secret');
    expect(await reads(last.url, token, acknowledged)).toEqual(acknowledged.map(() => 200));
  }, 180_000);
});

describe('a lock held from another host (a new container on the same volume)', () => {
  it('is waited for, saying so, until it is stale, then taken over: no refusal while its holder was slow to die', async () => {
    const dir = folder();
    mkdirSync(join(dir, 'lock'), { mode: 0o700 });
    writeFileSync(
      join(dir, 'lock', 'holder.json'),
      JSON.stringify({ pid: process.pid, hostname: 'other-host', started: '2026-01-01T00:00:00.000Z' }),
    );
    // last refreshed 27 s ago: stale (30 s without a refresh, README) in 3 s
    const refreshed = new Date(Date.now() - 27_000);
    utimesSync(join(dir, 'lock'), refreshed, refreshed);
    const began = Date.now();
    const fake = await spawnCli(await freePort(), ['--state-dir', dir], { LOG_LEVEL: 'silent' });
    expect(fake.exited).toBe(false);
    expect(Date.now() - began).toBeGreaterThanOrEqual(2500);
    expect(fake.output()).toContain(
      `investment-api-fake: STATE_DIR "${dir}" is locked by process ${process.pid} on host "other-host", since 2026-01-01T00:00:00.000Z, refreshed `,
    );
    expect(fake.output()).toContain('s ago: waiting until it is stale (30 s without a refresh), then taking it over\n');
    expect(JSON.parse(readFileSync(join(dir, 'lock', 'holder.json'), 'utf8'))).toMatchObject({ pid: fake.child.pid });
    expect((await healthOf(fake.url)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
  }, 30_000);
});
