import type { OrderStatus } from '../api/types.js';

/**
 * The provider states of an exported contract, and the values each answers for Pact's `ProviderState` generators:
 * one list, read by the exporter that names them (`interaction.ts`) and by the domain that makes them true
 * (`domain/provider-states.ts`), so a name written is a name served.
 */
const ORDER_STATUSES: readonly OrderStatus[] = [
  'PLACED',
  'AWAITING_PAYMENT',
  'AWAITING_TOKEN_DELIVERY',
  'COMPLETED',
  'CANCELLED',
];

export const STATE_NAMES = {
  account: 'an account exists',
  wallet: 'a wallet exists',
  paymentMethod: 'payment method details exist',
  asset: 'an asset exists',
  feederFund: 'a feeder fund exists',
  customOffering: 'a custom offering exists',
} as const;

export const orderStateName = (status: OrderStatus): string => `an order exists in status ${status}`;

/** Every state name the fake serves, as a 422 lists them. */
export const KNOWN_STATE_NAMES: readonly string[] = [
  ...Object.values(STATE_NAMES),
  ...ORDER_STATUSES.map(orderStateName),
];

/** The order status a state name asks for, if it is an order's. */
export const orderStatusOf = (name: string): OrderStatus | undefined =>
  ORDER_STATUSES.find((status) => orderStateName(status) === name);

/** The names of the values a setup answers (`${accountId}` in a contract's expressions). */
export type InjectedValue =
  | 'accountId'
  | 'walletId'
  | 'paymentMethodDetailsId'
  | 'orderId'
  | 'isin'
  | 'customOfferingId'
  | 'abbreviation';

export type InjectedValues = Partial<Record<InjectedValue, string>>;
