import { describe, expect, it } from 'vitest';
import type { World } from '../../src/api/types.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

const stateOf = async (app: ReturnType<typeof testApp>, clientId?: string) =>
  (
    await http(app)
      .get('/__control/state')
      .set(clientId ? { 'X-Client-Id': clientId } : {})
  ).body as World;

describe('control plane basics', () => {
  it('GET /__control/health answers {"status":"ok"}', async () => {
    const response = await http(testApp()).get('/__control/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('health answers the same without response validation, where a request that brings nothing skips the validator', async () => {
    const checked = testApp();
    const unchecked = testApp({ validateResponses: false });
    const variants = [
      (app: ReturnType<typeof testApp>) => http(app).get('/__control/health'),
      (app: ReturnType<typeof testApp>) => http(app).get('/__control/health?'),
      (app: ReturnType<typeof testApp>) => http(app).get('/__control/health?verbose=1'),
      (app: ReturnType<typeof testApp>) =>
        http(app).get('/__control/health').set('Content-Type', 'application/json').send('{"a":1}'),
      (app: ReturnType<typeof testApp>) => http(app).head('/__control/health'),
    ];
    for (const variant of variants) {
      const [a, b] = [await variant(checked), await variant(unchecked)];
      expect({ status: b.status, body: b.body, type: b.type }).toEqual({
        status: a.status,
        body: a.body,
        type: a.type,
      });
    }
    expect((await http(unchecked).get('/__control/health?verbose=1')).status).toBeGreaterThanOrEqual(400);
  });

  it('GET /__control/state is the fixtures-file shape and reads back equal through PUT', async () => {
    const app = testApp();
    const before = await stateOf(app);
    expect(Object.keys(before).sort()).toEqual([
      'accounts',
      'assets',
      'custom_offerings',
      'documents',
      'feeder_funds',
      'orders',
      'payment_method_details',
      'share_classes',
      'wallets',
    ]);
    const changed = structuredClone(before);
    changed.share_classes[0]!.name = 'Renamed Class';
    changed.orders = changed.orders.slice(0, 3);
    await http(app).put('/__control/state').send(changed).expect(204);
    expect(await stateOf(app)).toEqual(changed);
    const token = await tokenFor(app);
    const listed = await http(app).get('/v1/share-classes?name=renamed').set('Authorization', `Bearer ${token}`);
    expect(listed.body.data).toHaveLength(1);
    await http(app).put('/__control/state').send(before).expect(204);
    expect(JSON.stringify(await stateOf(app))).toBe(JSON.stringify(before));
  });

  it('PUT /__control/state refuses a snapshot with a broken link or duplicate id with 422, changing nothing', async () => {
    const app = testApp();
    const before = await stateOf(app);
    const broken = structuredClone(before);
    broken.orders[0]!.account_id = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    broken.assets.push(structuredClone(broken.assets[0]!));
    const response = await http(app).put('/__control/state').send(broken);
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('invalid_world');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/orders/0/account_id' }),
        expect.objectContaining({ path: `/assets/${before.assets.length}/id` }),
      ]),
    );
    expect(await stateOf(app)).toEqual(before);
  });

  it('PUT /__control/state refuses a snapshot that breaks the schema with 422 naming the field', async () => {
    const app = testApp();
    const before = await stateOf(app);
    const broken = structuredClone(before) as unknown as { orders: Record<string, unknown>[] };
    broken.orders[1]!.status = 'SHIPPED';
    const response = await http(app).put('/__control/state').send(broken);
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ location: 'body', path: '/orders/1/status' });
    expect(await stateOf(app)).toEqual(before);
  });

  it('POST /__control/reset puts every tenant back to the seeded bytes and the clock to real time', async () => {
    const app = testApp();
    const pristine = JSON.stringify(await stateOf(app));
    await http(app).post('/__control/clients').send({ client_id: 'partner-b', client_secret: 'b' }).expect(201);
    const emptied = { ...(await stateOf(app)), orders: [] };
    await http(app).put('/__control/state').send(emptied).expect(204);
    await http(app).put('/__control/state').set('X-Client-Id', 'partner-b').send(emptied).expect(204);
    await http(app).post('/__control/clock').send({ advance_seconds: 86_400 }).expect(200);
    await http(app).post('/__control/reset').expect(204);
    expect(JSON.stringify(await stateOf(app))).toBe(pristine);
    expect(JSON.stringify(await stateOf(app, 'partner-b'))).toBe(pristine);
    const now = new Date((await http(app).get('/__control/clock')).body.now).getTime();
    expect(Math.abs(now - Date.now())).toBeLessThan(5000);
  });

  it('POST /__control/reset with client_id resets that tenant only', async () => {
    const app = testApp();
    const pristine = await stateOf(app);
    await http(app).post('/__control/clients').send({ client_id: 'partner-b', client_secret: 'b' }).expect(201);
    const emptied = { ...pristine, orders: [] };
    await http(app).put('/__control/state').send(emptied).expect(204);
    await http(app).put('/__control/state').set('X-Client-Id', 'partner-b').send(emptied).expect(204);
    await http(app).post('/__control/reset').send({ client_id: 'partner-b' }).expect(204);
    expect(await stateOf(app, 'partner-b')).toEqual(pristine);
    expect((await stateOf(app)).orders).toEqual([]);
    expect((await http(app).post('/__control/reset').send({ client_id: 'nobody' })).status).toBe(404);
  });

  it('POST /__control/clock moves one tenant’s clock, by seconds or to a time', async () => {
    const app = testApp();
    await http(app).post('/__control/clients').send({ client_id: 'partner-b', client_secret: 'b' }).expect(201);
    const set = await http(app).post('/__control/clock').send({ now: '2030-01-01T00:00:00Z' });
    expect(set.status).toBe(200);
    expect(new Date(set.body.now).getTime() - Date.UTC(2030, 0, 1)).toBeLessThan(2000);
    const advanced = await http(app).post('/__control/clock').send({ advance_seconds: 3600 });
    expect(new Date(advanced.body.now).getTime() - Date.UTC(2030, 0, 1, 1)).toBeLessThan(2000);
    const other = await http(app).get('/__control/clock?client_id=partner-b');
    expect(Math.abs(new Date(other.body.now).getTime() - Date.now())).toBeLessThan(5000);
  });

  it('POST /__control/clock freezes a clock: it then moves only when told, and runs on from there when unfrozen', async () => {
    const app = testApp();
    const frozen = await http(app)
      .post('/__control/clock')
      .send({ now: '2030-01-01T00:00:00Z', frozen: true })
      .expect(200);
    expect(frozen.body).toEqual({ now: '2030-01-01T00:00:00.000Z', frozen: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await http(app).get('/__control/clock')).body).toEqual({ now: '2030-01-01T00:00:00.000Z', frozen: true });
    expect((await http(app).post('/__control/clock').send({ advance_seconds: 1.5 })).body).toEqual({
      now: '2030-01-01T00:00:01.500Z',
      frozen: true,
    });
    const running = await http(app).post('/__control/clock').send({ frozen: false }).expect(200);
    expect(running.body.frozen).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.parse((await http(app).get('/__control/clock')).body.now)).toBeGreaterThan(
      Date.UTC(2030, 0, 1, 0, 0, 1, 500),
    );
    await http(app).post('/__control/clock').send({ frozen: true }).expect(200);
    await http(app).post('/__control/reset').send({}).expect(204);
    expect((await http(app).get('/__control/clock')).body.frozen).toBe(false);
  });

  it('POST /__control/clock refuses both or neither field, and times no ISO date can show', async () => {
    const app = testApp();
    expect((await http(app).post('/__control/clock').send({})).status).toBe(422);
    expect(
      (await http(app).post('/__control/clock').send({ now: '2030-01-01T00:00:00Z', advance_seconds: 1 })).status,
    ).toBe(422);
    expect((await http(app).post('/__control/clock').send({ now: 'tomorrow' })).status).toBe(422);
    const far = await http(app).post('/__control/clock').send({ advance_seconds: 1e15 });
    expect(far.status).toBe(422);
    expect(far.body.code).toBe('invalid_clock');
  });

  it('POST /__control/clock keeps a year below the last instant a date shows, so a kept running clock always loads', async () => {
    const app = testApp();
    for (const now of ['9999-12-31T23:59:58Z', '9999-01-01T00:00:00Z']) {
      const refused = await http(app).post('/__control/clock').send({ now });
      expect(refused.status, now).toBe(422);
      expect(refused.body.code, now).toBe('invalid_clock');
      expect(refused.body.detail, now).toContain('9998-12-31T23:59:59Z');
    }
    await http(app).post('/__control/clock').send({ now: '9998-12-31T23:59:59Z', frozen: true }).expect(200);
    expect((await http(app).post('/__control/clock').send({ advance_seconds: 1 })).body.code).toBe('invalid_clock');
    expect((await http(app).get('/__control/clock')).body.now).toBe('9998-12-31T23:59:59.000Z');
  });

  it.each([
    '2024-02-30T00:00:00Z',
    '2023-02-29T10:00:00Z',
    '2024-04-31T12:00:00Z',
    '2024-06-31T00:00:00+02:00',
    '2024-02-30',
  ])(
    'POST /__control/clock refuses %s, a date the calendar has not (422 naming /now), and changes nothing',
    async (now) => {
      const app = testApp();
      const before = (await http(app).get('/__control/clock')).body.now as string;
      const refused = await http(app).post('/__control/clock').send({ now });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('validation_error');
      expect(refused.body.errors[0].path).toBe('/now');
      expect(Date.parse((await http(app).get('/__control/clock')).body.now) - Date.parse(before)).toBeLessThan(5000);
    },
  );

  it('POST /__control/clock takes 29 February of a leap year', async () => {
    // frozen: a running clock may have moved on by a millisecond when it answers
    const ok = await http(testApp()).post('/__control/clock').send({ now: '2024-02-29T10:00:00Z', frozen: true });
    expect(ok.status).toBe(200);
    expect(ok.body.now).toBe('2024-02-29T10:00:00.000Z');
  });

  it('an unknown X-Client-Id answers 404 client_not_found', async () => {
    const response = await http(testApp()).get('/__control/state').set('X-Client-Id', 'ghost');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('client_not_found');
  });
});

