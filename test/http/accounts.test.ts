import { describe, expect, it } from 'vitest';
import type { World } from '../../src/api/types.js';
import { http } from '../support/test-app.js';
import { appPerFile } from '../support/tenants.js';
import { VALID } from '../support/world.js';

const UNKNOWN = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

const file = appPerFile();

/** A tenant of its own on the file's app, and helpers acting as it. */
async function partner(client: Parameters<typeof file.tenant>[0] = {}) {
  const { app, clientId, token } = await file.tenant(client);
  const as = (t: string) => ({ Authorization: `Bearer ${t}` });
  const api = {
    app,
    clientId,
    get: (path: string, t = token) => http(app).get(path).set(as(t)),
    post: (path: string, body: object, t = token) => http(app).post(path).set(as(t)).send(body),
    patch: (path: string, body: object, t = token) => http(app).patch(path).set(as(t)).send(body),
    /** The control plane, acting on this tenant. */
    control: (method: 'get' | 'post' | 'patch', path: string) => http(app)[method](path).set('X-Client-Id', clientId),
    state: async () => (await http(app).get('/__control/state').set('X-Client-Id', clientId)).body as World,
  };
  return api;
}

describe('the onboarding flow of a partner, end to end', () => {
  it('creates an individual and a business account with wallets and bank details, switches the primary wallet and reads it all back', async () => {
    const api = await partner();
    const individual = await api.post('/v1/accounts', {
      type: 'individual',
      external_id: 'user-1',
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
      wallets: [
        { chain: 'polygon', wallet_address: VALID.wallet, is_primary: true },
        { wallet_address: VALID.walletLower },
      ],
      payment_methods: [
        { type: 'sepa', iban: 'DE89 3704 0044 0532 0130 00', account_holder_name: 'Ann Example', is_primary: true },
      ],
    });
    expect(individual.status).toBe(201);
    expect(individual.body).toMatchObject({ type: 'individual', first_name: 'Ann', dob_year: 1985 });
    expect(individual.body).not.toHaveProperty('wallets');
    expect(individual.body).not.toHaveProperty('business_name');

    const business = await api.post('/v1/accounts', {
      type: 'business',
      external_id: 'org-1',
      business_name: 'Acme GmbH',
      lei: VALID.lei,
      tax_id: 'DE123',
      country: 'DE',
      payment_methods: [{ type: 'sepa', iban: 'GB82WEST12345698765432', account_holder_name: 'Acme GmbH' }],
    });
    expect(business.status).toBe(201);

    const id = individual.body.id as string;
    const wallets = await api.get(`/v1/accounts/${id}/wallets`);
    expect(wallets.body.data.map((w: { is_primary: boolean }) => w.is_primary)).toEqual([true, false]);
    const second = wallets.body.data[1];
    const switched = await api.patch(`/v1/accounts/${id}/wallets/${second.id}`, { is_primary: true });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ id: second.id, account_id: id, is_primary: true });
    const primaries = await api.get(`/v1/accounts/${id}/wallets?is_primary=true`);
    expect(primaries.body.data.map((w: { id: string }) => w.id)).toEqual([second.id]);

    const state = await api.state();
    const details = state.payment_method_details.find((p) => p.account_id === id)!;
    const read = await api.get(`/v1/accounts/${id}/payment-method-details/${details.id}`);
    expect(read.body).toMatchObject({ iban: 'DE89370400440532013000', is_primary: true, type: 'sepa' });

    expect((await api.get(`/v1/accounts/${id}`)).body).toEqual(individual.body);
    expect((await api.get('/v1/accounts?external_id=org-1')).body.data.map((a: { id: string }) => a.id)).toEqual([
      business.body.id,
    ]);
  });
});

