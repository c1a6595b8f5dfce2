import { getPaymentMethodDetails, updatePaymentMethodDetails } from '../../domain/payment-methods.js';
import { ok, type OperationHandlers } from '../operation.js';

/** The document's `payment-method-details` tag: an account's payment methods (added through the control plane). */
export const paymentMethodHandlers = {
  getPaymentMethodDetails: ({ tenant, path }) =>
    ok(getPaymentMethodDetails(tenant.store, path.account_id, path.payment_method_details_id)),
  updatePaymentMethodDetails: ({ tenant, path, body }) =>
    ok(updatePaymentMethodDetails(tenant.store, path.account_id, path.payment_method_details_id, body)),
} satisfies Partial<OperationHandlers>;