describe('clients and tenants', () => {
  it('a client registered through the control plane gets its own seeded world and can get a token', async () => {
    const app = testApp();
    const created = await http(app)
      .post('/__control/clients')
      .send({
        client_id: 'partner-b',
        client_secret: 'b-secret',
        scopes: ['read:assets'],
        settings: { tax_reporting: true },
      });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      client_id: 'partner-b',
      token_endpoint_auth_method: 'client_secret_post',
      scopes: ['read:assets'],
      settings: expect.objectContaining({ tax_reporting: true, lei_required: false, order_progression: 'manual' }),
    });
    expect(created.body).not.toHaveProperty('client_secret');
    const token = await tokenFor(app, { client_id: 'partner-b', client_secret: 'b-secret' });
    expect((await http(app).get('/v1/assets').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    expect(await stateOf(app, 'partner-b')).toEqual(await stateOf(app));
  });

  it('registering an existing client_id answers 409', async () => {
    const response = await http(testApp())
      .post('/__control/clients')
      .send({ client_id: 'sandbox-client', client_secret: 'x' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('client_exists');
  });

  it('PATCH /__control/clients/{id} changes scopes and settings; new tokens carry the new scopes', async () => {
    const app = testApp();
    const patched = await http(app)
      .patch('/__control/clients/sandbox-client')
      .send({ scopes: ['read:orders'], settings: { lei_required: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      client_id: 'sandbox-client',
      token_endpoint_auth_method: 'client_secret_post',
      scopes: ['read:orders'],
      settings: expect.objectContaining({ tax_reporting: false, lei_required: true, order_progression: 'manual' }),
    });
    const token = await tokenFor(app);
    expect((await http(app).get('/v1/assets').set('Authorization', `Bearer ${token}`)).status).toBe(403);
    expect((await http(app).patch('/__control/clients/ghost').send({ scopes: [] })).status).toBe(404);
    expect(
      (
        await http(app)
          .patch('/__control/clients/sandbox-client')
          .send({ scopes: ['admin'] })
      ).status,
    ).toBe(422);
  });

  it('a tenant’s changes are invisible to another tenant', async () => {
    const app = testApp({
      clients: [
        { client_id: 'a', client_secret: 'a' },
        { client_id: 'b', client_secret: 'b' },
      ],
    });
    const state = await stateOf(app, 'a');
    await http(app)
      .put('/__control/state')
      .set('X-Client-Id', 'a')
      .send({ ...state, orders: state.orders.slice(0, 1) })
      .expect(204);
    const tokenB = await tokenFor(app, { client_id: 'b', client_secret: 'b' });
    const orders = await http(app).get('/v1/orders?limit=1000').set('Authorization', `Bearer ${tokenB}`);
    expect(orders.body.data).toHaveLength(state.orders.length);
    const tokenA = await tokenFor(app, { client_id: 'a', client_secret: 'a' });
    expect(
      (await http(app).get('/v1/orders?limit=1000').set('Authorization', `Bearer ${tokenA}`)).body.data,
    ).toHaveLength(1);
  });

  it('control calls act on the default client (the first of CLIENTS) without X-Client-Id', async () => {
    const app = testApp({
      clients: [
        { client_id: 'first', client_secret: 'x' },
        { client_id: 'second', client_secret: 'y' },
      ],
    });
    const state = await stateOf(app);
    await http(app)
      .put('/__control/state')
      .send({ ...state, orders: [] })
      .expect(204);
    expect((await stateOf(app, 'first')).orders).toEqual([]);
    expect((await stateOf(app, 'second')).orders).toHaveLength(state.orders.length);
  });
});

describe('control guard', () => {
  it('with controlToken set, no control operation of the document but health answers without it', async () => {
    const { loadApiDocument, operationsOf } = await import('../../src/api/document.js');
    const app = testApp({ controlToken: 'let-me-in' });
    const control = operationsOf(loadApiDocument().document).filter((op) => op.path.startsWith('/__control'));
    expect(control.length).toBeGreaterThanOrEqual(15);
    for (const op of control) {
      const path = op.path.replace(/\{\w+\}/g, '3fa85f64-5717-4562-b3fc-2c963f66afa6');
      const agent = http(app) as unknown as Record<string, (p: string) => ReturnType<ReturnType<typeof http>['get']>>;
      const response = await agent[op.method]!(path).send({});
      expect(response.status, op.operationId).toBe(op.operationId === 'getHealth' ? 200 : 401);
    }
  });

  it('with controlToken set, /__control needs it; health does not; a partner token without the scope control never opens it', async () => {
    const app = testApp({ controlToken: 'let-me-in' });
    expect((await http(app).get('/__control/health')).status).toBe(200);
    const denied = await http(app).get('/__control/state');
    expect(denied.status).toBe(401);
    expect(denied.body.code).toBe('invalid_control_token');
    const partner = await tokenFor(app);
    const withoutScope = await http(app).get('/__control/state').set('Authorization', `Bearer ${partner}`);
    expect(withoutScope.status).toBe(403);
    expect(withoutScope.body.code).toBe('insufficient_scope');
    expect((await http(app).post('/__control/reset').set('Authorization', 'Bearer let-me-i')).status).toBe(401);
    expect((await http(app).get('/__control/state').set('Authorization', 'Bearer let-me-in')).status).toBe(200);
  });
});
