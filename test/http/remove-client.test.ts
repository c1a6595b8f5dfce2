import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { Schemas } from '../../src/api/types.js';
import { bearer, http, requestToken, testApp, tokenFor } from '../support/test-app.js';

// A tenant can go (DELETE /__control/clients/{client_id}): everything it holds with it, its room back at once, its
// tokens and credentials refused after; a partner's own token removes its own client only.
const MiB = 1024 * 1024;
const OPERATOR = 'operator-secret';
const operator = { Authorization: `Bearer ${OPERATOR}` };
const PARTNER = { client_id: 'partner-a', client_secret: 'partner-a-secret' };

const usageOf = async (app: Express): Promise<Schemas['Usage']> =>
  (await http(app).get('/__control/usage').set(operator).expect(200)).body;
const listed = async (app: Express): Promise<string[]> =>
  ((await http(app).get('/__control/clients').set(operator).expect(200)).body as Schemas['ClientList']).data.map(
    (client) => client.client_id,
  );
const remove = (app: Express, clientId: string, auth: Record<string, string> = operator) =>
  http(app).delete(`/__control/clients/${clientId}`).set(auth);
/** An account of ~50 KB as JSON. */
const large = (name: string) => ({ type: 'individual', first_name: name.padEnd(50_000, '.') });

async function withPartner(options: Parameters<typeof testApp>[0] = {}) {
  const app = testApp({ controlToken: OPERATOR, ...options });
  await http(app)
    .post('/__control/clients')
    .set(operator)
    .send({ ...PARTNER, scopes: ['read:accounts', 'write:accounts', 'control'] })
    .expect(201);
  return { app, token: await tokenFor(app, PARTNER) };
}

