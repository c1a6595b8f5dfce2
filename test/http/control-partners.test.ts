import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Express } from 'express';
import type { World } from '../../src/api/types.js';
import { bearer, http, requestToken, testApp, tokenFor } from '../support/test-app.js';

// A sandbox shared by partners (docs/control-plane.md): the operator holds CONTROL_TOKEN; each partner reaches the control
// plane with a token of its own client carrying the scope `control`, for its own tenant only.
const OPERATOR = 'operator-secret';
const operator = { Authorization: `Bearer ${OPERATOR}` };

const PARTNERS = [
  {
    client_id: 'acme',
    client_secret: 'acme-secret',
    scopes: [
      'read:accounts',
      'write:accounts',
      'read:orders',
      'write:orders',
      'read:assets',
      'read:documents',
      'control',
    ],
  },
  { client_id: 'globex', client_secret: 'globex-secret', scopes: ['read:accounts', 'read:orders', 'control'] },
] as const;

/** A sandbox with the default client and two partners granted `control`; acme's control token. */
async function sharedSandbox(options: { controlToken?: string } = { controlToken: OPERATOR }) {
  const app = testApp({
    ...options,
    clients: [
      { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
      ...PARTNERS.map((p) => ({ ...p, scopes: [...p.scopes] })),
    ],
  });
  const acme = await tokenFor(app, {
    client_id: 'acme',
    client_secret: 'acme-secret',
    scope: 'openid offline control',
  });
  return { app, acme, as: (token: string) => bearer(token) };
}

const stateAsOperator = async (app: Express, clientId: string) =>
  (
    await http(app)
      .get('/__control/state')
      .set({ ...operator, 'X-Client-Id': clientId })
  ).body as World;

describe('the scope control', () => {
  it('is granted by no default, only by the operator through PATCH /__control/clients/{id}, and put in a token only when asked for', async () => {
    const app = testApp({ controlToken: OPERATOR });
    const refused = await requestToken(app, { scope: 'openid offline control' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_scope');
    const granted = await http(app)
      .patch('/__control/clients/sandbox-client')
      .set(operator)
      .send({ scopes: ['read:accounts', 'control'] });
    expect(granted.status).toBe(200);
    expect(granted.body.scopes).toEqual(['read:accounts', 'control']);
    expect((await requestToken(app)).body.scope).toBe('openid offline read:accounts');
    expect((await requestToken(app, { scope: 'openid offline control' })).body.scope).toBe(
      'openid offline read:accounts control',
    );
    const discovery = await http(app).get('/.well-known/openid-configuration');
    expect(discovery.body.scopes_supported).toContain('control');
  });

  it('a token with it reads its own tenant; its expired token answers 401 token_expired', async () => {
    const { app, acme } = await sharedSandbox();
    const own = await http(app).get('/__control/state').set(bearer(acme));
    expect(own.status).toBe(200);
    await http(app)
      .post('/__control/clock')
      .set(operator)
      .set('X-Client-Id', 'acme')
      .send({ advance_seconds: 7200 })
      .expect(200);
    const expired = await http(app).get('/__control/state').set(bearer(acme));
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('token_expired');
  });

  it('a token of another fake (another key) proves nobody: 401 invalid_token, as on the API', async () => {
    const { acme } = await sharedSandbox();
    const { app } = await sharedSandbox();
    const response = await http(app).get('/__control/state').set(bearer(acme));
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_token');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    // credentials that are no token at all are a wrong CONTROL_TOKEN
    const mistyped = await http(app).get('/__control/state').set(bearer('operator-secre'));
    expect(mistyped.status).toBe(401);
    expect(mistyped.body.code).toBe('invalid_control_token');
  });
});

describe('a partner token’s authority is checked at each call, not at issue', () => {
  afterEach(() => vi.restoreAllMocks());

  it('removing control from its client revokes the control plane for its existing tokens (403), API calls go on', async () => {
    const { app, acme } = await sharedSandbox();
    await http(app).get('/__control/state').set(bearer(acme)).expect(200);
    const scopes = PARTNERS[0].scopes.filter((s) => s !== 'control');
    await http(app).patch('/__control/clients/acme').set(operator).send({ scopes }).expect(200);
    for (const [method, path] of [
      ['get', '/__control/state'],
      ['get', '/__control/clock'],
      ['post', '/__control/faults'],
    ] as const) {
      const refused = await http(app)
        [method](path)
        .set(bearer(acme))
        .send(method === 'post' ? { status: 503 } : undefined);
      expect(refused.status, path).toBe(403);
      expect(refused.body.code, path).toBe('insufficient_scope');
      expect(refused.body.detail, path).toContain('no longer holds');
    }
    expect(
      (
        await http(app)
          .get('/__control/faults')
          .set({ ...operator, 'X-Client-Id': 'acme' })
      ).body.data,
    ).toEqual([]);
    // granted again, the same token works again: the scope is read at the call
    await http(app)
      .patch('/__control/clients/acme')
      .set(operator)
      .send({ scopes: [...PARTNERS[0].scopes] })
      .expect(200);
    await http(app).get('/__control/state').set(bearer(acme)).expect(200);
  });

  it('a clock moved back (and frozen) does not keep a control token valid past its real-time lifetime', async () => {
    const { app, acme } = await sharedSandbox();
    await http(app)
      .post('/__control/clock')
      .set(bearer(acme))
      .send({ now: '2020-01-01T00:00:00Z', frozen: true })
      .expect(200);
    await http(app).get('/__control/state').set(bearer(acme)).expect(200);
    // the token's own real-time limit, whatever time passed since it was issued (a loaded machine)
    const until =
      (JSON.parse(Buffer.from(acme.split('.')[1]!, 'base64url').toString()) as { control_until: number })
        .control_until * 1000;
    vi.spyOn(Date, 'now').mockReturnValue(until - 1000);
    await http(app).get('/__control/state').set(bearer(acme)).expect(200);
    vi.spyOn(Date, 'now').mockReturnValue(until + 1000);
    const expired = await http(app).get('/__control/state').set(bearer(acme));
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('token_expired');
    // a new token works, on the control plane as on the API
    const fresh = await tokenFor(app, {
      client_id: 'acme',
      client_secret: 'acme-secret',
      scope: 'openid offline control',
    });
    await http(app).get('/__control/state').set(bearer(fresh)).expect(200);
  });

  it('a control token issued under a clock set back still works on the control plane for its lifetime', async () => {
    const { app } = await sharedSandbox();
    await http(app)
      .post('/__control/clock')
      .set(operator)
      .set('X-Client-Id', 'acme')
      .send({ now: '2021-06-01T00:00:00Z' })
      .expect(200);
    const token = await tokenFor(app, {
      client_id: 'acme',
      client_secret: 'acme-secret',
      scope: 'openid offline control',
    });
    await http(app).get('/__control/state').set(bearer(token)).expect(200);
  });

  it('a token asking for control carries its real-time limit; an API token’s claims are as before', async () => {
    const { app, acme } = await sharedSandbox();
    expect(
      (JSON.parse(Buffer.from(acme.split('.')[1]!, 'base64url').toString()) as { control_until?: number })
        .control_until,
    ).toBeGreaterThan(Date.now() / 1000);
    const api = await tokenFor(app, { client_id: 'acme', client_secret: 'acme-secret' });
    expect(JSON.parse(Buffer.from(api.split('.')[1]!, 'base64url').toString())).not.toHaveProperty('control_until');
  });
});

describe('a partner token names no other tenant', () => {
  it('read: state, clock, faults, documents, report and requests of another tenant answer 403 forbidden_tenant, by header or query', async () => {
    const { app, acme } = await sharedSandbox();
    for (const path of [
      '/__control/state',
      '/__control/clock',
      '/__control/faults',
      '/__control/documents',
      '/__control/report',
      '/__control/requests',
    ]) {
      const byHeader = await http(app).get(path).set(bearer(acme)).set('X-Client-Id', 'globex');
      expect(byHeader.status, path).toBe(403);
      expect(byHeader.body.code, path).toBe('forbidden_tenant');
      const byQuery = await http(app).get(`${path}?client_id=sandbox-client`).set(bearer(acme));
      expect(byQuery.status, path).toBe(403);
      expect((await http(app).get(path).set(bearer(acme)).set('X-Client-Id', 'acme')).status, path).toBe(200);
    }
  });

  it('read: without X-Client-Id it acts on its own tenant, not the default one', async () => {
    const { app, acme } = await sharedSandbox();
    await http(app).post('/__control/clock').set(bearer(acme)).send({ now: '2030-01-01T00:00:00Z' }).expect(200);
    const acmeNow = (
      await http(app)
        .get('/__control/clock')
        .set({ ...operator, 'X-Client-Id': 'acme' })
    ).body.now as string;
    const defaultNow = (await http(app).get('/__control/clock').set(operator)).body.now as string;
    expect(acmeNow.startsWith('2030-01-01')).toBe(true);
    expect(defaultNow.startsWith('2030')).toBe(false);
  });

  it('requests: the journal shows its own client only, never another client’s nor unattributed ones', async () => {
    const { app, acme } = await sharedSandbox();
    const globex = await tokenFor(app, { client_id: 'globex', client_secret: 'globex-secret' });
    await http(app).get('/v1/orders').set(bearer(globex)).expect(200);
    await http(app).get('/v1/orders').set(bearer('forged')).expect(401);
    await http(app).get('/v1/accounts').set(bearer(acme)).expect(200);
    const seen = (await http(app).get('/__control/requests').set(bearer(acme))).body.data as {
      client_id: string | null;
    }[];
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen.map((e) => e.client_id))).toEqual(new Set(['acme']));
    const all = (await http(app).get('/__control/requests').set(operator)).body.data as { client_id: string | null }[];
    expect(new Set(all.map((e) => e.client_id))).toEqual(new Set(['acme', 'globex', null]));
  });

  it('DELETE /__control/requests: it clears its own journal only; naming another tenant is refused', async () => {
    const { app, acme } = await sharedSandbox();
    const globex = await tokenFor(app, { client_id: 'globex', client_secret: 'globex-secret' });
    await http(app).get('/v1/orders').set(bearer(globex)).expect(200);
    await http(app).get('/v1/accounts').set(bearer(acme)).expect(200);
    const refused = await http(app)
      .delete('/__control/requests')
      .set({ ...bearer(acme), 'X-Client-Id': 'globex' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden_tenant');
    await http(app).delete('/__control/requests').set(bearer(acme)).expect(204);
    const left = (await http(app).get('/__control/requests?since=start').set(operator)).body.data as {
      client_id: string | null;
    }[];
    expect(new Set(left.map((e) => e.client_id))).toEqual(new Set(['globex']));
  });

  it('reset: it resets its own tenant only, with or without client_id; another tenant or every tenant is refused', async () => {
    const { app, acme } = await sharedSandbox();
    for (const clientId of ['acme', 'globex']) {
      await http(app)
        .post('/__control/clock')
        .set({ ...operator, 'X-Client-Id': clientId })
        .send({ advance_seconds: 600 })
        .expect(200);
    }
    const other = await http(app).post('/__control/reset').set(bearer(acme)).send({ client_id: 'globex' });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden_tenant');
    expect(
      (await http(app).post('/__control/reset').set(bearer(acme)).set('X-Client-Id', 'globex').send({})).status,
    ).toBe(403);
    await http(app).post('/__control/reset').set(bearer(acme)).send({}).expect(204);
    const clockOf = async (clientId: string) =>
      Date.parse(
        (
          await http(app)
            .get('/__control/clock')
            .set({ ...operator, 'X-Client-Id': clientId })
        ).body.now,
      );
    expect(Math.abs((await clockOf('acme')) - Date.now())).toBeLessThan(60_000);
    expect((await clockOf('globex')) - Date.now()).toBeGreaterThan(500_000);
  });

  it('state: loading a snapshot into another tenant is refused and changes nothing', async () => {
    const { app, acme } = await sharedSandbox();
    const before = await stateAsOperator(app, 'globex');
    const emptied = { ...before, orders: [] };
    const response = await http(app)
      .put('/__control/state')
      .set(bearer(acme))
      .set('X-Client-Id', 'globex')
      .send(emptied);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('forbidden_tenant');
    expect(await stateAsOperator(app, 'globex')).toEqual(before);
    await http(app).put('/__control/state').set(bearer(acme)).send(emptied).expect(204);
    expect((await stateAsOperator(app, 'acme')).orders).toEqual([]);
  });

  it('faults: adding, listing or clearing another tenant’s faults is refused', async () => {
    const { app, acme } = await sharedSandbox();
    await http(app)
      .post('/__control/faults')
      .set({ ...operator, 'X-Client-Id': 'globex' })
      .send({ status: 503 })
      .expect(201);
    const add = await http(app)
      .post('/__control/faults')
      .set(bearer(acme))
      .set('X-Client-Id', 'globex')
      .send({ status: 500 });
    expect(add.status).toBe(403);
    expect((await http(app).delete('/__control/faults').set(bearer(acme)).set('X-Client-Id', 'globex')).status).toBe(
      403,
    );
    expect(
      (await http(app).delete('/__control/faults/fault-1').set(bearer(acme)).set('X-Client-Id', 'globex')).status,
    ).toBe(403);
    expect(
      (
        await http(app)
          .get('/__control/faults')
          .set({ ...operator, 'X-Client-Id': 'globex' })
      ).body.data,
    ).toHaveLength(1);
    await http(app).post('/__control/faults').set(bearer(acme)).send({ status: 500, path: '/v1/assets' }).expect(201);
    expect(
      (
        await http(app)
          .get('/__control/faults')
          .set({ ...operator, 'X-Client-Id': 'acme' })
      ).body.data,
    ).toHaveLength(1);
  });

  it('clock: moving another tenant’s clock is refused', async () => {
    const { app, acme } = await sharedSandbox();
    const response = await http(app)
      .post('/__control/clock')
      .set(bearer(acme))
      .set('X-Client-Id', 'globex')
      .send({ advance_seconds: 3600 });
    expect(response.status).toBe(403);
    const globexNow = Date.parse(
      (
        await http(app)
          .get('/__control/clock')
          .set({ ...operator, 'X-Client-Id': 'globex' })
      ).body.now,
    );
    expect(Math.abs(globexNow - Date.now())).toBeLessThan(60_000);
  });

  it('orders and payment methods of another tenant are refused before the order or account is looked up', async () => {
    const { app, acme } = await sharedSandbox();
    const world = await stateAsOperator(app, 'globex');
    const order = world.orders[0]!;
    const account = world.accounts[0]!;
    const calls = [
      http(app).post(`/__control/orders/${order.id}/advance`).set(bearer(acme)).set('X-Client-Id', 'globex'),
      http(app)
        .post(`/__control/orders/${order.id}/status`)
        .set(bearer(acme))
        .set('X-Client-Id', 'globex')
        .send({ status: 'CANCELLED' }),
      http(app)
        .post(`/__control/accounts/${account.id}/payment-method-details`)
        .set(bearer(acme))
        .set('X-Client-Id', 'globex')
        .send({ type: 'sepa', iban: 'DE89370400440532013000', account_holder_name: 'A B' }),
    ];
    for (const call of calls) expect((await call).status).toBe(403);
    expect(await stateAsOperator(app, 'globex')).toEqual(world);
  });
});

describe('a partner token and the clients', () => {
  it('lists its own client only: no other client, no other secret', async () => {
    const { app, acme } = await sharedSandbox();
    const listed = await http(app).get('/__control/clients').set(bearer(acme));
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { client_id: string }) => c.client_id)).toEqual(['acme']);
    expect(JSON.stringify(listed.body)).not.toMatch(/globex|sandbox-secret/);
    expect((await http(app).get('/__control/clients').set(bearer(acme)).set('X-Client-Id', 'globex')).status).toBe(403);
  });

  it('cannot register clients, change scopes (its own either), or change another client', async () => {
    const { app, acme } = await sharedSandbox();
    const create = await http(app)
      .post('/__control/clients')
      .set(bearer(acme))
      .send({ client_id: 'acme-2', client_secret: 'x' });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('operator_only');
    const ownScopes = await http(app)
      .patch('/__control/clients/acme')
      .set(bearer(acme))
      .send({ scopes: ['read:accounts'] });
    expect(ownScopes.status).toBe(403);
    expect(ownScopes.body.code).toBe('operator_only');
    const otherSettings = await http(app)
      .patch('/__control/clients/globex')
      .set(bearer(acme))
      .send({ settings: { tax_reporting: true } });
    expect(otherSettings.status).toBe(403);
    expect(otherSettings.body.code).toBe('forbidden_tenant');
    const clients = (await http(app).get('/__control/clients').set(operator)).body.data as {
      client_id: string;
      scopes: string[];
      settings: { tax_reporting: boolean };
    }[];
    expect(clients.map((c) => c.client_id)).toEqual(['sandbox-client', 'acme', 'globex']);
    expect(clients.find((c) => c.client_id === 'acme')!.scopes).toContain('control');
    expect(clients.find((c) => c.client_id === 'globex')!.settings.tax_reporting).toBe(false);
    // its own settings are its own
    await http(app)
      .patch('/__control/clients/acme')
      .set(bearer(acme))
      .send({ settings: { tax_reporting: true } })
      .expect(200);
  });

  it('the operator’s CONTROL_TOKEN still acts on every tenant', async () => {
    const { app } = await sharedSandbox();
    expect(
      (
        await http(app)
          .get('/__control/state')
          .set({ ...operator, 'X-Client-Id': 'globex' })
      ).status,
    ).toBe(200);
    expect((await http(app).get('/__control/clients').set(operator)).body.data).toHaveLength(3);
    await http(app).post('/__control/reset').set(operator).send({}).expect(204);
  });

  it('without CONTROL_TOKEN the control plane is open, and a partner’s token with the scope control still confines its calls', async () => {
    const { app, acme } = await sharedSandbox({});
    expect((await http(app).get('/__control/state').set('X-Client-Id', 'globex')).status).toBe(200);
    // an API token sent along (no scope control) is ignored, as it always was on an open control plane
    const apiToken = await tokenFor(app, { client_id: 'acme', client_secret: 'acme-secret' });
    expect((await http(app).get('/__control/state').set(bearer(apiToken)).set('X-Client-Id', 'globex')).status).toBe(
      200,
    );
    expect((await http(app).get('/__control/state').set(bearer(acme)).set('X-Client-Id', 'globex')).status).toBe(403);
    expect((await http(app).get('/__control/clients').set(bearer(acme))).body.data).toHaveLength(1);
  });
});

describe('the console signed in with a partner token', () => {
  it('reads what the console reads (clients, every request, the picked tenant) for its own tenant only', async () => {
    const { app, acme } = await sharedSandbox();
    const globex = await tokenFor(app, { client_id: 'globex', client_secret: 'globex-secret' });
    await http(app).get('/v1/orders').set(bearer(globex)).expect(200);
    // the console's calls (console/src/api.ts): the client list and the live feed name no tenant, the rest name the picked one
    const clients = (await http(app).get('/__control/clients').set(bearer(acme)).set('Accept', 'application/json')).body
      .data as { client_id: string }[];
    expect(clients.map((c) => c.client_id)).toEqual(['acme']);
    const feed = (await http(app).get('/__control/requests').set(bearer(acme))).body.data as { client_id: string }[];
    expect(feed.every((e) => e.client_id === 'acme')).toBe(true);
    expect((await http(app).get('/__control/state').set(bearer(acme)).set('X-Client-Id', 'globex')).status).toBe(403);
  });
});