describe('accounts over HTTP', () => {
  it('POST answers 201 with only type required', async () => {
    const api = await partner();
    const response = await api.post('/v1/accounts', { type: 'business' });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['id', 'type', 'created']);
  });

  it.each([
    [{}, 'validation_error', '/type'],
    [{ type: 'trust' }, 'validation_error', '/type'],
    [{ type: 'individual', nickname: 'x' }, 'validation_error', '/nickname'],
    [{ type: 'individual', business_name: 'x' }, 'field_not_applicable', '/business_name'],
    [{ type: 'individual', dob_day: 30, dob_month: 2, dob_year: 1990 }, 'invalid_date_of_birth', '/dob_day'],
    [{ type: 'individual', dob_day: 3 }, 'invalid_date_of_birth', '/dob_month'],
    [{ type: 'individual', dob_year: 85, dob_month: 1, dob_day: 1 }, 'validation_error', '/dob_year'],
    [{ type: 'business', lei: '5493001KJTIIGC8Y1R13' }, 'invalid_lei', '/lei'],
    [
      { type: 'individual', wallets: [{ wallet_address: '0x12' }] },
      'invalid_wallet_address',
      '/wallets/0/wallet_address',
    ],
    [
      { type: 'individual', wallets: [{ wallet_address: VALID.wallet, chain: 'ethereum' }] },
      'validation_error',
      '/wallets/0/chain',
    ],
    [
      { type: 'individual', payment_methods: [{ type: 'sepa', iban: 'DE00', account_holder_name: 'A' }] },
      'invalid_iban',
      '/payment_methods/0/iban',
    ],
    [
      { type: 'individual', payment_methods: [{ type: 'swift', iban: VALID.iban, account_holder_name: 'A' }] },
      'validation_error',
      '/payment_methods/0/type',
    ],
  ])('POST %j answers 422 %s naming %s', async (body, code, path) => {
    const api = await partner();
    const before = await api.state();
    const response = await api.post('/v1/accounts', body);
    expect(response.status).toBe(422);
    expect(response.body.code).toBe(code);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await api.state()).toEqual(before);
  });

  it('POST with tax_reporting requires tin and tax_residencies; lei_required requires lei (422 field_required)', async () => {
    const api = await partner();
    await http(api.app)
      .patch(`/__control/clients/${api.clientId}`)
      .send({ settings: { tax_reporting: true, lei_required: true } })
      .expect(200);
    const individual = await api.post('/v1/accounts', { type: 'individual' });
    expect(individual.status).toBe(422);
    expect(individual.body.code).toBe('field_required');
    expect(individual.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/tax_residencies', '/tin']);
    const business = await api.post('/v1/accounts', { type: 'business', tax_id: 'X', tax_residencies: 'DE' });
    expect(business.body.errors.map((e: { path: string }) => e.path)).toEqual(['/lei']);
    expect(
      (await api.post('/v1/accounts', { type: 'business', tax_id: 'X', tax_residencies: 'DE', lei: VALID.lei })).status,
    ).toBe(201);
  });

  it('POST with a bad IBAN in the third payment method leaves no account, wallet or payment method behind', async () => {
    const api = await partner();
    const before = await api.state();
    const response = await api.post('/v1/accounts', {
      type: 'individual',
      wallets: [{ wallet_address: VALID.wallet }],
      payment_methods: [VALID.iban, 'GB82WEST12345698765432', 'FR1420041010050500013M02607'].map((iban) => ({
        type: 'sepa',
        iban,
        account_holder_name: 'A',
      })),
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ path: '/payment_methods/2/iban', code: 'invalid_iban' }),
    ]);
    expect(await api.state()).toEqual(before);
  });

  it('PATCH updates, clears with null, takes birthdate and refuses type', async () => {
    const api = await partner();
    const created = (await api.post('/v1/accounts', { type: 'individual', city: 'Berlin', line2: 'c/o X' })).body;
    const patched = await api.patch(`/v1/accounts/${created.id}`, {
      city: 'Munich',
      line2: null,
      birthdate: '1990-02-28',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ city: 'Munich', dob_day: 28, dob_month: 2, dob_year: 1990 });
    expect(patched.body).not.toHaveProperty('line2');
    expect(patched.body).not.toHaveProperty('birthdate');
    const typed = await api.patch(`/v1/accounts/${created.id}`, { type: 'business' });
    expect(typed.status).toBe(422);
    expect(typed.body.errors[0].path).toBe('/type');
    const badDate = await api.patch(`/v1/accounts/${created.id}`, { birthdate: '1990-02-30' });
    expect(badDate.status).toBe(422);
    expect(badDate.body.errors[0].path).toBe('/birthdate');
    expect((await api.get(`/v1/accounts/${created.id}`)).body).toEqual(patched.body);
  });

  it('PATCH refuses to clear a field the settings require', async () => {
    const api = await partner({ settings: { tax_reporting: true } });
    const created = (await api.post('/v1/accounts', { type: 'business', tax_id: 'T', tax_residencies: 'DE' })).body;
    const response = await api.patch(`/v1/accounts/${created.id}`, { tax_id: null });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'field_required', errors: [{ path: '/tax_id' }] });
  });

  it('GET lists in creation order with external_id and account_type filters and paging', async () => {
    const api = await partner();
    const state = await api.state();
    const all = (await api.get('/v1/accounts?limit=1000')).body.data.map((a: { id: string }) => a.id);
    expect(all).toEqual(state.accounts.map((a) => a.id));
    const businesses = (await api.get('/v1/accounts?account_type=business&limit=1000')).body.data;
    expect(businesses.map((a: { id: string }) => a.id)).toEqual(
      state.accounts.filter((a) => a.type === 'business').map((a) => a.id),
    );
    expect((await api.get('/v1/accounts?skip=2&limit=3')).body.data.map((a: { id: string }) => a.id)).toEqual(
      all.slice(2, 5),
    );
  });

  it('GET of an unknown or another tenant’s account answers 404', async () => {
    const api = await partner();
    const otherToken = (await file.tenant()).token;
    const theirs = (await api.post('/v1/accounts', { type: 'individual' }, otherToken)).body;
    expect((await api.get(`/v1/accounts/${theirs.id}`)).status).toBe(404);
    expect((await api.get(`/v1/accounts/${UNKNOWN}`)).status).toBe(404);
    expect((await api.patch(`/v1/accounts/${theirs.id}`, { city: 'x' })).status).toBe(404);
    expect((await api.get(`/v1/accounts/${theirs.id}/wallets`)).status).toBe(404);
  });

  it('reading needs read:accounts and writing write:accounts', async () => {
    const api = await partner();
    const reader = (await file.tenant({ scopes: ['read:accounts'] })).token;
    expect((await api.get('/v1/accounts', reader)).status).toBe(200);
    const denied = await api.post('/v1/accounts', { type: 'individual' }, reader);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_scope');
  });
});

