import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../src/config.js';
import { CLI, cleanEnv, exitOf, killLaunched, launch, ROOT } from '../support/cli.js';
import { readPage } from '../support/doc-pages.js';

const packageVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function catalog(url: string, port: number) {
  const token = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'openid offline',
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
      audience: `127.0.0.1:${port}`,
    }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  const headers = { authorization: `Bearer ${token.access_token}` };
  const paths = ['/v1/share-classes?limit=1000', '/v1/assets?limit=1000', '/v1/orders?limit=1000'];
  return Promise.all(paths.map((p) => fetch(`${url}${p}`, { headers }).then((r) => r.text())));
}

afterEach(killLaunched);

describe('the CLI', () => {
  it('two processes with the same SEED serve identical catalogs and orders; another seed another world', async () => {
    const [a, b, c] = await Promise.all([
      launch([], { SEED: '42' }),
      launch(['--seed', '42']),
      launch([], { SEED: '43' }),
    ]);
    const [ca, cb, cc] = await Promise.all([catalog(a.url, a.port), catalog(b.url, b.port), catalog(c.url, c.port)]);
    expect(ca).toEqual(cb);
    expect(ca[0]).not.toEqual(cc[0]);
    expect(ca[2]).not.toEqual(cc[2]);
  });

  it('--demo and DEMO=1 start a world that moves by itself; without them the default client stays manual', async () => {
    const settingsOf = async (url: string) =>
      (
        (await fetch(`${url}/__control/clients`).then((r) => r.json())) as {
          data: { settings: Record<string, unknown> }[];
        }
      ).data[0]!.settings;
    const [flag, variable, plain] = await Promise.all([launch(['--demo']), launch([], { DEMO: '1' }), launch()]);
    for (const demo of [flag, variable])
      expect(await settingsOf(demo.url)).toMatchObject({ order_progression: 'clock', investor_activity_per_hour: 120 });
    expect(await settingsOf(plain.url)).toMatchObject({ order_progression: 'manual', investor_activity_per_hour: 0 });
  });

  it('--demo runs the demo partner, named in the banner, its requests journaled at once, stopped with SIGTERM; --demo-partner off and DEMO_PARTNER=off leave it out', async () => {
    const [demo, off, offByVariable] = await Promise.all([
      launch(['--demo']),
      launch(['--demo', '--demo-partner', 'off']),
      launch([], { DEMO: '1', DEMO_PARTNER: 'off' }),
    ]);
    const clientsOf = async (url: string) =>
      ((await fetch(`${url}/__control/clients`).then((r) => r.json())) as { data: { client_id: string }[] }).data.map(
        (c) => c.client_id,
      );
    expect(await clientsOf(demo.url)).toEqual(['sandbox-client', 'demo-partner']);
    for (const left of [off, offByVariable]) expect(await clientsOf(left.url)).toEqual(['sandbox-client']);
    const partnerRequests = async () =>
      (
        (await fetch(`${demo.url}/__control/requests?client_id=demo-partner&since=start`).then((r) => r.json())) as {
          data: { path: string; status: number }[];
        }
      ).data;
    await expect
      .poll(async () => (await partnerRequests()).filter((e) => e.path.startsWith('/v1/') && e.status < 300).length, {
        timeout: 30_000,
      })
      .toBeGreaterThan(2);
    expect(demo.output()).toContain('  demo partner   demo-partner calls the API every few seconds');
    expect(off.output()).not.toContain('demo partner');
    // its timer and its round in flight hold nothing up
    const exited = exitOf(demo.child);
    const began = Date.now();
    demo.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - began).toBeLessThan(5_000);
  }, 60_000);

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
    const state = await fetch(`${loaded.url}/__control/state`).then(
      (r) => r.json() as Promise<Record<string, unknown[]>>,
    );
    expect(state.orders).toHaveLength(1);
    expect(state.share_classes).toEqual(world.share_classes);
  });

  it('exits non-zero with a clear message for a bad flag or a bad fixtures file', async () => {
    const bad = spawn(process.execPath, [CLI, '--port', 'eighty'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: cleanEnv,
    });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    expect(await exitOf(bad)).toBe(2);
    expect(err).toMatch(/--port must be an integer from 0 to 65535, got "eighty"/);
    expect(err).not.toMatch(/Usage:/);

    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    writeFileSync(join(dir, 'bad.json'), '{"feeder_funds": 3}');
    const broken = spawn(process.execPath, [CLI, '--fixtures', join(dir, 'bad.json')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv, PORT: '0' },
    });
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
    const lines = fake
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'request',
        reqId: requestId,
        method: 'GET',
        path: '/.well-known/jwks.json',
        status: 200,
      }),
    );
  });

  it('the library is quiet unless asked', () => {
    const script = `const { startServer } = await import(${JSON.stringify(new URL('../../dist/bundle/index.js', import.meta.url).href)});
      const fake = await startServer(); await fetch(fake.url + '/.well-known/jwks.json'); await fake.stop();`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: cleanEnv }).toString()).toBe(
      '',
    );
  });

  it('prints usage for --help, naming every environment variable, and the version for --version', () => {
    const text = execFileSync(process.execPath, [CLI, '--help']).toString();
    for (const name of ENVIRONMENT_VARIABLES) expect(text).toContain(name);
    expect(text).toContain('--seed');
    expect(execFileSync(process.execPath, [CLI, '--version']).toString().trim()).toBe(packageVersion);
    expect(execFileSync(process.execPath, [CLI, '-v']).toString().trim()).toBe(packageVersion);
  });

  it('names the variable a bad value came from when it came from the environment', async () => {
    const bad = spawn(process.execPath, [CLI], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv, LOG_FORMAT: 'fancy' },
    });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    expect(await exitOf(bad)).toBe(2);
    expect(err).toMatch(/LOG_FORMAT must be one of json, pretty, got "fancy"/);
  });

  it('exits 2 naming CLIENTS and the field when a configured client breaks the document’s schema', async () => {
    const CLIENTS = '[{"client_id":"acme","client_secret":"s","token_endpoint_auth_method":"basic"}]';
    const bad = spawn(process.execPath, [CLI], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv, PORT: '0', CLIENTS },
    });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    expect(await exitOf(bad)).toBe(2);
    expect(err).toMatch(
      /CLIENTS: The client "acme" is not valid[\s\S]*\/token_endpoint_auth_method: must be equal to one of the allowed values: "client_secret_post", "client_secret_basic"/,
    );
  });

  it.each([
    ['a line break', 'acme\n::warning::x'],
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'acme web'],
  ])('exits 2 naming CLIENTS, before listening, when a client_id holds %s', async (_, id) => {
    const CLIENTS = JSON.stringify([{ client_id: id, client_secret: 'hunter2' }]);
    const bad = spawn(process.execPath, [CLI], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv, PORT: '0', CLIENTS },
    });
    let out = '';
    bad.stdout!.on('data', (d) => (out += d));
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    expect(await exitOf(bad)).toBe(2);
    expect(err).toContain(
      'CLIENTS: the client_id of client 1 must be 1 to 128 characters of A-Z, a-z, 0-9 and . _ ~ -.',
    );
    expect(`${out}${err}`).not.toContain(id);
    expect(`${out}${err}`).not.toContain('hunter2');
    expect(out).toBe('');
  });

  it('exits 2 naming CONTROL_TOKEN, and not showing it, when no Bearer header could carry it', async () => {
    const bad = spawn(process.execPath, [CLI], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv, PORT: '0', CONTROL_TOKEN: 'ops-token\nsecond-line' },
    });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    expect(await exitOf(bad)).toBe(2);
    expect(err).toContain('CONTROL_TOKEN must be 1 to 4096 visible ASCII characters');
    expect(err).not.toMatch(/ops-token|second-line/);
  });

  it('exits 2 naming the settings when the world it is told to build does not fit its budgets', async () => {
    const bad = spawn(process.execPath, [CLI], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv, PORT: '0', FIXTURE_ACCOUNTS: '40', WORLD_BYTES: '65536' },
    });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    expect(await exitOf(bad)).toBe(2);
    expect(err).toMatch(/FIXTURE_ACCOUNTS=40.*WORLD_BYTES \(65536\)/);
  });

  it.each([
    [
      { WORLD_BYTES: '1000000', TENANT_GUARANTEE_BYTES: '2000000' },
      /TENANT_GUARANTEE_BYTES.*2000000.*WORLD_BYTES.*1000000/,
    ],
    [
      { MAX_TENANT_BYTES: '100000', TENANT_GUARANTEE_BYTES: '200000' },
      /TENANT_GUARANTEE_BYTES.*200000.*MAX_TENANT_BYTES.*100000/,
    ],
  ])(
    'exits 2 naming the settings when budget settings cannot hold together (%o), never lowering one',
    async (env, named) => {
      const bad = spawn(process.execPath, [CLI], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...cleanEnv, PORT: '0', ...env },
      });
      let err = '';
      bad.stderr!.on('data', (d) => (err += d));
      expect(await exitOf(bad)).toBe(2);
      expect(err).toMatch(named);
      expect(err).not.toMatch(/failed to start/);
    },
  );

  it('lists every environment variable in the configuration table of docs/configuration.md', () => {
    const page = readPage('docs/configuration.md');
    const table = page.slice(0, page.indexOf('\n## '));
    for (const name of ENVIRONMENT_VARIABLES) expect(table, name).toContain(`\`${name}\``);
  });

  it('greets with the address, the default client, the audience, the docs and an open control plane on 127.0.0.1', async () => {
    const fake = await launch([], { HOST: '' });
    const out = fake.output();
    expect(out).toContain(`listening on 127.0.0.1:${fake.port}: http://127.0.0.1:${fake.port}`);
    expect(out).toContain(
      'client_id=sandbox-client client_secret=sandbox-secret; audience: the host part of the URL you call\n',
    );
    expect(out).toContain(
      `audience=127.0.0.1:${fake.port} when you call http://127.0.0.1:${fake.port}, localhost:${fake.port} when you call http://localhost:${fake.port}\n`,
    );
    expect(out).toContain(`http://127.0.0.1:${fake.port}/docs`);
    expect(out).toMatch(/control plane +http:\/\/127\.0\.0\.1:\d+\/__control \(open: set CONTROL_TOKEN/);
    expect(out).not.toContain('warning:');
  });

  it('grants a token for each audience the greeting names, called at the URL it names', async () => {
    const fake = await launch([], { HOST: '' });
    const pairs = [...fake.output().matchAll(/([^\s,=]+) when you call (http:\/\/[^\s,]+)/g)].map((m) => ({
      audience: m[1]!,
      url: m[2]!,
    }));
    expect(pairs.map((p) => p.url)).toEqual([`http://127.0.0.1:${fake.port}`, `http://localhost:${fake.port}`]);
    for (const { audience, url } of pairs) {
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
        scope: 'openid offline',
        audience,
      });
      const response = await fetch(`${url}/oauth2/token`, { method: 'POST', body: form });
      expect(response.status, `${audience} at ${url}: ${await response.clone().text()}`).toBe(200);
    }
  });

  it('warns when the open control plane is reachable beyond loopback, and not once it is guarded', async () => {
    const open = await launch([], { HOST: '0.0.0.0' });
    expect(open.output()).toContain(`listening on all interfaces, port ${open.port}: http://localhost:${open.port}`);
    expect(open.output()).toMatch(/warning: listening on 0\.0\.0\.0 with an open control plane.*Set CONTROL_TOKEN/);
    const guarded = await launch([
      '--host',
      '0.0.0.0',
      '--control-token',
      'ops',
      '--base-url',
      'https://fake.example.test',
    ]);
    expect(guarded.output()).not.toContain('warning:');
    expect(guarded.output()).toMatch(/audience=fake\.example\.test\n/);
    expect(guarded.output()).toContain('https://fake.example.test/__control (guarded');
  });

  it('warns at start, naming the settings, when memory budgets pass half of the heap limit; not with the defaults', async () => {
    const heavy = await launch([], { WORLD_BYTES: '1000000000', LOG_FORMAT: 'pretty' });
    expect(heavy.output()).toMatch(
      /memory budgets pass half of the heap limit: .*WORLD_BYTES=1000000000.*JOURNAL_BYTES=\d+.*JOURNAL_TOTAL_BYTES=\d+/,
    );
    const plain = await launch();
    expect(plain.output()).not.toContain('memory budgets');
  });

  it('logs one readable line per request with LOG_FORMAT=pretty', async () => {
    const fake = await launch([], { LOG_FORMAT: 'pretty' });
    const response = await fetch(`${fake.url}/v1/orders`);
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.output()).toMatch(
      new RegExp(
        `\\d\\d:\\d\\d:\\d\\d\\.\\d{3} GET +/v1/orders 401 [\\d.]+ ms - ${response.headers.get('x-request-id')}`,
      ),
    );
    expect(
      fake
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{')),
    ).toEqual([]);
  });
});
