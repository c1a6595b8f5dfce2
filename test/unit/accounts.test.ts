import { describe, expect, it } from 'vitest';
import { createAccount, listAccounts, updateAccount } from '../../src/domain/accounts.js';
import {
  createPaymentMethodDetails,
  getPaymentMethodDetails,
  updatePaymentMethodDetails,
} from '../../src/domain/payment-methods.js';
import { listWallets, registerWallet, updateWallet } from '../../src/domain/wallets.js';
import { failure, seededTenant, VALID } from '../support/world.js';

describe('creating an account', () => {
  it('needs only a type and shows only the fields that were set', () => {
    const tenant = seededTenant();
    // the tenant's clock runs: the instant of creation lies between two readings of it (a second's boundary may too)
    const before = tenant.clock.now().getTime();
    const account = createAccount(tenant, { type: 'individual' });
    const after = tenant.clock.now().getTime();
    expect(Object.keys(account)).toEqual(['id', 'type', 'created']);
    expect(account.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(account.created)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(account.created)).toBeLessThanOrEqual(after);
  });

  it('keeps the documented field order whatever the body order', () => {
    const account = createAccount(seededTenant(), { tin: 'T1', type: 'individual', city: 'Berlin', external_id: 'u1' });
    expect(Object.keys(account)).toEqual(['id', 'external_id', 'type', 'city', 'tin', 'created']);
  });

  it.each([
    ['individual', { business_name: 'Acme' }, '/business_name'],
    ['individual', { lei: VALID.lei }, '/lei'],
    ['individual', { tax_id: 'X' }, '/tax_id'],
    ['business', { first_name: 'Ann' }, '/first_name'],
    ['business', { tin: 'X' }, '/tin'],
    ['business', { dob_day: 1, dob_month: 1, dob_year: 1990 }, '/dob_day'],
  ] as const)('refuses a field of the other type on %s: %j', (type, fields, path) => {
    const error = failure(() => createAccount(seededTenant(), { type, ...fields }));
    expect(error).toMatchObject({ status: 422, code: 'field_not_applicable' });
    expect(error.errors!.map((e) => e.path)).toContain(path);
  });

  it('takes the three dob fields together only', () => {
    const error = failure(() => createAccount(seededTenant(), { type: 'individual', dob_day: 1, dob_month: 2 }));
    expect(error).toMatchObject({ status: 422, code: 'invalid_date_of_birth', errors: [{ path: '/dob_year' }] });
  });

  it.each([
    [{ dob_day: 30, dob_month: 2, dob_year: 1990 }, 'no 30 February'],
    [{ dob_day: 29, dob_month: 2, dob_year: 2023 }, 'no 29 February in a common year'],
    [{ dob_day: 31, dob_month: 4, dob_year: 1990 }, 'April has 30 days'],
    [{ dob_day: 1.5, dob_month: 4, dob_year: 1990 }, 'whole numbers'],
    [{ dob_day: 1, dob_month: 1, dob_year: 2999 }, 'in the future'],
  ])('refuses a date of birth that is not a real past date: %j (%s)', (dob) => {
    expect(failure(() => createAccount(seededTenant(), { type: 'individual', ...dob }))).toMatchObject({
      status: 422,
      code: 'invalid_date_of_birth',
    });
  });

  it('accepts 29 February of a leap year, and refuses today', () => {
    const tenant = seededTenant();
    expect(createAccount(tenant, { type: 'individual', dob_day: 29, dob_month: 2, dob_year: 2000 }).dob_day).toBe(29);
    const today = tenant.clock.now();
    const error = failure(() =>
      createAccount(tenant, {
        type: 'individual',
        dob_day: today.getUTCDate(),
        dob_month: today.getUTCMonth() + 1,
        dob_year: today.getUTCFullYear(),
      }),
    );
    expect(error.code).toBe('invalid_date_of_birth');
  });

  it('judges "in the past" by the tenant clock', () => {
    const tenant = seededTenant();
    tenant.clock.set(new Date('1980-06-01T00:00:00Z'));
    expect(
      failure(() => createAccount(tenant, { type: 'individual', dob_day: 1, dob_month: 1, dob_year: 1990 })).code,
    ).toBe('invalid_date_of_birth');
  });

  it('checks the LEI per ISO 17442', () => {
    expect(createAccount(seededTenant(), { type: 'business', lei: VALID.lei }).lei).toBe(VALID.lei);
    expect(
      failure(() => createAccount(seededTenant(), { type: 'business', lei: '5493001KJTIIGC8Y1R13' })),
    ).toMatchObject({ code: 'invalid_lei', errors: [{ path: '/lei' }] });
    expect(failure(() => createAccount(seededTenant(), { type: 'business', lei: 'short' })).code).toBe('invalid_lei');
  });

  it('with tax_reporting, requires tin and tax_residencies (individual), tax_id and tax_residencies (business)', () => {
    const tenant = seededTenant({ tax_reporting: true });
    const individual = failure(() => createAccount(tenant, { type: 'individual' }));
    expect(individual).toMatchObject({ status: 422, code: 'field_required' });
    expect(individual.errors!.map((e) => e.path).sort()).toEqual(['/tax_residencies', '/tin']);
    const business = failure(() => createAccount(tenant, { type: 'business', tax_residencies: 'DE' }));
    expect(business.errors!.map((e) => e.path)).toEqual(['/tax_id']);
    expect(createAccount(tenant, { type: 'individual', tin: '123', tax_residencies: 'DE' }).tin).toBe('123');
    expect(failure(() => createAccount(tenant, { type: 'individual', tin: '  ', tax_residencies: 'DE' })).code).toBe(
      'field_required',
    );
  });

  it('with lei_required, requires lei on business accounts only', () => {
    const tenant = seededTenant({ lei_required: true });
    expect(failure(() => createAccount(tenant, { type: 'business' }))).toMatchObject({
      code: 'field_required',
      errors: [{ path: '/lei' }],
    });
    expect(createAccount(tenant, { type: 'individual' }).type).toBe('individual');
  });

  it('without settings, requires nothing but the type', () => {
    expect(createAccount(seededTenant(), { type: 'business' }).type).toBe('business');
  });

  it('names every broken rule at once, with validation_error when they differ', () => {
    const error = failure(() =>
      createAccount(seededTenant({ tax_reporting: true }), { type: 'business', lei: 'bad', first_name: 'x' }),
    );
    expect(error.code).toBe('validation_error');
    expect(error.errors!.map((e) => e.code).sort()).toEqual([
      'field_not_applicable',
      'field_required',
      'field_required',
      'invalid_lei',
    ]);
  });

  it('creates its wallets and payment methods with it, normalising IBANs', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, {
      type: 'individual',
      wallets: [{ wallet_address: VALID.wallet, is_primary: true }, { wallet_address: VALID.walletLower }],
      payment_methods: [
        { type: 'sepa', iban: 'de89 3704 0044 0532 0130 00', account_holder_name: 'Ann Example', is_primary: true },
      ],
    });
    const wallets = listWallets(tenant.store, account.id, {});
    expect(wallets.map((w) => [w.wallet_address, w.is_primary, w.chain])).toEqual([
      [VALID.wallet, true, 'polygon'],
      [VALID.walletLower, false, 'polygon'],
    ]);
    const [method] = tenant.store.paymentMethodsByAccount.get(account.id)!;
    expect(method).toMatchObject({ iban: VALID.iban, is_primary: true, account_holder_name: 'Ann Example' });
    expect(account).not.toHaveProperty('wallets');
  });

  it('creates nothing when one nested item is bad: a bad IBAN in the third payment method leaves no account', () => {
    const tenant = seededTenant();
    const before = JSON.stringify(tenant.store.snapshot());
    const methods = [VALID.iban, 'GB82WEST12345698765432', 'DE89370400440532013001'].map((iban) => ({
      type: 'sepa' as const,
      iban,
      account_holder_name: 'A',
    }));
    const error = failure(() =>
      createAccount(tenant, {
        type: 'individual',
        wallets: [{ wallet_address: VALID.wallet }],
        payment_methods: methods,
      }),
    );
    expect(error).toMatchObject({ status: 422, code: 'invalid_iban', errors: [{ path: '/payment_methods/2/iban' }] });
    expect(JSON.stringify(tenant.store.snapshot())).toBe(before);
  });

  it('creates nothing when a nested wallet is already registered (409)', () => {
    const tenant = seededTenant();
    const taken = tenant.store.wallets[0]!.wallet_address.toLowerCase();
    const before = JSON.stringify(tenant.store.snapshot());
    expect(
      failure(() => createAccount(tenant, { type: 'individual', wallets: [{ wallet_address: taken }] })),
    ).toMatchObject({ status: 409, code: 'wallet_already_registered' });
    expect(
      failure(() =>
        createAccount(tenant, {
          type: 'individual',
          wallets: [{ wallet_address: VALID.wallet }, { wallet_address: VALID.wallet.toLowerCase() }],
        }),
      ).status,
    ).toBe(409);
    expect(JSON.stringify(tenant.store.snapshot())).toBe(before);
  });

  it('refuses two primaries in one body', () => {
    const error = failure(() =>
      createAccount(seededTenant(), {
        type: 'individual',
        wallets: [
          { wallet_address: VALID.wallet, is_primary: true },
          { wallet_address: VALID.walletLower, is_primary: true },
        ],
      }),
    );
    expect(error).toMatchObject({ code: 'multiple_primary', errors: [{ path: '/wallets/1/is_primary' }] });
  });
});