describe('wallets over HTTP', () => {
  it('POST registers (201, chain defaults to polygon), 409 for a registered address, 422 for a bad checksum', async () => {
    const api = await partner();
    const account = (await api.post('/v1/accounts', { type: 'individual' })).body;
    const registered = await api.post(`/v1/accounts/${account.id}/wallets`, { wallet_address: VALID.wallet });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      account_id: account.id,
      chain: 'polygon',
      wallet_address: VALID.wallet,
      is_primary: false,
      created: expect.any(String),
    });
    const again = await api.post(`/v1/accounts/${account.id}/wallets`, { wallet_address: VALID.wallet.toLowerCase() });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('wallet_already_registered');
    const checksum = await api.post(`/v1/accounts/${account.id}/wallets`, {
      wallet_address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d358',
    });
    expect(checksum.status).toBe(422);
    expect(checksum.body).toMatchObject({ code: 'invalid_wallet_address', errors: [{ path: '/wallet_address' }] });
    expect((await api.post(`/v1/accounts/${UNKNOWN}/wallets`, { wallet_address: VALID.walletLower })).status).toBe(404);
  });

  it('GET filters by wallet_address case-insensitively and by is_primary', async () => {
    const api = await partner();
    const state = await api.state();
    const wallet = state.wallets.find((w) => /[A-F]/.test(w.wallet_address))!;
    const response = await api.get(
      `/v1/accounts/${wallet.account_id}/wallets?wallet_address=${wallet.wallet_address.toLowerCase()}`,
    );
    expect(response.body.data.map((w: { id: string }) => w.id)).toEqual([wallet.id]);
  });

  it('PATCH of a wallet of another account answers 404, like an unknown id', async () => {
    const api = await partner();
    const state = await api.state();
    const wallet = state.wallets[0]!;
    const otherAccount = state.accounts.find((a) => a.id !== wallet.account_id)!;
    expect((await api.patch(`/v1/accounts/${otherAccount.id}/wallets/${wallet.id}`, { is_primary: true })).status).toBe(
      404,
    );
    expect((await api.patch(`/v1/accounts/${otherAccount.id}/wallets/${UNKNOWN}`, { is_primary: true })).status).toBe(
      404,
    );
    expect(await api.state()).toEqual(state);
  });

  it('PATCH is_primary: null or {} changes nothing; a non-boolean is 422', async () => {
    const api = await partner();
    const state = await api.state();
    const wallet = state.wallets.find((w) => w.is_primary)!;
    expect(
      (await api.patch(`/v1/accounts/${wallet.account_id}/wallets/${wallet.id}`, { is_primary: null })).body.is_primary,
    ).toBe(true);
    expect((await api.patch(`/v1/accounts/${wallet.account_id}/wallets/${wallet.id}`, {})).body.is_primary).toBe(true);
    expect(
      (await api.patch(`/v1/accounts/${wallet.account_id}/wallets/${wallet.id}`, { is_primary: 'yes' })).status,
    ).toBe(422);
  });

  it('many concurrent primary switches on one account leave exactly one primary', async () => {
    const api = await partner();
    const addresses = Array.from(
      { length: 8 },
      (_, i) =>
        `0x${String(i + 1)
          .repeat(40)
          .slice(0, 40)}`,
    );
    const account = (
      await api.post('/v1/accounts', {
        type: 'individual',
        wallets: addresses.map((wallet_address) => ({ wallet_address })),
      })
    ).body;
    const wallets = (await api.get(`/v1/accounts/${account.id}/wallets`)).body.data as { id: string }[];
    const switches = Array.from({ length: 40 }, (_, i) =>
      api.patch(`/v1/accounts/${account.id}/wallets/${wallets[i % wallets.length]!.id}`, { is_primary: true }),
    );
    const responses = await Promise.all(switches);
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const after = (await api.get(`/v1/accounts/${account.id}/wallets?is_primary=true`)).body.data;
    expect(after).toHaveLength(1);
  });
});

