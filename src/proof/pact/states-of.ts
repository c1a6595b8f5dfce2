import type { OrderStatus } from '../../api/types.js';
import type { RecordFields, RecordKind } from './sightings.js';
import { orderStateName, STATE_NAMES, type InjectedValue } from '../../records/provider-state-names.js';

/** A state a request relied on, as a contract names it, and the path or query values its setup answers. */
export interface ProviderState {
  name: string;
  params: Record<string, unknown>;
}

/** Where a record's fields come from: the span's answers as of the request, else the tenant's world now. */
export type RecordLookup = (id: string) => { kind: RecordKind; fields: RecordFields } | undefined;

/** What a request relied on: its states, and which of its path parameters (by name) take which injected value. */
export interface Reliance {
  states: ProviderState[];
  injected: Map<string, InjectedValue>;
}

const CANCELLABLE: readonly string[] = ['PLACED', 'AWAITING_PAYMENT'];

/** An account's fields as the setup takes them (what creating one takes): no id, no instant. */
function accountParams(fields: RecordFields | undefined): Record<string, unknown> {
  if (!fields) return { type: 'individual' };
  const { id: _id, created: _created, ...rest } = fields;
  return rest;
}

const pick = (fields: RecordFields, keys: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(keys.filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]]));

/**
 * The status an order had when a cancel reached it: as the span last showed it, corrected by the answer (a cancel
 * that succeeded found it cancellable, one refused `order_not_cancellable` found it past that).
 */
function statusFound(shown: unknown, operationId: string | null, status: number): OrderStatus {
  const seen = typeof shown === 'string' ? (shown as OrderStatus) : 'PLACED';
  if (operationId !== 'cancelOrder') return seen;
  if (status >= 200 && status < 300) return CANCELLABLE.includes(seen) ? seen : 'PLACED';
  if (status === 409) return CANCELLABLE.includes(seen) ? 'COMPLETED' : seen;
  return seen;
}

/**
 * The states a request relied on, from its path parameters: a record the span or the world knows is named as it
 * was (an id no one knows is left as it is: the contract then asks for the same answer, a 404 most likely). Catalog
 * values (an ISIN, a fund's abbreviation, a custom offering) are named when the request found them (a 2xx).
 */
export function relianceOf(
  params: Record<string, string>,
  query: Record<string, string>,
  lookup: RecordLookup,
  answer: { operationId: string | null; status: number },
): Reliance {
  const states: ProviderState[] = [];
  const injected = new Map<string, InjectedValue>();
  const known = (id: string | undefined, kind: RecordKind) => {
    const found = id === undefined ? undefined : lookup(id);
    return found?.kind === kind ? found.fields : undefined;
  };
  const found = answer.status >= 200 && answer.status < 300;
  const accountOf = (fields: RecordFields) => accountParams(known(fields.account_id as string, 'account'));

  const wallet = known(params.wallet_id, 'wallet');
  const paymentMethod = known(params.payment_method_details_id, 'paymentMethod');
  const order = known(params.order_id, 'order');
  const account = known(params.account_id, 'account');
  if (wallet && wallet.account_id === params.account_id) {
    states.push({
      name: STATE_NAMES.wallet,
      params: { ...pick(wallet, ['wallet_address', 'chain', 'is_primary']), account: accountOf(wallet) },
    });
    injected.set('wallet_id', 'walletId').set('account_id', 'accountId');
  } else if (paymentMethod && paymentMethod.account_id === params.account_id) {
    states.push({
      name: STATE_NAMES.paymentMethod,
      params: {
        ...pick(paymentMethod, ['type', 'iban', 'account_holder_name', 'is_primary']),
        account: accountOf(paymentMethod),
      },
    });
    injected.set('payment_method_details_id', 'paymentMethodDetailsId').set('account_id', 'accountId');
  } else if (account) {
    states.push({ name: STATE_NAMES.account, params: accountParams(account) });
    injected.set('account_id', 'accountId');
  }
  if (order) {
    const status = statusFound(order.status, answer.operationId, answer.status);
    states.push({
      name: orderStateName(status),
      params: {
        ...pick(order, ['side', 'market', 'amount_of_units', 'value', 'currency', 'isin']),
        account: accountOf(order),
      },
    });
    injected.set('order_id', 'orderId');
  }
  if (found && params.custom_offering_id !== undefined && params.isin !== undefined) {
    states.push({
      name: STATE_NAMES.customOffering,
      params: { isin: params.isin, custom_offering_id: params.custom_offering_id },
    });
    injected.set('isin', 'isin').set('custom_offering_id', 'customOfferingId');
  } else if (found && params.isin !== undefined) {
    states.push({ name: STATE_NAMES.asset, params: { isin: params.isin } });
    injected.set('isin', 'isin');
  }
  if (found && params.abbreviation !== undefined) {
    states.push({ name: STATE_NAMES.feederFund, params: { abbreviation: params.abbreviation } });
    injected.set('abbreviation', 'abbreviation');
  }
  // a filter by an account the world knows: that account, unless a state already answers another accountId
  const queried = known(query.account_id, 'account');
  if (queried && !injected.has('account_id')) {
    states.push({ name: STATE_NAMES.account, params: accountParams(queried) });
    injected.set('?account_id', 'accountId');
  } else if (queried && query.account_id === params.account_id) {
    injected.set('?account_id', 'accountId');
  }
  return { states, injected };
}