describe('updating an account', () => {
  it('sets fields, clears optional ones with null, and keeps the rest', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'individual', city: 'Berlin', line2: 'Apt 3' });
    const updated = updateAccount(tenant, account.id, { city: 'Hamburg', line2: null });
    expect(updated).toMatchObject({ id: account.id, city: 'Hamburg', type: 'individual' });
    expect(updated).not.toHaveProperty('line2');
    expect(tenant.store.accountById.get(account.id)).toBe(updated);
  });

  it('sets dob_* from birthdate, never shows birthdate, and clears them with birthdate null', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'individual' });
    const updated = updateAccount(tenant, account.id, { birthdate: '1985-07-14' });
    expect(updated).toMatchObject({ dob_day: 14, dob_month: 7, dob_year: 1985 });
    expect(updated).not.toHaveProperty('birthdate');
    expect(updateAccount(tenant, account.id, { birthdate: null })).not.toHaveProperty('dob_year');
  });

  it('refuses a future birthdate and fields of the other type', () => {
    const tenant = seededTenant();
    const individual = createAccount(tenant, { type: 'individual' });
    expect(failure(() => updateAccount(tenant, individual.id, { birthdate: '2999-01-01' }))).toMatchObject({
      code: 'invalid_date_of_birth',
      errors: [{ path: '/birthdate' }],
    });
    expect(failure(() => updateAccount(tenant, individual.id, { business_name: 'X' })).code).toBe(
      'field_not_applicable',
    );
    const business = createAccount(tenant, { type: 'business' });
    expect(failure(() => updateAccount(tenant, business.id, { birthdate: '1990-01-01' })).code).toBe(
      'field_not_applicable',
    );
    expect(failure(() => updateAccount(tenant, business.id, { lei: 'nope' })).code).toBe('invalid_lei');
  });

  it('refuses to clear what the settings require, and leaves the account as it was', () => {
    const tenant = seededTenant({ tax_reporting: true });
    const account = createAccount(tenant, { type: 'individual', tin: 'T', tax_residencies: 'DE', city: 'Berlin' });
    const before = JSON.stringify(account);
    expect(failure(() => updateAccount(tenant, account.id, { tin: null, city: 'Paris' }))).toMatchObject({
      code: 'field_required',
      errors: [{ path: '/tin' }],
    });
    expect(failure(() => updateAccount(tenant, account.id, { tax_residencies: '' })).code).toBe('field_required');
    expect(JSON.stringify(tenant.store.accountById.get(account.id))).toBe(before);
    expect(updateAccount(tenant, account.id, { city: 'Paris' }).city).toBe('Paris');
  });

  it('answers 404 for an unknown account', () => {
    expect(failure(() => updateAccount(seededTenant(), '3fa85f64-5717-4562-b3fc-2c963f66afa6', {})).status).toBe(404);
  });
});

