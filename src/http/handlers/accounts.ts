import type { FakeContext } from '../../context.js';
import { createAccount, getAccount, listAccounts, updateAccount, type AccountCreate, type AccountUpdate } from '../../domain/accounts.js';
import { getPaymentMethodDetails, updatePaymentMethodDetails } from '../../domain/payment-methods.js';
import type { QueryOf } from '../../api/types.js';
import { listWallets, registerWallet, updateWallet, type PrimaryFlagUpdate, type WalletRegister } from '../../domain/wallets.js';
import { param, queryOf, type OperationHandlers } from '../operation-handlers.js';
import { tenantOf } from '../request-context.js';

type AccountOperations =
  | 'listAccounts'
  | 'createAccount'
  | 'getAccount'
  | 'updateAccount'
  | 'listWallets'
  | 'registerWallet'
  | 'updateWallet'
  | 'getPaymentMethodDetails'
  | 'updatePaymentMethodDetails';

/** Accounts, their wallets and payment method details: read the request, call the domain, render. */
export function accountHandlers(_ctx: FakeContext): Pick<OperationHandlers, AccountOperations> {
  return {
    listAccounts: (req, res) => {
      res.json({ data: listAccounts(tenantOf(res).store, queryOf<QueryOf<'listAccounts'>>(req)) });
    },
    createAccount: (req, res) => {
      res.status(201).json(createAccount(tenantOf(res), req.body as AccountCreate));
    },
    getAccount: (req, res) => {
      res.json(getAccount(tenantOf(res).store, param(req, 'account_id')));
    },
    updateAccount: (req, res) => {
      res.json(updateAccount(tenantOf(res), param(req, 'account_id'), req.body as AccountUpdate));
    },
    listWallets: (req, res) => {
      res.json({ data: listWallets(tenantOf(res).store, param(req, 'account_id'), queryOf<QueryOf<'listWallets'>>(req)) });
    },
    registerWallet: (req, res) => {
      res.status(201).json(registerWallet(tenantOf(res), param(req, 'account_id'), req.body as WalletRegister));
    },
    updateWallet: (req, res) => {
      res.json(updateWallet(tenantOf(res).store, param(req, 'account_id'), param(req, 'wallet_id'), req.body as PrimaryFlagUpdate));
    },
    getPaymentMethodDetails: (req, res) => {
      res.json(getPaymentMethodDetails(tenantOf(res).store, param(req, 'account_id'), param(req, 'payment_method_details_id')));
    },
    updatePaymentMethodDetails: (req, res) => {
      const { store } = tenantOf(res);
      res.json(updatePaymentMethodDetails(store, param(req, 'account_id'), param(req, 'payment_method_details_id'), req.body as PrimaryFlagUpdate));
    },
  };
}