describe('payment method details over HTTP', () => {
  it('GET and PATCH (primary exclusivity), and 404 for another account’s details', async () => {
    const api = await partner();
    const account = (
      await api.post('/v1/accounts', {
        type: 'business',
        payment_methods: [
          { type: 'sepa', iban: VALID.iban, account_holder_name: 'Acme', is_primary: true },
          { type: 'sepa', iban: 'NL91ABNA0417164300', account_holder_name: 'Acme' },
        ],
      })
    ).body;
    const state = await api.state();
    const [first, second] = state.payment_method_details.filter((p) => p.account_id === account.id);
    const read = await api.get(`/v1/accounts/${account.id}/payment-method-details/${second!.id}`);
    expect(read.body).toEqual(second);
    const patched = await api.patch(`/v1/accounts/${account.id}/payment-method-details/${second!.id}`, {
      is_primary: true,
    });
    expect(patched.body.is_primary).toBe(true);
    expect((await api.get(`/v1/accounts/${account.id}/payment-method-details/${first!.id}`)).body.is_primary).toBe(
      false,
    );
    const foreign = state.payment_method_details.find((p) => p.account_id !== account.id)!;
    expect((await api.get(`/v1/accounts/${account.id}/payment-method-details/${foreign.id}`)).status).toBe(404);
    expect(
      (await api.patch(`/v1/accounts/${account.id}/payment-method-details/${foreign.id}`, { is_primary: true })).status,
    ).toBe(404);
  });

  it('POST /__control/accounts/{id}/payment-method-details adds details (201), 422 invalid_iban, 404 unknown account, per X-Client-Id', async () => {
    const api = await partner();
    const account = (await api.post('/v1/accounts', { type: 'individual' })).body;
    const created = await api
      .control('post', `/__control/accounts/${account.id}/payment-method-details`)
      .send({ type: 'sepa', iban: 'fr14 2004 1010 0505 0001 3m02 606', account_holder_name: 'Ann', is_primary: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      account_id: account.id,
      iban: 'FR1420041010050500013M02606',
      is_primary: true,
    });
    const bad = await api
      .control('post', `/__control/accounts/${account.id}/payment-method-details`)
      .send({ type: 'sepa', iban: 'FR1420041010050500013M02607', account_holder_name: 'Ann' });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_iban');
    expect(
      (
        await api
          .control('post', `/__control/accounts/${UNKNOWN}/payment-method-details`)
          .send({ type: 'sepa', iban: VALID.iban, account_holder_name: 'A' })
      ).status,
    ).toBe(404);
    const other = await file.tenant();
    const elsewhere = await http(api.app)
      .post(`/__control/accounts/${account.id}/payment-method-details`)
      .set('X-Client-Id', other.clientId)
      .send({ type: 'sepa', iban: VALID.iban, account_holder_name: 'A' });
    expect(elsewhere.status).toBe(404);
    // Without the header it acts on the default client, which does not have this account either.
    const byDefault = await http(api.app)
      .post(`/__control/accounts/${account.id}/payment-method-details`)
      .send({ type: 'sepa', iban: VALID.iban, account_holder_name: 'A' });
    expect(byDefault.status).toBe(404);
  });
});