describe('listing accounts', () => {
  it('filters by external_id and account_type, in creation order', () => {
    const tenant = seededTenant();
    const a = createAccount(tenant, { type: 'individual', external_id: 'dup' });
    const b = createAccount(tenant, { type: 'business', external_id: 'dup' });
    expect(listAccounts(tenant.store, { external_id: 'dup' }).map((x) => x.id)).toEqual([a.id, b.id]);
    expect(listAccounts(tenant.store, { external_id: 'dup', account_type: 'business' }).map((x) => x.id)).toEqual([
      b.id,
    ]);
    expect(listAccounts(tenant.store, { limit: 1000 }).at(-1)!.id).toBe(b.id);
  });

  it('finds an account by the external_id a PATCH gave it, in creation order, and no longer by the one it took away', () => {
    const tenant = seededTenant();
    const first = createAccount(tenant, { type: 'individual', external_id: 'old' });
    const second = createAccount(tenant, { type: 'individual', external_id: 'new' });
    const third = createAccount(tenant, { type: 'business', external_id: 'new' });
    updateAccount(tenant, first.id, { external_id: 'new', city: 'Köln' });
    expect(listAccounts(tenant.store, { external_id: 'old' })).toEqual([]);
    expect(listAccounts(tenant.store, { external_id: 'new' }).map((x) => [x.id, x.city])).toEqual([
      [first.id, 'Köln'],
      [second.id, undefined],
      [third.id, undefined],
    ]);
    expect(listAccounts(tenant.store, { external_id: 'new', skip: 1, limit: 1 }).map((x) => x.id)).toEqual([second.id]);
    updateAccount(tenant, second.id, { external_id: null });
    expect(listAccounts(tenant.store, { external_id: 'new' }).map((x) => x.id)).toEqual([first.id, third.id]);
    // the whole list keeps its order and holds each account's latest record
    const all = listAccounts(tenant.store, { limit: 1000 });
    expect(all.slice(-3).map((x) => [x.id, x.external_id])).toEqual([
      [first.id, 'new'],
      [second.id, undefined],
      [third.id, 'new'],
    ]);
    updateAccount(tenant, second.id, { external_id: 'old' });
    expect(listAccounts(tenant.store, { external_id: 'old' }).map((x) => x.id)).toEqual([second.id]);
  });
});

