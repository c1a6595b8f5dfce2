import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { Schemas, World } from '../../src/api/types.js';
import { createApp } from '../../src/satellites.js';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';

// Sized to the use (docs/configuration.md, "Memory budgets"): WORLD_BYTES shared by every tenant, each guaranteed its part and free to borrow room
// no other tenant's guarantee holds, up to MAX_TENANT_BYTES.
const MiB = 1024 * 1024;
const CLIENTS = [
  { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
  { client_id: 'second', client_secret: 'second-secret' },
];
/** Two partners in a sandbox of 2 MiB for 4 tenants: each guaranteed 512 KiB. */
const SHARED = { clients: CLIENTS, maxTenants: 4, worldBytes: 2 * MiB };

const usageOf = async (app: Express): Promise<Schemas['Usage']> =>
  (await http(app).get('/__control/usage').expect(200)).body;
const rowOf = (usage: Schemas['Usage'], clientId: string) => usage.tenants.find((row) => row.client_id === clientId)!;
const stateOf = async (app: Express, clientId: string): Promise<World> =>
  (await http(app).get('/__control/state').set('X-Client-Id', clientId).expect(200)).body;
const authOf = async (app: Express, index: number) => bearer(await tokenFor(app, CLIENTS[index]));
/** An account of ~50 KB as JSON. */
const large = (name: string) => ({ type: 'individual', first_name: name.padEnd(50_000, '.') });

/** Creates large accounts until one is refused: the statuses, and the refusal. */
async function fill(app: Express, auth: Record<string, string>, most = 100) {
  const created: number[] = [];
  for (let i = 0; i < most; i++) {
    const response = await http(app)
      .post('/v1/accounts')
      .set(auth)
      .send(large(`${i}`));
    if (response.status !== 201) return { created: created.length, refusal: response };
    created.push(i);
  }
  throw new Error(`${most} creates, none refused`);
}

describe('WORLD_BYTES, shared', () => {
  it('a partner borrows past its guarantee up to the room the other’s guarantee leaves, then 409 naming WORLD_BYTES; the other’s writes within its guarantee all succeed', async () => {
    const app = testApp(SHARED);
    const [one, two] = [await authOf(app, 0), await authOf(app, 1)];
    const first = await fill(app, one);
    expect(first.refusal.status).toBe(409);
    expect(first.refusal.body.code).toBe('limit_reached');
    expect(first.refusal.body.detail).toMatch(/WORLD_BYTES \(2097152\)/);
    expect(first.created).toBeGreaterThan(25);
    // the other partner, within its 512 KiB, is refused nothing
    const within = Math.floor((512 * 1024 - rowOf(await usageOf(app), 'second').world_bytes) / 50_100);
    for (let i = 0; i < within; i++)
      await http(app)
        .post('/v1/accounts')
        .set(two)
        .send(large(`two-${i}`))
        .expect(201);
    // past it, the room is the first partner's loan: refused, naming the setting
    const past = await http(app).post('/v1/accounts').set(two).send(large('past'));
    expect(past.status).toBe(409);
    expect(past.body.detail).toContain('WORLD_BYTES');
    const usage = await usageOf(app);
    expect(usage.world.held_bytes).toBeLessThanOrEqual(2 * MiB);
    expect(usage.budgets.world_bytes).toEqual({ setting: 'WORLD_BYTES', used: usage.world.used_bytes, limit: 2 * MiB });
  });

  it('a write past the room changes nothing (the next id included); after a reset the partner has room again', async () => {
    const app = testApp(SHARED);
    const auth = await authOf(app, 0);
    await fill(app, auth);
    const before = await stateOf(app, 'sandbox-client');
    const refused = await http(app).post('/v1/accounts').set(auth).send(large('again'));
    expect(refused.status).toBe(409);
    expect(await stateOf(app, 'sandbox-client')).toEqual(before);
    await http(app).post('/__control/reset').set('X-Client-Id', 'sandbox-client').send({}).expect(204);
    await http(app).post('/v1/accounts').set(auth).send(large('after')).expect(201);
  });

  it('a write past MAX_TENANT_BYTES is refused naming MAX_TENANT_BYTES, though WORLD_BYTES has room', async () => {
    const app = testApp({ ...SHARED, maxTenantBytes: MiB });
    const { refusal } = await fill(app, await authOf(app, 0));
    expect(refusal.status).toBe(409);
    expect(refusal.body.detail).toMatch(/MAX_TENANT_BYTES \(1048576\)/);
    expect(rowOf(await usageOf(app), 'sandbox-client').world_bytes).toBeLessThanOrEqual(MiB);
  });

  it('a new client whose guarantee cannot be held is refused at creation (409 limit_reached naming WORLD_BYTES and the tenants that hold the room), and made once they give it back', async () => {
    const app = testApp(SHARED);
    await fill(app, await authOf(app, 0));
    const refused = await http(app)
      .post('/__control/clients')
      .send({ client_id: 'third', client_secret: 'third-secret' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('limit_reached');
    expect(refused.body.detail).toContain('WORLD_BYTES (2097152)');
    expect(refused.body.detail).toContain('"sandbox-client"');
    expect(
      (await http(app).get('/__control/clients').expect(200)).body.data.map((c: { client_id: string }) => c.client_id),
    ).toEqual(['sandbox-client', 'second']);
    await http(app).post('/__control/reset').set('X-Client-Id', 'sandbox-client').send({}).expect(204);
    await http(app).post('/__control/clients').send({ client_id: 'third', client_secret: 'third-secret' }).expect(201);
  });

  it('a world loaded by PUT /__control/state past the room is refused naming the setting, nothing changed', async () => {
    // 1 MiB for 4 tenants: 256 KiB guaranteed to the second, 768 KiB the most the first may hold
    const app = testApp({ ...SHARED, worldBytes: MiB });
    const before = await stateOf(app, 'sandbox-client');
    const bigger = structuredClone(before);
    // ~850 KB of accounts beside the world's own
    const { external_id: _, ...fields } = bigger.accounts.find((a) => a.type === 'individual')!;
    for (let i = 0; i < 17; i++)
      bigger.accounts.push({
        ...fields,
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        first_name: 'x'.repeat(50_000),
      });
    const refused = await http(app).put('/__control/state').send(bigger);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('WORLD_BYTES (1048576)');
    expect(await stateOf(app, 'sandbox-client')).toEqual(before);
    await http(app)
      .put('/__control/state')
      .send({ ...bigger, accounts: bigger.accounts.slice(0, -6) })
      .expect(204);
  });

  it('GET /__control/usage answers each tenant’s use, guarantee and what it borrows, beside each budget', async () => {
    const app = testApp(SHARED);
    await fill(app, await authOf(app, 0));
    const usage = await usageOf(app);
    const [one, two] = [rowOf(usage, 'sandbox-client'), rowOf(usage, 'second')];
    expect(one.guarantee_bytes).toBe(512 * 1024);
    expect(one.borrowed_bytes).toBe(one.world_bytes - 512 * 1024);
    expect(two).toMatchObject({ guarantee_bytes: 512 * 1024, borrowed_bytes: 0 });
    expect(usage.world).toEqual({
      limit_bytes: 2 * MiB,
      used_bytes: one.world_bytes + two.world_bytes,
      held_bytes: one.world_bytes + 512 * 1024,
      free_bytes: 2 * MiB - one.world_bytes - 512 * 1024,
      guarantee_bytes: 512 * 1024,
      borrowed_bytes: one.borrowed_bytes,
    });
    expect(usage.budgets.tenant_guarantee_bytes).toEqual({
      setting: 'TENANT_GUARANTEE_BYTES',
      used: 512 * 1024,
      limit: 512 * 1024,
    });
    expect(usage.budgets.tenant_bytes).toMatchObject({
      setting: 'MAX_TENANT_BYTES',
      used: one.world_bytes,
      limit: 2 * MiB,
    });
  });
});

describe('worlds the fake is told to build', () => {
  it('CLIENTS whose guarantees WORLD_BYTES cannot hold stop the start, naming the settings', () => {
    const clients = ['a', 'b', 'c'].map((client_id) => ({ client_id, client_secret: 's' }));
    expect(() => createApp({ clients, worldBytes: 2 * MiB, tenantGuaranteeBytes: MiB })).toThrow(
      /CLIENTS.*WORLD_BYTES \(2097152\)/,
    );
    expect(() =>
      createApp({ clients: clients.slice(0, 2), worldBytes: 2 * MiB, tenantGuaranteeBytes: MiB }),
    ).not.toThrow();
  });

  it('a guarantee above WORLD_BYTES or MAX_TENANT_BYTES stops the start, naming both: never lowered in silence', () => {
    expect(() => createApp({ worldBytes: MiB, tenantGuaranteeBytes: 2 * MiB })).toThrow(
      /tenantGuaranteeBytes \(TENANT_GUARANTEE_BYTES\).*above worldBytes \(WORLD_BYTES\)/,
    );
    expect(() => createApp({ worldBytes: 4 * MiB, maxTenantBytes: MiB, tenantGuaranteeBytes: 2 * MiB })).toThrow(
      /tenantGuaranteeBytes \(TENANT_GUARANTEE_BYTES\).*above maxTenantBytes \(MAX_TENANT_BYTES\)/,
    );
  });

  it('fixtures that do not fit stop the start, naming the settings: FIXTURES, FIXTURE_ACCOUNTS, WORLD_BYTES, MAX_TENANT_BYTES', async () => {
    const world = await stateOf(testApp(), 'sandbox-client');
    world.accounts[0]!.city = 'x'.repeat(10_000);
    expect(() => createApp({ fixtures: world, worldBytes: 64 * 1024 })).toThrow(
      /library option fixtures.*WORLD_BYTES \(65536\)/,
    );
    expect(() => createApp({ fixtures: world, maxTenantBytes: 32 * 1024 })).toThrow(
      /library option fixtures.*MAX_TENANT_BYTES \(32768\)/,
    );
    expect(() => createApp({ fixtureScale: { accounts: 40 }, worldBytes: 64 * 1024 })).toThrow(
      /FIXTURE_ACCOUNTS=40.*WORLD_BYTES/,
    );
  });
});
