import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp, fetchToken, startServer, type FakeServer } from '../../src/index.js';
import { healthOf, stateDirFixtures } from '../support/state-dirs.js';
import { sleep, until } from '../support/waits.js';

// STATE_DIR as a database keeps its data directory (issue 30): locked to one process, private, read with the bounds
// of a request body, honest when it cannot take writes, and written only when a tenant changed.
const { running, stateDir, start, stopped, withAcme } = stateDirFixtures();

const json = { 'content-type': 'application/json' };
const control = (fake: FakeServer, path: string, init: RequestInit = {}) =>
  fetch(`${fake.url}/__control${path}`, { ...init, headers: { ...json, ...init.headers } });
const health = (fake: FakeServer) => healthOf(fake.url);

describe('STATE_DIR is locked to one instance', () => {
  it('a second instance on the same directory fails to start, naming the holder; once it stops, one starts', async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir });
    const refused = await startServer({ stateDir: dir }).then(
      (fake) => {
        running.push(fake);
        return undefined;
      },
      (error: Error) => error,
    );
    expect(refused?.message).toContain(
      `STATE_DIR "${dir}" is in use by process ${process.pid} on host "${hostname()}"`,
    );
    // the refused start changed nothing: the first one still writes and answers
    await first.control.addClient({ client_id: 'acme', client_secret: 's' });
    await stopped(first);
    const second = await start({ stateDir: dir });
    expect((await second.control.clients()).map((c) => c.client_id)).toContain('acme');
  });

  it('a lock left by a process that is gone (killed) is taken over at once', async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir });
    await stopped(first);
    // what a SIGKILL leaves: the lock folder, naming a process that no longer runs
    mkdirSync(join(dir, 'lock'));
    writeFileSync(
      join(dir, 'lock', 'holder.json'),
      JSON.stringify({ pid: 2 ** 22 + 17, hostname: hostname(), started: '2026-01-01T00:00:00.000Z' }),
    );
    const second = await start({ stateDir: dir });
    expect((await health(second)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
  });

  it('a lock naming a pid of this host that is another process now (a container restarted after a kill) is taken over at once', async () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'lock'));
    // our own pid, running, but not the process that took the lock: its start differs
    writeFileSync(
      join(dir, 'lock', 'holder.json'),
      JSON.stringify({ pid: process.pid, hostname: hostname(), started: new Date().toISOString(), process_start: '1' }),
    );
    const second = await start({ stateDir: dir });
    expect((await health(second)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
  });

  it('createApp, which cannot wait, refuses a lock held on another host that is not stale, naming its holder', () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'lock'));
    writeFileSync(
      join(dir, 'lock', 'holder.json'),
      JSON.stringify({ pid: 1, hostname: 'other-host', started: '2026-01-01T00:00:00.000Z' }),
    );
    expect(() => createApp({ stateDir: dir })).toThrow(/is in use by process 1 on host "other-host", since 2026-01-01/);
  });
});

describe('STATE_DIR is private', () => {
  it('tenant files are 0600, the signing key 0600, tenants/, the lock and a STATE_DIR the fake makes 0700; an older 0644 file is made 0600', async () => {
    const dir = join(stateDir(), 'made-by-the-fake');
    const { fake, file } = await withAcme(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'signing-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tenants')).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'lock')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'lock', 'holder.json')).mode & 0o777).toBe(0o600);
    await stopped(fake);
    chmodSync(file, 0o644);
    chmodSync(join(dir, 'tenants'), 0o755);
    await start({ stateDir: dir });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tenants')).mode & 0o777).toBe(0o700);
  });
});