describe('wallets', () => {
  it('registers with chain polygon by default and is_primary false', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'individual' });
    const wallet = registerWallet(tenant, account.id, { wallet_address: VALID.wallet });
    expect(wallet).toMatchObject({
      account_id: account.id,
      chain: 'polygon',
      wallet_address: VALID.wallet,
      is_primary: false,
    });
  });

  it.each([
    ['0x123', 'too short'],
    ['5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'no 0x'],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeZ', 'not hex'],
    ['0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'a wrong EIP-55 checksum'],
  ])('refuses %s (%s) with invalid_wallet_address', (address) => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'individual' });
    expect(failure(() => registerWallet(tenant, account.id, { wallet_address: address }))).toMatchObject({
      status: 422,
      code: 'invalid_wallet_address',
      errors: [{ path: '/wallet_address' }],
    });
  });

  it('accepts all-upper-case digits without a checksum', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'individual' });
    expect(
      registerWallet(tenant, account.id, { wallet_address: `0x${VALID.wallet.slice(2).toUpperCase()}` }).is_primary,
    ).toBe(false);
  });

  it('refuses an address registered anywhere in the tenant, whatever its case (409)', () => {
    const tenant = seededTenant();
    const other = tenant.store.wallets[0]!;
    const account = createAccount(tenant, { type: 'individual' });
    expect(
      failure(() =>
        registerWallet(tenant, account.id, { wallet_address: other.wallet_address.toUpperCase().replace('0X', '0x') }),
      ),
    ).toMatchObject({ status: 409, code: 'wallet_already_registered' });
  });

  it('keeps one primary per account: true switches it in one step, false clears, null changes nothing', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'individual' });
    const a = registerWallet(tenant, account.id, { wallet_address: VALID.wallet, is_primary: true });
    const b = registerWallet(tenant, account.id, { wallet_address: VALID.walletLower, is_primary: true });
    expect([a.is_primary, b.is_primary]).toEqual([false, true]);
    updateWallet(tenant.store, account.id, a.id, { is_primary: true });
    expect([a.is_primary, b.is_primary]).toEqual([true, false]);
    updateWallet(tenant.store, account.id, a.id, { is_primary: null });
    updateWallet(tenant.store, account.id, a.id, {});
    expect([a.is_primary, b.is_primary]).toEqual([true, false]);
    updateWallet(tenant.store, account.id, a.id, { is_primary: false });
    expect([a.is_primary, b.is_primary]).toEqual([false, false]);
  });

  it('does not touch the primary wallet of another account', () => {
    const tenant = seededTenant();
    const foreign = tenant.store.wallets.find((w) => w.is_primary)!;
    const account = createAccount(tenant, { type: 'individual' });
    registerWallet(tenant, account.id, { wallet_address: VALID.wallet, is_primary: true });
    expect(foreign.is_primary).toBe(true);
  });

  it('answers 404 for a wallet of another account, like an unknown id', () => {
    const tenant = seededTenant();
    const foreign = tenant.store.wallets[0]!;
    const account = createAccount(tenant, { type: 'individual' });
    expect(failure(() => updateWallet(tenant.store, account.id, foreign.id, { is_primary: true }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(foreign.is_primary).toBe(tenant.store.walletById.get(foreign.id)!.is_primary);
  });

  it('lists an account’s wallets filtered by address (any case) and is_primary', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, {
      type: 'individual',
      wallets: [{ wallet_address: VALID.wallet, is_primary: true }, { wallet_address: VALID.walletLower }],
    });
    expect(
      listWallets(tenant.store, account.id, { wallet_address: VALID.wallet.toLowerCase() }).map(
        (w) => w.wallet_address,
      ),
    ).toEqual([VALID.wallet]);
    expect(listWallets(tenant.store, account.id, { is_primary: false }).map((w) => w.wallet_address)).toEqual([
      VALID.walletLower,
    ]);
    expect(failure(() => listWallets(tenant.store, '3fa85f64-5717-4562-b3fc-2c963f66afa6', {})).status).toBe(404);
  });
});