describe('DELETE /__control/clients/{client_id}', () => {
  it('answers 204; the client is no longer listed, its token answers 401 invalid_token, its credentials invalid_client', async () => {
    const { app, token } = await withPartner();
    await http(app).get('/v1/accounts').set(bearer(token)).expect(200);
    await remove(app, 'partner-a').expect(204);

    expect(await listed(app)).toEqual(['sandbox-client']);
    const refused = await http(app).get('/v1/accounts').set(bearer(token));
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_token');
    const credentials = await requestToken(app, PARTNER);
    expect(credentials.status).toBe(401);
    expect(credentials.body.error).toBe('invalid_client');
    // the control plane knows it no more
    const named = await http(app)
      .get('/__control/state')
      .set({ ...operator, 'X-Client-Id': 'partner-a' });
    expect(named.status).toBe(404);
    expect(named.body.code).toBe('client_not_found');
    // and the default client is as it was
    await http(app)
      .get('/v1/accounts')
      .set(bearer(await tokenFor(app)))
      .expect(200);
  });

  it('takes its world, faults and journal with it: a client registered again under its id starts afresh', async () => {
    const { app, token } = await withPartner();
    const auth = bearer(token);
    await http(app).post('/v1/accounts').set(auth).send({ type: 'individual', first_name: 'Gone' }).expect(201);
    await http(app)
      .post('/__control/faults')
      .set({ ...operator, 'X-Client-Id': 'partner-a' })
      .send({ status: 503, path: '/v1/assets' })
      .expect(201);
    await remove(app, 'partner-a').expect(204);

    await http(app)
      .post('/__control/clients')
      .set(operator)
      .send({ ...PARTNER, client_secret: 'another-secret', scopes: ['read:accounts'] })
      .expect(201);
    const as = { ...operator, 'X-Client-Id': 'partner-a' };
    const world = (await http(app).get('/__control/state').set(as).expect(200)).body as Schemas['World'];
    expect(world.accounts.some((account) => account.first_name === 'Gone')).toBe(false);
    expect((await http(app).get('/__control/faults').set(as).expect(200)).body.data).toEqual([]);
    expect((await http(app).get('/__control/requests').set(as).expect(200)).body.data).toEqual([]);
  });

  it('a token of a removed client stays refused once a client of the same id is registered again, whose own tokens work', async () => {
    const { app, token } = await withPartner();
    await remove(app, 'partner-a').expect(204);
    await http(app)
      .post('/__control/clients')
      .set(operator)
      .send({ ...PARTNER, scopes: ['read:accounts'] })
      .expect(201);
    const old = await http(app).get('/v1/accounts').set(bearer(token));
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('invalid_token');
    expect(old.body.detail).toContain('issued to an earlier client of this id');
    const renewed = await tokenFor(app, PARTNER);
    await http(app).get('/v1/accounts').set(bearer(renewed)).expect(200);
    // each registration marks its own tokens: the first group of their jti, a UUID still
    const jtiOf = (t: string): string => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).jti;
    expect(jtiOf(renewed)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(jtiOf(renewed).slice(0, 8)).not.toBe(jtiOf(token).slice(0, 8));
    expect(jtiOf(await tokenFor(app, PARTNER)).slice(0, 8)).toBe(jtiOf(renewed).slice(0, 8));
  });

  it('gives its room back: GET /__control/usage no longer lists it, and a tenant refused for want of room can be made', async () => {
    // 2 MiB, each tenant guaranteed 1 MiB: the default client and the partner hold it all
    const { app, token } = await withPartner({ worldBytes: 2 * MiB, tenantGuaranteeBytes: MiB });
    await http(app).post('/v1/accounts').set(bearer(token)).send(large('partner')).expect(201);
    const before = await usageOf(app);
    expect(before.tenants.map((row) => row.client_id)).toContain('partner-a');
    expect(before.world.held_bytes).toBe(2 * MiB);
    const third = { client_id: 'partner-b', client_secret: 'partner-b-secret' };
    const refused = await http(app).post('/__control/clients').set(operator).send(third);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('limit_reached');

    await remove(app, 'partner-a').expect(204);
    const after = await usageOf(app);
    expect(after.tenants.map((row) => row.client_id)).toEqual(['sandbox-client']);
    expect(after.world.held_bytes).toBe(MiB);
    expect(after.world.used_bytes).toBe(after.tenants[0]!.world_bytes);
    expect(after.budgets.tenants.used).toBe(1);
    expect(after.totals.journal_entries).toBe(
      after.tenants.reduce((sum, row) => sum + row.journal_entries, 0) +
        (after.largest.by_journal_bytes.find((row) => row.client_id === null)?.journal_entries ?? 0),
    );
    await http(app).post('/__control/clients').set(operator).send(third).expect(201);
  });

  it('frees its MAX_TENANTS slot', async () => {
    const { app } = await withPartner({ maxTenants: 2 });
    const third = { client_id: 'partner-b', client_secret: 'partner-b-secret' };
    expect((await http(app).post('/__control/clients').set(operator).send(third)).status).toBe(409);
    await remove(app, 'partner-a').expect(204);
    await http(app).post('/__control/clients').set(operator).send(third).expect(201);
  });

  it("a partner's own control token removes its own client, and is refused after; another client's answers 403 and removes nothing", async () => {
    const { app } = await withPartner();
    await http(app)
      .post('/__control/clients')
      .set(operator)
      .send({ client_id: 'partner-b', client_secret: 'partner-b-secret', scopes: ['control'] })
      .expect(201);
    const own = bearer(await tokenFor(app, { ...PARTNER, scope: 'openid offline control' }));
    const other = await remove(app, 'partner-b', own);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden_tenant');
    const defaultClient = await remove(app, 'sandbox-client', own);
    expect(defaultClient.status).toBe(403);
    expect(await listed(app)).toEqual(['sandbox-client', 'partner-a', 'partner-b']);

    await remove(app, 'partner-a', own).expect(204);
    expect(await listed(app)).toEqual(['sandbox-client', 'partner-b']);
    const after = await http(app).get('/__control/clock').set(own);
    expect(after.status).toBe(401);
  });

  it('answers 404 for an unknown client, and for one removed already', async () => {
    const { app } = await withPartner();
    const unknown = await remove(app, 'no-such-client');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('client_not_found');
    await remove(app, 'partner-a').expect(204);
    expect((await remove(app, 'partner-a')).status).toBe(404);
  });

  it('keeps the default client: 409 client_not_removable, saying why; nothing changes', async () => {
    const { app } = await withPartner();
    const refused = await remove(app, 'sandbox-client');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('client_not_removable');
    expect(refused.body.detail).toMatch(/default/);
    expect(await listed(app)).toEqual(['sandbox-client', 'partner-a']);
  });

  it('needs the control token when one is set', async () => {
    const { app } = await withPartner();
    expect((await remove(app, 'partner-a', {})).status).toBe(401);
    expect(await listed(app)).toEqual(['sandbox-client', 'partner-a']);
  });
});
