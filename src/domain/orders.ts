import { paginate } from './paginate.js';
import type { Order, OrderRecord, QueryOf } from './types.js';
import type { WorldStore } from '../store/world-store.js';

/** A list item shows the order without the payment details that only the cancel response carries. */
export function toOrderListItem(record: OrderRecord): Order {
  const {
    sender_payment_method_details: _s,
    recipient_payment_method_details: _r,
    recipient_wallet_address: _w,
    ...item
  } = record;
  return item;
}

/** The fewest orders that can match: an index for the selective, immutable filters, else every order. */
function candidates(store: WorldStore, query: QueryOf<'listOrders'>): readonly OrderRecord[] {
  if (query.account_id !== undefined) return store.ordersByAccount.get(query.account_id) ?? [];
  if (query.isin !== undefined) return store.ordersByIsin.get(query.isin) ?? [];
  return store.orders;
}

export function listOrders(store: WorldStore, query: QueryOf<'listOrders'>): Order[] {
  const accountType = query.account_type;
  const filtered = FILTERS.some((name) => query[name] !== undefined);
  const keep = (o: OrderRecord): boolean =>
    (query.side === undefined || o.side === query.side) &&
    (query.market === undefined || o.market === query.market) &&
    (query.order_status === undefined || o.status === query.order_status) &&
    (query.account_id === undefined || o.account_id === query.account_id) &&
    (query.currency === undefined || o.currency === query.currency) &&
    (query.isin === undefined || o.isin === query.isin) &&
    (accountType === undefined || store.accountById.get(o.account_id)?.type === accountType);
  return paginate(candidates(store, query), query, filtered ? keep : undefined).map(toOrderListItem);
}

const FILTERS = ['side', 'market', 'order_status', 'account_id', 'currency', 'isin', 'account_type'] as const;
