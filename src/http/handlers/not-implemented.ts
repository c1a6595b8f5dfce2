import { DomainError } from '../../domain/errors.js';
import type { OperationHandler, OperationHandlers } from '../operation-handlers.js';

/** Operations of the interface whose business rules are not built yet: an honest 501, never a fake success. */
type PendingOperations =
  | 'listAccounts'
  | 'createAccount'
  | 'getAccount'
  | 'updateAccount'
  | 'listWallets'
  | 'registerWallet'
  | 'updateWallet'
  | 'getPaymentMethodDetails'
  | 'updatePaymentMethodDetails'
  | 'cancelOrder';

const notImplemented: OperationHandler = (req) => {
  throw new DomainError(501, 'not_implemented', `${req.method} ${req.path} is part of the interface but not built in this version of the fake yet.`);
};

export function pendingHandlers(): Pick<OperationHandlers, PendingOperations> {
  return {
    listAccounts: notImplemented,
    createAccount: notImplemented,
    getAccount: notImplemented,
    updateAccount: notImplemented,
    listWallets: notImplemented,
    registerWallet: notImplemented,
    updateWallet: notImplemented,
    getPaymentMethodDetails: notImplemented,
    updatePaymentMethodDetails: notImplemented,
    cancelOrder: notImplemented,
  };
}
