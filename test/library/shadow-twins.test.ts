import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantFileName } from '../../src/persistence/tenant-file.js';
import { startServer, type FakeServer } from '../../src/index.js';
import type { Schemas } from '../../src/api/types.js';

const CLIENTS = Array.from({ length: 40 }, (_, i) => ({
  client_id: `partner-${i + 1}`,
  client_secret: `secret-of-partner-${i + 1}`,
}));

describe('shadow mode with more clients than MAX_TWINS', () => {
  let upstream: FakeServer;
  let shadow: FakeServer;
  beforeAll(async () => {
    upstream = await startServer({ seed: 7, clients: CLIENTS, maxTenants: 50 });
    shadow = await startServer({ seed: 7, upstream: upstream.url, maxTenants: 20, maxTwins: 10 });
  });
  afterAll(async () => {
    await shadow?.stop();
    await upstream?.stop();
  });

  it("answers every client, compares the first ten, says why the others are not compared, and leaves the operator's slots alone", async () => {
    const host = new URL(shadow.url).host;
    for (const { client_id, client_secret } of CLIENTS) {
      const granted = await fetch(`${shadow.url}/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'read:accounts',
          client_id,
          client_secret,
          audience: host,
        }),
      });
      expect(granted.status).toBe(200);
      const { access_token } = (await granted.json()) as { access_token: string };
      expect(
        (await fetch(`${shadow.url}/v1/accounts?limit=1`, { headers: { authorization: `Bearer ${access_token}` } }))
          .status,
      ).toBe(200);
    }
    const report = (await (await fetch(`${shadow.url}/__control/fidelity`)).json()) as Schemas['FidelityReport'];
    expect(report).toMatchObject({ exchanges: 80, compared: 20, not_comparable: 60 });
    expect(report.not_comparable_exchanges).toHaveLength(60);
    for (const entry of report.not_comparable_exchanges)
      expect(entry.reason).toMatch(/has no twin: This fake holds 10 twins, the most MAX_TWINS allows/);
    expect(report.not_comparable_exchanges[0]!.reason).toContain('partner-11');

    // the operator's own clients still have the 19 slots the default client leaves
    for (let i = 0; i < 19; i++) {
      const created = await fetch(`${shadow.url}/__control/clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: `operator-${i}`, client_secret: 'operator-secret' }),
      });
      expect(created.status).toBe(201);
    }
    const refused = await fetch(`${shadow.url}/__control/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'operator-20', client_secret: 'operator-secret' }),
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { detail: string }).detail).toContain('MAX_TENANTS');
  });

  it('keeps its twins: removing one answers 409 client_not_removable, and it stays', async () => {
    const removed = await fetch(`${shadow.url}/__control/clients/partner-1`, { method: 'DELETE' });
    expect(removed.status).toBe(409);
    expect(((await removed.json()) as { code: string; detail: string }).detail).toMatch(/shadow mode's twin/);
    expect((await shadow.control.clients()).map((c) => c.client_id)).toContain('partner-1');
  });
});

describe('a twin with STATE_DIR', () => {
  it("is never saved: a restart does not bring it back into one of the operator's slots", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shadow-twins-'));
    const upstream = await startServer({ seed: 7, clients: CLIENTS.slice(0, 1) });
    const shadow = await startServer({ seed: 7, upstream: upstream.url, stateDir: dir });
    try {
      const host = new URL(shadow.url).host;
      const { client_id, client_secret } = CLIENTS[0]!;
      const granted = await fetch(`${shadow.url}/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'read:accounts',
          client_id,
          client_secret,
          audience: host,
        }),
      });
      expect(granted.status).toBe(200);
      expect((await shadow.control.clients()).map((c) => c.client_id)).toContain(client_id);
    } finally {
      await shadow.stop();
      await upstream.stop();
    }
    expect(existsSync(join(dir, 'tenants'))).toBe(true);
    expect(existsSync(join(dir, 'tenants', tenantFileName(CLIENTS[0]!.client_id)))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
