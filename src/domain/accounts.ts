import type { Tenant } from './tenants.js';
import { recordBytes, type WorldStore } from '../store/world-store.js';
import { UNDRAWN_ID } from '../store/ids.js';
import { findAccount } from './account-lookup.js';
import { checkDateOfBirth, checkDobComplete, parseBirthdate, type DateOfBirth } from './date-of-birth.js';
import { FieldErrors, isBlank } from './field-errors.js';
import { isValidLei } from './identifiers/lei.js';
import { ensureRoomFor } from './limits.js';
import { paginate } from './paginate.js';
import { checkPaymentMethod, newPaymentMethod, storePaymentMethod } from './payment-methods.js';
import type {
  Account,
  AccountType,
  ClientSettings,
  PaymentMethodDetails,
  QueryOf,
  Schemas,
  Wallet,
} from '../api/types.js';
import { checkWalletAddress, checkWalletsAreNew, newWallet, storeWallet } from './wallets.js';

/**
 * An account create as the rules read it: the fields of either account type. The document gives each type its own
 * shape (`Schemas['AccountCreate']`, a union on `type`), and the fake checks the body as one object, so that a field
 * of the other type reaches `checkApplicable` (api/document.ts, `withFlatAccountCreate`).
 */
export type AccountCreate = Omit<Schemas['IndividualAccountCreate'], 'type'> &
  Omit<Schemas['BusinessAccountCreate'], 'type'> & { type: AccountType };
export type AccountUpdate = Schemas['AccountUpdate'];

/** Every field of an account, in the order responses show them (the compiler checks none is missing). */
const ACCOUNT_FIELD_ORDER: Record<keyof Account, true> = {
  id: true,
  external_id: true,
  type: true,
  country: true,
  city: true,
  line1: true,
  line2: true,
  postal_code: true,
  state: true,
  first_name: true,
  last_name: true,
  dob_day: true,
  dob_month: true,
  dob_year: true,
  place_of_birth: true,
  business_name: true,
  lei: true,
  tax_id: true,
  tin: true,
  tax_residencies: true,
  created: true,
};
const ACCOUNT_FIELDS = Object.keys(ACCOUNT_FIELD_ORDER) as (keyof Account)[];

/** The fields of an account a client gives (all but those the platform sets: `id`, `created`). */
export const GIVEN_ACCOUNT_FIELDS: readonly string[] = ACCOUNT_FIELDS.filter(
  (field) => field !== 'id' && field !== 'created',
);

/** Fields that apply to one account type only; `birthdate` is the update body's form of the `dob_*` fields. */
const ONLY_FOR: Record<AccountType, readonly string[]> = {
  individual: ['first_name', 'last_name', 'dob_day', 'dob_month', 'dob_year', 'birthdate', 'place_of_birth', 'tin'],
  business: ['business_name', 'lei', 'tax_id'],
};
const OTHER: Record<AccountType, AccountType> = { individual: 'business', business: 'individual' };
const ARTICLE: Record<AccountType, string> = { individual: 'an', business: 'a' };

/** What the client's settings make required (docs/api.md, "Accounts, wallets and payment method details"). */
function requiredFields(type: AccountType, settings: ClientSettings): string[] {
  const required: string[] = [];
  if (settings.tax_reporting) required.push(type === 'individual' ? 'tin' : 'tax_id', 'tax_residencies');
  if (settings.lei_required && type === 'business') required.push('lei');
  return required;
}

function checkApplicable(type: AccountType, body: object, errors: FieldErrors): void {
  for (const field of ONLY_FOR[OTHER[type]]) {
    if (field in body)
      errors.add(
        'field_not_applicable',
        `/${field}`,
        `${field} applies to ${OTHER[type]} accounts only, not to ${ARTICLE[type]} ${type} account`,
      );
  }
}

function checkLei(lei: string | null | undefined, errors: FieldErrors): void {
  if (typeof lei === 'string' && !isValidLei(lei)) {
    errors.add('invalid_lei', '/lei', 'lei must be 20 characters A–Z/0–9 with valid ISO 17442 check digits');
  }
}

/** The account with its fields in the documented order and unset ones absent. */
function canonical(fields: Partial<Record<keyof Account, unknown>>): Account {
  const account: Record<string, unknown> = {};
  for (const field of ACCOUNT_FIELDS)
    if (fields[field] !== undefined && fields[field] !== null) account[field] = fields[field];
  return account as unknown as Account;
}

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

const dobPath = (field: keyof DateOfBirth): string => `/${field}`;

/** An account create whose every rule held, nothing written yet: what it adds, and the write that cannot fail. */
export interface PreparedAccount {
  /** The records it adds: the account, its wallets and payment method details. */
  records: number;
  /** Their bytes as JSON. */
  bytes: number;
  /** The wallet and payment method details that will be primary, as they will be stored (ids not drawn). */
  primaries: { wallet: Wallet | undefined; paymentMethod: PaymentMethodDetails | undefined };
  /** Writes the account and all its parts together. */
  commit(): Account;
}

