import type { FakeContext } from '../context.js';
import { createPaymentMethodDetails, type PaymentMethodDetailsCreate } from '../domain/payment-methods.js';
import { param, type OperationHandlers } from '../http/operation-handlers.js';
import { controlTenant } from './tenant.js';

export function paymentMethodControlHandlers(ctx: FakeContext): Pick<OperationHandlers, 'createPaymentMethodDetails'> {
  return {
    createPaymentMethodDetails: (req, res) => {
      const { store } = controlTenant(req, ctx);
      res.status(201).json(createPaymentMethodDetails(store, param(req, 'account_id'), req.body as PaymentMethodDetailsCreate));
    },
  };
}
