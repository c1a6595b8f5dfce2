import { describe, expect, it } from 'vitest';
import type { World } from '../../src/api/types.js';
import { http, HOST, testApp, tokenFor } from '../support/test-app.js';

// To the letter (docs/api.md, "Errors"): a path matches as the document writes it, its case and every slash; anything else is
// 404 route_not_found, changes nothing, and names the right spelling when the path nearly has it.
const ACCOUNT = {
  type: 'individual',
  external_id: 'letter-1',
  first_name: 'Ann',
  last_name: 'Example',
  dob_day: 14,
  dob_month: 7,
  dob_year: 1985,
  country: 'DE',
  city: 'Berlin',
  line1: 'Unter den Linden 1',
  postal_code: '10117',
  tin: '12345678901',
  tax_residencies: 'DE',
};

async function world() {
  const app = testApp();
  const token = await tokenFor(app);
  const auth = { Authorization: `Bearer ${token}` };
  const state = async () => (await http(app).get('/__control/state')).body as World;
  return { app, auth, state };
}

const expectUnknownPath = (
  response: { status: number; body: { code?: string; detail?: string } },
  label: string,
  spelling?: string,
): void => {
  expect(response.status, label).toBe(404);
  expect(response.body.code, label).toBe('route_not_found');
  if (spelling) expect(response.body.detail, label).toContain(`(did you mean ${spelling}?)`);
};