/**
 * Every rule of an account create, nothing written: so a caller making more than the account (a provider state)
 * checks all of it, and the room for all of it, before anything is made.
 */
export function prepareAccount(tenant: Tenant, input: AccountCreate): PreparedAccount {
  const { store, clock, client } = tenant;
  const { wallets = [], payment_methods: paymentMethods = [], ...fields } = input;
  const errors = new FieldErrors();

  checkApplicable(input.type, fields, errors);
  if (input.type === 'individual' && checkDobComplete(fields, errors))
    checkDateOfBirth(fields as DateOfBirth, clock.now(), errors, dobPath);
  if (input.type === 'business') checkLei(fields.lei, errors);
  for (const field of requiredFields(input.type, client.settings)) {
    if (isBlank(fields[field as keyof typeof fields]))
      errors.add('field_required', `/${field}`, `${field} is required by this client's settings`);
  }
  for (const [i, wallet] of wallets.entries()) checkWalletAddress(wallet, `/wallets/${i}`, errors);
  checkOnePrimary(wallets, '/wallets', errors);
  const ibans = paymentMethods.map((method, i) => checkPaymentMethod(method, `/payment_methods/${i}`, errors));
  checkOnePrimary(paymentMethods, '/payment_methods', errors);
  errors.throwIfAny();
  checkWalletsAreNew(store, wallets);
  const created = clock.now().toISOString();
  // measured before an id is drawn: a refused create leaves the tenant's sequence of ids as it was
  const walletDrafts = wallets.map((input) => newWallet(tenant, UNDRAWN_ID, input, UNDRAWN_ID));
  const methodDrafts = paymentMethods.map((input, i) =>
    newPaymentMethod(store, UNDRAWN_ID, input, ibans[i]!, UNDRAWN_ID),
  );
  const primary = <T>(drafts: T[], inputs: readonly { is_primary?: boolean }[]): T | undefined =>
    drafts[inputs.findIndex((item) => item.is_primary === true)];
  return {
    records: 1 + wallets.length + paymentMethods.length,
    bytes:
      recordBytes(canonical({ ...fields, id: UNDRAWN_ID, created })) +
      sum(walletDrafts.map(recordBytes)) +
      sum(methodDrafts.map(recordBytes)),
    primaries: { wallet: primary(walletDrafts, wallets), paymentMethod: primary(methodDrafts, paymentMethods) },
    commit: () => {
      // Everything is valid: from here on nothing can fail, so the account and all its parts land together.
      const account = canonical({ ...fields, id: store.newId(), created });
      store.addAccount(account);
      for (const input of wallets) storeWallet(store, newWallet(tenant, account.id, input), input.is_primary);
      for (const [i, input] of paymentMethods.entries())
        storePaymentMethod(store, newPaymentMethod(store, account.id, input, ibans[i]!), input.is_primary);
      return account;
    },
  };
}

export function createAccount(tenant: Tenant, input: AccountCreate): Account {
  const prepared = prepareAccount(tenant, input);
  ensureRoomFor(tenant.store, prepared.records, prepared.bytes);
  return prepared.commit();
}

function checkOnePrimary(items: readonly { is_primary?: boolean }[], at: string, errors: FieldErrors): void {
  const primaries = items.flatMap((item, i) => (item.is_primary ? [i] : []));
  for (const i of primaries.slice(1))
    errors.add('multiple_primary', `${at}/${i}/is_primary`, `only one of ${at.slice(1)} can be primary`);
}

export function updateAccount(tenant: Tenant, accountId: string, changes: AccountUpdate): Account {
  const { store, clock, client } = tenant;
  const account = findAccount(store, accountId);
  const { birthdate, ...fields } = changes;
  const errors = new FieldErrors();

  checkApplicable(account.type, changes, errors);
  if (account.type === 'business') checkLei(fields.lei, errors);
  const dob = account.type === 'individual' && typeof birthdate === 'string' ? parseBirthdate(birthdate) : undefined;
  if (dob) checkDateOfBirth(dob, clock.now(), errors, () => '/birthdate');
  for (const field of requiredFields(account.type, client.settings)) {
    if (field in fields && isBlank(fields[field as keyof typeof fields])) {
      errors.add('field_required', `/${field}`, `${field} is required by this client's settings and cannot be cleared`);
    }
  }
  errors.throwIfAny();

  const cleared = birthdate === null ? { dob_day: null, dob_month: null, dob_year: null } : {};
  const updated = canonical({ ...account, ...fields, ...cleared, ...dob });
  ensureRoomFor(store, 0, recordBytes(updated) - recordBytes(account));
  store.replaceAccount(updated);
  return updated;
}

export function getAccount(store: WorldStore, accountId: string): Account {
  return findAccount(store, accountId);
}

export function listAccounts(store: WorldStore, query: QueryOf<'listAccounts'>): Account[] {
  const { external_id: externalId, account_type: type } = query;
  return paginate(
    externalId === undefined ? store.accounts : store.accountsWithExternalId(externalId),
    query,
    type === undefined ? undefined : (a) => a.type === type,
  );
}
