// The image as partners run it: built by a real engine, started with `docker run`, driven over HTTP.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { markedSnippet } from '../support/doc-pages.js';
import { docker, IMAGE, inspect, removeStarted, run } from './docker.js';

afterEach(removeStarted);

const report = (line: string) => process.stdout.write(`  [figure] ${line}\n`);

async function token(url: string, clientId = 'sandbox-client', secret = 'sandbox-secret'): Promise<Response> {
  return fetch(`${url}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'openid offline',
      client_id: clientId,
      client_secret: secret,
      audience: new URL(url).host,
    }),
  });
}

describe('the image', () => {
  it('starts healthy on a read-only root file system and serves the README curl session', async () => {
    const fake = await run();
    report(
      `container start to healthy: ${fake.startToHealthyMs.toFixed(0)} ms (Node ${await docker('run', '--rm', '--network', 'host', IMAGE, 'node', '-p', 'process.versions.node')})`,
    );
    const script = markedSnippet('curl-session').replaceAll('localhost:8080', `localhost:${fake.port}`);
    const output = execFileSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8' });
    const bodies = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { data?: unknown[] });
    expect(bodies).toHaveLength(3);
    for (const body of bodies) expect(body.data!.length).toBeGreaterThan(0);
  });

  it('reaches `healthy` through its own HEALTHCHECK', async () => {
    const fake = await run();
    const deadline = Date.now() + 40_000;
    let status = '';
    while (Date.now() < deadline && status !== 'healthy') {
      status = (await inspect<{ Status: string }>(fake.id, '.State.Health')).Status;
      if (status !== 'healthy') await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe('healthy');
  });

  it('runs as the unprivileged node user, listens on every interface and warns that the control plane is open', async () => {
    expect(await inspect<string>(IMAGE, '.Config.User')).toBe('node');
    const fake = await run();
    expect(await docker('exec', fake.id, 'id', '-u')).toBe('1000');
    const logs = await fake.logs();
    expect(logs).toContain(`listening on all interfaces, port ${fake.port}`);
    expect(logs).toMatch(/warning: listening on 0\.0\.0\.0 with an open control plane/);
    expect(logs).toContain('client_id=sandbox-client client_secret=sandbox-secret');
  });

  it('carries OCI labels naming its source, version and revision', async () => {
    const labels = await inspect<Record<string, string>>(IMAGE, '.Config.Labels');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(labels['org.opencontainers.image.source']).toMatch(/^https:\/\/github\.com\//);
    expect(labels['org.opencontainers.image.licenses']).toBe('MIT');
    if (!process.env.FAKE_IMAGE_GIVEN) {
      expect(labels['org.opencontainers.image.version']).toBe(pkg.version);
      expect(labels['org.opencontainers.image.revision']).toBe(
        execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
      );
    }
  });

  it('takes CONTROL_TOKEN, CLIENTS and a mounted FIXTURES file', async () => {
    const source = await run();
    const world = (await fetch(`${source.url}/__control/state`).then((r) => r.json())) as Record<string, unknown[]>;
    const dir = mkdtempSync(join(tmpdir(), 'container-fixtures-'));
    try {
      const file = join(dir, 'world.json');
      writeFileSync(file, JSON.stringify({ ...world, orders: world.orders!.slice(0, 1) }));
      chmodSync(file, 0o644);
      const fake = await run({
        env: {
          CONTROL_TOKEN: 'ops',
          CLIENTS: JSON.stringify([{ client_id: 'acme', client_secret: 's3cret' }]),
          FIXTURES: '/fixtures/world.json',
        },
        args: ['-v', `${file}:/fixtures/world.json:ro`],
      });
      expect((await fetch(`${fake.url}/__control/state`)).status).toBe(401);
      const state = await fetch(`${fake.url}/__control/state`, { headers: { authorization: 'Bearer ops' } });
      expect(state.status).toBe(200);
      expect(((await state.json()) as { orders: unknown[] }).orders).toHaveLength(1);
      expect((await token(fake.url, 'acme', 's3cret')).status).toBe(200);
      expect((await token(fake.url)).status).toBe(401);
      expect(await fake.logs()).not.toMatch(/warning:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers the requests in flight on `docker stop` and exits 0 in under 2 s', async () => {
    const fake = await run();
    const bearer = {
      authorization: `Bearer ${((await (await token(fake.url)).json()) as { access_token: string }).access_token}`,
    };
    await fetch(`${fake.url}/__control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/v1/share-classes', latency_ms: 700 }),
    });
    const inFlight = Array.from({ length: 5 }, () =>
      fetch(`${fake.url}/v1/share-classes`, { headers: bearer }).then((r) => r.status),
    );
    await new Promise((r) => setTimeout(r, 200));
    const begin = performance.now();
    await docker('stop', '--time', '10', fake.id);
    const stopMs = performance.now() - begin;
    report(`docker stop with 5 requests in flight: ${stopMs.toFixed(0)} ms`);
    expect(await Promise.all(inFlight)).toEqual([200, 200, 200, 200, 200]);
    expect(await inspect<number>(fake.id, '.State.ExitCode')).toBe(0);
    expect(stopMs).toBeLessThan(2000);
  });
});

describe('the image size', () => {
  it('keeps the layers above the Node base small', async () => {
    const size = Number(await docker('image', 'inspect', '-f', '{{.Size}}', IMAGE));
    const base = Number(await docker('image', 'inspect', '-f', '{{.Size}}', 'node:24-bookworm-slim'));
    report(
      `image ${(size / 1e6).toFixed(1)} MB, of which ${((size - base) / 1e6).toFixed(1)} MB above node:24-bookworm-slim (${(base / 1e6).toFixed(1)} MB here)`,
    );
    // The production dependencies and dist/: tens of MB, never a second node_modules or the sources.
    expect(size - base).toBeLessThan(80e6);
  });
});