describe('routes to the letter', () => {
  it('a path in another case answers 404 route_not_found naming the right spelling, and creates no account', async () => {
    const { app, auth, state } = await world();
    const before = (await state()).accounts.length;
    for (const path of ['/v1/Accounts', '/V1/accounts', '/v1/ACCOUNTS']) {
      expectUnknownPath(await http(app).get(path).set(auth), `GET ${path}`, '/v1/accounts');
      const created = await http(app).post(path).set(auth).send(ACCOUNT);
      expectUnknownPath(created, `POST ${path}`, '/v1/accounts');
      expect(created.body.detail).toContain('paths are case-sensitive');
    }
    expect((await state()).accounts.length).toBe(before);
    expect((await http(app).post('/v1/accounts').set(auth).send(ACCOUNT)).status).toBe(201);
  });

  it('a cancel in another case, with a doubled slash or without its trailing slash cancels nothing', async () => {
    const { app, auth, state } = await world();
    const order = (await state()).orders.find((o) => o.status === 'PLACED')!;
    const right = `/v1/orders/${order.id}/`;
    for (const path of [
      `/v1/Orders/${order.id}/`,
      `/v1/orders/${order.id}//`,
      `/v1/orders/${order.id}`,
      `/v1//orders/${order.id}/`,
      `//v1/orders/${order.id}/`,
    ]) {
      expectUnknownPath(await http(app).delete(path).set(auth), `DELETE ${path}`, right);
    }
    expect((await state()).orders.find((o) => o.id === order.id)?.status).toBe('PLACED');
    expect((await http(app).delete(right).set(auth)).body.status).toBe('CANCELLED');
  });

  it('a doubled trailing slash is unknown on every path, with the trailing slash the document has or not', async () => {
    const { app, auth, state } = await world();
    const account = (await state()).accounts[0]!;
    expectUnknownPath(
      await http(app).get(`/v1/accounts/${account.id}//`).set(auth),
      'account',
      `/v1/accounts/${account.id}`,
    );
    expectUnknownPath(
      await http(app).get(`/v1/accounts/${account.id}//wallets`).set(auth),
      'wallets',
      `/v1/accounts/${account.id}/wallets`,
    );
    expectUnknownPath(await http(app).get('/v1/share-classes//').set(auth), 'list', '/v1/share-classes');
  });

  it('a token request to another spelling of /oauth2/token is answered 404 as a problem, and issues no token', async () => {
    const app = testApp();
    const form = {
      grant_type: 'client_credentials',
      scope: 'openid',
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
      audience: HOST,
    };
    for (const path of ['/OAuth2/Token', '/oauth2/Token', '/oauth2/token/', '/oauth2//token', '//oauth2/token']) {
      const response = await http(app).post(path).type('form').send(form);
      expectUnknownPath(response, path, '/oauth2/token');
      expect(response.headers['content-type'], path).toMatch(/^application\/problem\+json/);
      expect(response.body, path).not.toHaveProperty('access_token');
    }
    await http(app)
      .post('/__control/clients')
      .send({
        client_id: 'basic-one',
        client_secret: 'basic-secret',
        token_endpoint_auth_method: 'client_secret_basic',
      })
      .expect(201);
    const basic = await http(app)
      .post('/OAuth2/Token')
      .auth('basic-one', 'basic-secret')
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'openid', audience: HOST });
    expectUnknownPath(basic, 'Basic', '/oauth2/token');
    const journal = (await http(app).get('/__control/requests').set('X-Client-Id', 'sandbox-client')).body.data as {
      status: number;
    }[];
    expect(journal.filter((e) => e.status === 200)).toEqual([]);
  });

  it('the control plane matches as written too: another case or a trailing slash resets nothing', async () => {
    const { app, auth, state } = await world();
    expect((await http(app).post('/v1/accounts').set(auth).send(ACCOUNT)).status).toBe(201);
    const accounts = (await state()).accounts.length;
    expectUnknownPath(await http(app).post('/__Control/reset'), '/__Control/reset', '/__control/reset');
    expectUnknownPath(await http(app).post('/__control/reset/'), '/__control/reset/', '/__control/reset');
    expectUnknownPath(await http(app).post('/__control//reset'), '/__control//reset', '/__control/reset');
    expectUnknownPath(await http(app).get('/__control/Health'), '/__control/Health', '/__control/health');
    expectUnknownPath(await http(app).post('/__control/MCP'), '/__control/MCP');
    expect((await state()).accounts.length).toBe(accounts);
  });

  it('document downloads and the discovery documents match as written too', async () => {
    const { app } = await world();
    expectUnknownPath(
      await http(app).get('/Files/sandbox-client/x.pdf?expires=1&signature=0'),
      'files',
      '/files/sandbox-client/x.pdf',
    );
    expectUnknownPath(await http(app).get('/.well-known/JWKS.json'), 'jwks', '/.well-known/jwks.json');
    expectUnknownPath(
      await http(app).get('/.well-known/openid-configuration/'),
      'discovery',
      '/.well-known/openid-configuration',
    );
    expect((await http(app).get('/.well-known/jwks.json')).status).toBe(200);
  });

  it('a near miss by another method than the path has is not named: 404 without a guess', async () => {
    const { app, auth } = await world();
    const response = await http(app).put('/v1/Accounts').set(auth);
    expectUnknownPath(response, 'PUT');
    expect(response.body.detail).toBe('No operation at PUT /v1/Accounts.');
  });

  it('a path a segment short, a segment long or a segment misspelt names the one document path it is close to', async () => {
    const { app, auth, state } = await world();
    const account = (await state()).accounts[0]!.id;
    const shapes: [method: 'get' | 'post' | 'delete', path: string, spelling: string, difference: string][] = [
      // a list the interface does not have: the document reads one payment method by its id
      [
        'get',
        `/v1/accounts/${account}/payment-method-details`,
        `/v1/accounts/${account}/payment-method-details/{payment_method_details_id}`,
        'a segment missing: {payment_method_details_id}',
      ],
      ['get', '/v1/acounts', '/v1/accounts', 'accounts, not acounts'],
      ['get', `/v1/accounts/${account}/walets`, `/v1/accounts/${account}/wallets`, 'wallets, not walets'],
      ['get', `/v1/${account}/wallets`, `/v1/accounts/${account}/wallets`, 'a segment missing: accounts'],
      [
        'get',
        '/v1/share-classes/DE000A0D9PT0/documents',
        '/v1/share-classes/DE000A0D9PT0',
        'a segment too many: documents',
      ],
      ['get', '/v1/Share-Clases/', '/v1/share-classes', 'share-classes, not Share-Clases; without the trailing slash'],
      ['delete', '/v1/order/abc/', '/v1/orders/abc/', 'orders, not order'],
      ['post', '/__control/resett', '/__control/reset', 'reset, not resett'],
    ];
    for (const [method, path, spelling, difference] of shapes) {
      const response = await http(app)[method](path).set(auth);
      expectUnknownPath(response, `${method} ${path}`, spelling);
      expect(response.body.detail, `${method} ${path}`).toContain(`: ${difference} (did you mean`);
    }
  });

  it('a path close to none, or as close to two document paths, or close only to a path without its method gets no guess', async () => {
    const { app, auth } = await world();
    for (const [method, path] of [
      ['get', '/v1'], // /v1/accounts, /v1/orders, /v1/assets… each a segment away
      ['get', '/v1/portfolios'],
      ['get', '/v1/accounts/x/y/z'],
      ['put', '/v1/acounts'],
      ['get', `/v1/${'a'.repeat(5000)}`],
    ] as const) {
      const response = await http(app)[method](path).set(auth);
      expectUnknownPath(response, `${method} ${path}`);
      expect(response.body.detail, `${method} ${path}`).not.toContain('did you mean');
    }
  });

  it('the readiness report names the close path of a misspelt one', async () => {
    const { app, auth } = await world();
    for (let i = 0; i < 3; i++) await http(app).get('/v1/acounts').set(auth).expect(404);
    const { findings } = (await http(app).get('/__control/report').set('X-Client-Id', 'sandbox-client')).body as {
      findings: { code: string; hint: string }[];
    };
    expect(findings.find((f) => f.code === 'wrong_path')?.hint).toBe(
      'Send GET /v1/accounts, the path the document has: accounts, not acounts.',
    );
  });

  it('the readiness report reads the right spelling back from the 404', async () => {
    const { app, auth } = await world();
    for (let i = 0; i < 3; i++) await http(app).get('/v1/Accounts').set(auth).expect(404);
    const { findings } = (await http(app).get('/__control/report').set('X-Client-Id', 'sandbox-client')).body as {
      findings: { code: string; hint: string }[];
    };
    expect(findings.find((f) => f.code === 'wrong_path')?.hint).toBe(
      'Send GET /v1/accounts, the path the document has: paths are case-sensitive.',
    );
  });
});
