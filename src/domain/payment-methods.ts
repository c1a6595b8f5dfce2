import { ensureRoomFor } from './limits.js';
import { recordBytes, type WorldStore } from '../store/world-store.js';
import { UNDRAWN_ID } from '../store/ids.js';
import { findAccount } from './account-lookup.js';
import { notFound } from '../api/errors.js';
import { FieldErrors, isBlank } from './field-errors.js';
import { validateIban } from './identifiers/iban.js';
import { applyPrimaryFlag } from './primary-flag.js';
import type { PaymentMethodDetails, Schemas } from '../api/types.js';

export type PaymentMethodDetailsCreate = Schemas['PaymentMethodDetailsCreate'];

/**
 * The rules of one payment method in a request body (`at` is its JSON pointer): a valid IBAN and a holder name.
 * Answers the IBAN in its stored form (no spaces, upper case) when valid.
 */
export function checkPaymentMethod(
  input: PaymentMethodDetailsCreate,
  at: string,
  errors: FieldErrors,
): string | undefined {
  if (isBlank(input.account_holder_name))
    errors.add('field_required', `${at}/account_holder_name`, 'account_holder_name must not be blank');
  const verdict = validateIban(input.iban);
  if (!verdict.ok) {
    errors.add('invalid_iban', `${at}/iban`, verdict.reason);
    return undefined;
  }
  return verdict.iban;
}

/** `id`: drawn from the tenant's sequence, unless given (UNDRAWN_ID to measure the details before drawing it). */
export function newPaymentMethod(
  store: WorldStore,
  accountId: string,
  input: PaymentMethodDetailsCreate,
  iban: string,
  id = store.newId(),
): PaymentMethodDetails {
  return {
    id,
    account_id: accountId,
    type: input.type,
    iban,
    account_holder_name: input.account_holder_name,
    is_primary: false,
  };
}

/** Appends the details, then applies their primary flag among the account's payment methods. */
export function storePaymentMethod(
  store: WorldStore,
  details: PaymentMethodDetails,
  isPrimary: boolean | undefined,
): void {
  store.addPaymentMethod(details);
  applyPrimaryFlag(store.paymentMethodsByAccount.get(details.account_id) ?? [], details, isPrimary);
}

export function createPaymentMethodDetails(
  store: WorldStore,
  accountId: string,
  input: PaymentMethodDetailsCreate,
): PaymentMethodDetails {
  findAccount(store, accountId);
  const errors = new FieldErrors();
  const iban = checkPaymentMethod(input, '', errors);
  errors.throwIfAny();
  ensureRoomFor(store, 1, recordBytes(newPaymentMethod(store, accountId, input, iban!, UNDRAWN_ID)));
  const details = newPaymentMethod(store, accountId, input, iban!);
  storePaymentMethod(store, details, input.is_primary);
  return details;
}

/** Details of another account answer 404, exactly like an unknown id. */
export function getPaymentMethodDetails(store: WorldStore, accountId: string, id: string): PaymentMethodDetails {
  findAccount(store, accountId);
  const details = store.paymentMethodById.get(id);
  if (!details || details.account_id !== accountId)
    throw notFound(`Payment method details "${id}" of account "${accountId}"`);
  return details;
}

export function updatePaymentMethodDetails(
  store: WorldStore,
  accountId: string,
  id: string,
  changes: Schemas['PrimaryFlagUpdate'],
): PaymentMethodDetails {
  const details = getPaymentMethodDetails(store, accountId, id);
  applyPrimaryFlag(store.paymentMethodsByAccount.get(accountId) ?? [], details, changes.is_primary);
  store.changed();
  return details;
}
