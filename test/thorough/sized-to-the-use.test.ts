import { describe, expect, it } from 'vitest';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';

// The budgets sized to the use (docs/configuration.md, "Memory budgets"), with the generator's own large worlds (test/unit/sized-to-the-use.test.ts checks
// worlds of the same size built by copying, in the fast suite).
describe('a default fake with a large generated world', () => {
  it('starts with FIXTURE_ACCOUNTS=20000 and takes writes (before: every write answered 409)', {
    timeout: 180_000,
  }, async () => {
    const app = testApp({ fixtureScale: { accounts: 20_000 } });
    const auth = bearer(await tokenFor(app));
    for (let i = 0; i < 20; i++)
      await http(app)
        .post('/v1/accounts')
        .set(auth)
        .send({ type: 'individual', first_name: `Ada ${i}` })
        .expect(201);
    const usage = (await http(app).get('/__control/usage').expect(200)).body;
    expect(usage.world.used_bytes).toBeGreaterThan(15_000_000);
    expect(usage.world.free_bytes).toBeGreaterThan(0);
  });

  it('holds FIXTURE_ORDERS=100000 (100,040 records, 122 MB as counted): it reads, and a write is refused by records, not bytes', {
    timeout: 180_000,
  }, async () => {
    const app = testApp({ fixtureScale: { orders: 100_000 } });
    const auth = bearer(await tokenFor(app));
    expect((await http(app).get('/v1/orders?limit=100').set(auth).expect(200)).body.data).toHaveLength(100);
    const refused = await http(app).post('/v1/accounts').set(auth).send({ type: 'individual' }).expect(409);
    expect(refused.body.detail).toContain('MAX_RECORDS_PER_TENANT');
    await http(app)
      .post('/__control/clients')
      .send({ client_id: 'second', client_secret: 'second-secret' })
      .expect(201);
  });
});