describe('the operator’s SIGNING_KEY_FILE', () => {
  it('is read as it is and left as it is: a 0644 key (the image’s node user reads it) keeps its mode, also beside a STATE_DIR', async () => {
    const dir = stateDir();
    const keyFile = join(dir, 'operator-key.pem');
    writeFileSync(
      keyFile,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    chmodSync(keyFile, 0o644);
    const fake = await start({ stateDir: join(dir, 'state'), signingKeyFile: keyFile });
    expect((await fetch(`${fake.url}/__control/health`)).status).toBe(200);
    expect(statSync(keyFile).mode & 0o777).toBe(0o644);
  });
});

describe('STATE_DIR files are read as request bodies are', () => {
  const refusedStart = (dir: string) =>
    Promise.race([
      startServer({ stateDir: dir }).then(
        (fake) => {
          running.push(fake);
          return undefined;
        },
        (error: Error) => error.message,
      ),
      sleep(5000).then(() => 'hung'),
    ]);

  it('a FIFO in place of a tenant file is refused by name, without waiting on it', async () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'tenants'));
    const fifo = join(dir, 'tenants', 'acme.json');
    execFileSync('mkfifo', [fifo]);
    expect(await refusedStart(dir)).toMatch(new RegExp(`"${fifo}" is a FIFO`));
  });

  it('a symbolic link to /dev/zero in place of a tenant file (or of the signing key) is refused by name', async () => {
    const dir = stateDir();
    mkdirSync(join(dir, 'tenants'));
    const link = join(dir, 'tenants', 'acme.json');
    symlinkSync('/dev/zero', link);
    expect(await refusedStart(dir)).toMatch(new RegExp(`"${link}" is a symbolic link`));
    rmSync(link);
    symlinkSync('/dev/zero', join(dir, 'signing-key.pem'));
    expect(await refusedStart(dir)).toMatch(/signing key ".*signing-key.pem" is a symbolic link/);
  });

  it('a member nested deeper than a request body may be (inside the client) stops the start naming the file; nothing is rewritten', async () => {
    const dir = stateDir();
    const { fake, file } = await withAcme(dir);
    await stopped(fake);
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const text = JSON.stringify({ ...kept, client: { ...kept.client, note: 0 } }).replace('"note":0', `"note":${deep}`);
    writeFileSync(file, text);
    expect(await refusedStart(dir)).toMatch(new RegExp(`"${file}" nests 100002 levels deep; at most 64 are accepted`));
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('a STATE_DIR that cannot take writes', () => {
  /** The tenants folder replaced by a file: every write fails (ENOTDIR), as on a full or read-only disk, even as root. */
  const breakFolder = (dir: string) => {
    renameSync(join(dir, 'tenants'), join(dir, 'tenants.away'));
    writeFileSync(join(dir, 'tenants'), '');
  };
  const mendFolder = (dir: string) => {
    rmSync(join(dir, 'tenants'));
    renameSync(join(dir, 'tenants.away'), join(dir, 'tenants'));
  };

  it('health says degraded naming persistence, writes answer 503 state_not_saved and change nothing, reads go on; it recovers when the folder takes writes again', async () => {
    const dir = stateDir();
    const { fake } = await withAcme(dir);
    expect(await health(fake)).toEqual({ status: 200, body: { status: 'ok', persistence: { status: 'ok' } } });
    breakFolder(dir);
    // a change the directory does not take: acknowledged (it was made in memory), then the health check says so
    await control(fake, '/clock', {
      method: 'POST',
      headers: { 'x-client-id': 'acme' },
      body: JSON.stringify({ now: '2030-01-01T00:00:00Z' }),
    });
    await until(async () => (await health(fake)).status === 503);
    const degraded = await health(fake);
    expect(degraded.body).toMatchObject({
      status: 'degraded',
      persistence: { status: 'degraded', reason: expect.stringMatching(/^ENOTDIR/), tenants_not_saved: 1 },
    });
    expect(JSON.stringify(degraded.body)).not.toContain(dir);

    const refused = await control(fake, '/faults', {
      method: 'POST',
      headers: { 'x-client-id': 'acme' },
      body: JSON.stringify({ status: 503 }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { code: string }).code).toBe('state_not_saved');
    expect(await fake.control.forClient('acme').faults()).toEqual([]);
    const token = await fetchToken(fake.url, 'acme', 's');
    const account = await fetch(`${fake.url}/v1/accounts`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${token}` },
      body: JSON.stringify({ type: 'individual' }),
    });
    expect(account.status).toBe(503);
    expect((await fetch(`${fake.url}/v1/accounts`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );

    mendFolder(dir);
    await until(async () => (await health(fake)).status === 200);
    expect((await health(fake)).body).toEqual({ status: 'ok', persistence: { status: 'ok' } });
    await fake.control.forClient('acme').addFault({ status: 503 });
    await stopped(fake);
    const kept = JSON.parse(readFileSync(join(dir, 'tenants', 'acme.json'), 'utf8'));
    expect(kept.faults.faults).toHaveLength(1);
    expect(kept.clock_offset_ms).toBeLessThan(Date.UTC(2030, 0, 2) - Date.now());
    expect(kept.clock_offset_ms).toBeGreaterThan(Date.UTC(2029, 11, 31) - Date.now());
  });

  it('a stop whose last write failed rejects, saying what was lost (and gives the lock back)', async () => {
    const dir = stateDir();
    const { fake } = await withAcme(dir);
    breakFolder(dir);
    await fake.control.forClient('acme').setClock('2031-01-01T00:00:00Z');
    running.splice(running.indexOf(fake), 1);
    await expect(fake.stop()).rejects.toThrow(/1 tenant\(s\) could not be written to STATE_DIR .*ENOTDIR/);
    mendFolder(dir);
    await start({ stateDir: dir });
  });
});