describe('payment method details', () => {
  it('are created through the control plane with a normalised IBAN', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'business' });
    const details = createPaymentMethodDetails(tenant.store, account.id, {
      type: 'sepa',
      iban: ' gb82 west 1234 5698 7654 32 ',
      account_holder_name: 'Acme Ltd',
    });
    expect(details).toMatchObject({
      account_id: account.id,
      type: 'sepa',
      iban: 'GB82WEST12345698765432',
      is_primary: false,
    });
    expect(getPaymentMethodDetails(tenant.store, account.id, details.id)).toBe(details);
  });

  it.each([
    ['DE89370400440532013001', 'check digits'],
    ['DE8937040044053201300', 'length for the country'],
    ['XX89370400440532013000', 'unknown country'],
    ['DE89-3704-0044-0532-0130-00', 'characters'],
  ])('refuses %s (%s) with invalid_iban', (iban) => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'business' });
    expect(
      failure(() =>
        createPaymentMethodDetails(tenant.store, account.id, { type: 'sepa', iban, account_holder_name: 'A' }),
      ),
    ).toMatchObject({ status: 422, code: 'invalid_iban' });
    expect(tenant.store.paymentMethodsByAccount.get(account.id)).toBeUndefined();
  });

  it('need a holder name that is not blank', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'business' });
    expect(
      failure(() =>
        createPaymentMethodDetails(tenant.store, account.id, {
          type: 'sepa',
          iban: VALID.iban,
          account_holder_name: '  ',
        }),
      ).code,
    ).toBe('field_required');
  });

  it('keep one primary per account', () => {
    const tenant = seededTenant();
    const account = createAccount(tenant, { type: 'business' });
    const a = createPaymentMethodDetails(tenant.store, account.id, {
      type: 'sepa',
      iban: VALID.iban,
      account_holder_name: 'A',
      is_primary: true,
    });
    const b = createPaymentMethodDetails(tenant.store, account.id, {
      type: 'sepa',
      iban: 'GB82WEST12345698765432',
      account_holder_name: 'A',
    });
    updatePaymentMethodDetails(tenant.store, account.id, b.id, { is_primary: true });
    expect([a.is_primary, b.is_primary]).toEqual([false, true]);
    updatePaymentMethodDetails(tenant.store, account.id, b.id, { is_primary: null });
    expect(b.is_primary).toBe(true);
  });

  it('of another account answer 404', () => {
    const tenant = seededTenant();
    const foreign = tenant.store.paymentMethodDetails[0]!;
    const account = createAccount(tenant, { type: 'business' });
    expect(failure(() => getPaymentMethodDetails(tenant.store, account.id, foreign.id)).status).toBe(404);
    expect(
      failure(() => updatePaymentMethodDetails(tenant.store, account.id, foreign.id, { is_primary: false })).status,
    ).toBe(404);
  });
});
