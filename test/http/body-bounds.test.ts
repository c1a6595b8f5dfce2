import { describe, expect, it } from 'vitest';
import type { World } from '../../src/api/types.js';
import { loadApiDocument } from '../../src/api/document.js';
import { MAX_BODY_COST, MAX_CONTROL_BODY_COST, mostRequired } from '../../src/http/body-bounds.js';
import { appPerFile } from '../support/tenants.js';
import { http } from '../support/test-app.js';

const fake = appPerFile();
const zeros = (count: number): string => Array.from({ length: count }, () => '0').join(',');
/** What an object costs besides its members: the most required fields a schema asks for. */
const objectCost = mostRequired(loadApiDocument().document);

describe('a body holding more values than any request takes', () => {
  it('(POST /v1/accounts, wallets of 500,000 zeros) answers 422 naming /wallets and its size, before any item is checked, and creates nothing', async () => {
    const { app, token } = await fake.tenant();
    const auth = { Authorization: `Bearer ${token}` };
    const before = (await http(app).get('/v1/accounts').query({ limit: 1000 }).set(auth).expect(200)).body.data.length;
    const body = `{"type":"individual","external_id":"huge-1","wallets":[${zeros(500_000)}]}`;
    expect(body.length).toBeLessThan(1024 * 1024);
    const response = await http(app).post('/v1/accounts').set(auth).set('Content-Type', 'application/json').send(body);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'validation_error', status: 422 });
    expect(response.body.detail).toContain('/wallets holds 500000 items');
    expect(response.body.detail).toContain(`at most ${MAX_BODY_COST} values`);
    // one field named, not the validator's 50 of 500,000 wrong items
    expect(response.body.errors).toEqual([
      { location: 'body', path: '/wallets', message: expect.stringContaining('500000 items') },
    ]);
    expect(response.body.errors_omitted).toBeUndefined();
    expect((await http(app).get('/v1/accounts').query({ limit: 1000 }).set(auth).expect(200)).body.data).toHaveLength(
      before,
    );
  });

  it('counts values at every level and each object as the required fields it could miss: many small objects past the budget name the array', async () => {
    const { app, token } = await fake.tenant();
    const wallets = Array.from({ length: Math.ceil(MAX_BODY_COST / (2 + objectCost)) }, (_, i) => ({
      wallet_address: `0x${String(i).padStart(40, '0')}`,
    }));
    const response = await http(app)
      .post('/v1/accounts')
      .set({ Authorization: `Bearer ${token}` })
      .send({ type: 'individual', wallets });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^\/wallets(\/\d+)?$/) }),
    ]);
  });

  it('just within the budget is validated as usual: every wrong item counted, the first 50 listed', async () => {
    const { app, token } = await fake.tenant();
    // the body object costs its two members and what an object costs
    const items = MAX_BODY_COST - 2 - objectCost;
    const body = `{"type":"individual","wallets":[${zeros(items)}]}`;
    const response = await http(app)
      .post('/v1/accounts')
      .set({ Authorization: `Bearer ${token}` })
      .set('Content-Type', 'application/json')
      .send(body);
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(50);
    expect(response.body.errors[0]).toMatchObject({ location: 'body', path: '/wallets/0' });
    expect(response.body.errors_omitted).toBe(items - 50);
  });

  it('the control plane takes bigger bodies (a world): PUT /__control/state past the public budget is validated, not refused by size', async () => {
    const { app, clientId } = await fake.tenant();
    const before = (await http(app).get('/__control/state').set('X-Client-Id', clientId)).body as World;
    const response = await http(app)
      .put('/__control/state')
      .set('X-Client-Id', clientId)
      .set('Content-Type', 'application/json')
      .send(`{"accounts":[${zeros(MAX_BODY_COST + 10)}]}`);
    expect(response.status).toBe(422);
    expect(response.body.detail).not.toContain('more than a request body may hold');
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/accounts/0' })]));
    expect((await http(app).get('/__control/state').set('X-Client-Id', clientId)).body).toEqual(before);

    const huge = await http(app)
      .put('/__control/state')
      .set('X-Client-Id', clientId)
      .set('Content-Type', 'application/json')
      .send(`{"accounts":[${zeros(MAX_CONTROL_BODY_COST + 10)}]}`);
    expect(huge.status).toBe(422);
    expect(huge.body.errors).toEqual([expect.objectContaining({ path: '/accounts' })]);
  });
});
