import type { OrderPaymentMethodDetails, PaymentMethodDetails } from '../api/types.js';

/** The bank details on one side of an order's payment. */
export type PaymentSide = OrderPaymentMethodDetails;

/** The platform's own custody account: the recipient of every BUY payment and the sender of every SELL payout. */
export const PLATFORM_PAYMENT_DETAILS: Readonly<PaymentSide> = Object.freeze({
  type: 'sepa',
  iban: 'DE12500105170648489890',
  account_holder_name: 'Investment Platform Custody GmbH',
});

/** An account's payment method as one side of an order's payment: only the bank details, not its id or flags. */
export const toPaymentSide = ({ type, iban, account_holder_name }: PaymentMethodDetails): PaymentSide => ({
  type,
  iban,
  account_holder_name,
});
