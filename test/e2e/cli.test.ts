import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, exitOf, killLaunched, launch } from '../support/cli.js';

async function catalog(url: string, port: number) {
  const token = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid offline', client_id: 'sandbox-client', client_secret: 'sandbox-secret', audience: `127.0.0.1:${port}` }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  const headers = { authorization: `Bearer ${token.access_token}` };
  const paths = ['/v1/share-classes?limit=1000', '/v1/assets?limit=1000', '/v1/orders?limit=1000'];
  return Promise.all(paths.map((p) => fetch(`${url}${p}`, { headers }).then((r) => r.text())));
}

afterEach(killLaunched);

describe('the CLI', () => {
  it('two processes with the same SEED serve identical catalogs and orders; another seed another world', async () => {
    const [a, b, c] = await Promise.all([launch([], { SEED: '42' }), launch(['--seed', '42']), launch([], { SEED: '43' })]);
    const [ca, cb, cc] = await Promise.all([catalog(a.url, a.port), catalog(b.url, b.port), catalog(c.url, c.port)]);
    expect(ca).toEqual(cb);
    expect(ca[0]).not.toEqual(cc[0]);
    expect(ca[2]).not.toEqual(cc[2]);
  });

  it('answers SIGTERM by finishing and exiting 0', async () => {
    const { child } = await launch();
    const exited = exitOf(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('loads a FIXTURES file', async () => {
    const { url } = await launch([], { SEED: '5' });
    const world = await fetch(`${url}/__control/state`).then((r) => r.json() as Promise<Record<string, unknown[]>>);
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    const file = join(dir, 'world.json');
    writeFileSync(file, JSON.stringify({ ...world, orders: world.orders!.slice(0, 1) }));
    const loaded = await launch(['--fixtures', file]);
    const state = await fetch(`${loaded.url}/__control/state`).then((r) => r.json() as Promise<Record<string, unknown[]>>);
    expect(state.orders).toHaveLength(1);
    expect(state.share_classes).toEqual(world.share_classes);
  });

  it('exits non-zero with a clear message for a bad flag or a bad fixtures file', async () => {
    const bad = spawn(process.execPath, [CLI, '--port', 'eighty'], { stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    expect(await exitOf(bad)).toBe(2);
    expect(err).toMatch(/PORT must be an integer/);

    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    writeFileSync(join(dir, 'bad.json'), '{"feeder_funds": 3}');
    const broken = spawn(process.execPath, [CLI, '--fixtures', join(dir, 'bad.json')], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...cleanEnv, PORT: '0' } });
    let brokenErr = '';
    broken.stderr!.on('data', (d) => (brokenErr += d));
    expect(await exitOf(broken)).toBe(1);
    expect(brokenErr).toMatch(/not a valid world/);
  });

  it('guards the control plane with CONTROL_TOKEN', async () => {
    const { url } = await launch([], { CONTROL_TOKEN: 'ops' });
    expect((await fetch(`${url}/__control/state`)).status).toBe(401);
    expect((await fetch(`${url}/__control/state`, { headers: { authorization: 'Bearer ops' } })).status).toBe(200);
  });

  it('logs one JSON line per request with its request id', async () => {
    const fake = await launch([], { LOG_LEVEL: 'info' });
    const response = await fetch(`${fake.url}/.well-known/jwks.json`);
    const requestId = response.headers.get('x-request-id');
    await new Promise((r) => setTimeout(r, 100));
    const lines = fake.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'request', reqId: requestId, method: 'GET', path: '/.well-known/jwks.json', status: 200 }));
  });

  it('the library is quiet unless asked', () => {
    const script = `const { startServer } = await import(${JSON.stringify(new URL('../../dist/src/index.js', import.meta.url).href)});
      const fake = await startServer(); await fetch(fake.url + '/.well-known/jwks.json'); await fake.stop();`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: cleanEnv }).toString()).toBe('');
  });

  it('prints usage for --help', () => {
    const text = execFileSync(process.execPath, [CLI, '--help']).toString();
    expect(text).toContain('--seed');
    expect(text).toContain('CONTROL_TOKEN');
  });
});
