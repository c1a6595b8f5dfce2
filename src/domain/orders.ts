import { paginate } from './paginate.js';
import type { Order, OrderRecord, QueryOf } from '../api/types.js';
import type { WorldStore } from '../store/world-store.js';
import type { Tenant } from './tenants.js';

/** A list item shows the order without the payment details that only the cancel response carries. */
function toOrderListItem(o: OrderRecord): Order {
  // An explicit literal: an object-rest copy is a slow runtime call, and this runs for every listed order.
  return {
    id: o.id,
    side: o.side,
    market: o.market,
    status: o.status,
    amount_of_units: o.amount_of_units,
    value: o.value,
    currency: o.currency,
    isin: o.isin,
    account_id: o.account_id,
    created: o.created,
    settlement_transaction_hash: o.settlement_transaction_hash,
    payment_transaction_reference: o.payment_transaction_reference,
    custom_offering_id: o.custom_offering_id,
  };
}

/** The fewest orders that can match: an index for the selective, immutable filters, else every order. */
function candidates(store: WorldStore, query: QueryOf<'listOrders'>): readonly OrderRecord[] {
  if (query.account_id !== undefined) return store.ordersByAccount.get(query.account_id) ?? [];
  if (query.isin !== undefined) return store.ordersByIsin.get(query.isin) ?? [];
  return store.orders;
}

/** The page of orders a query asks for, as records of the store. */
function findOrders(store: WorldStore, query: QueryOf<'listOrders'>): OrderRecord[] {
  // Read once: the request's query object is slow to read, and the filter runs over every candidate.
  const {
    side,
    market,
    order_status: status,
    account_id: accountId,
    currency,
    isin,
    account_type: accountType,
  } = query;
  const filtered = [side, market, status, accountId, currency, isin, accountType].some((f) => f !== undefined);
  const keep = (o: OrderRecord): boolean =>
    (side === undefined || o.side === side) &&
    (market === undefined || o.market === market) &&
    (status === undefined || o.status === status) &&
    (accountId === undefined || o.account_id === accountId) &&
    (currency === undefined || o.currency === currency) &&
    (isin === undefined || o.isin === isin) &&
    (accountType === undefined || store.accountById.get(o.account_id)?.type === accountType);
  return paginate(candidates(store, query), query, filtered ? keep : undefined);
}

/**
 * `GET /v1/orders` as the tenant's clock has it. In `polls` mode the answer counts as one showing of each order in
 * it: an order shown often enough takes its next step once the answer is built (the next answer shows it).
 */
export function listOrders(tenant: Tenant, query: QueryOf<'listOrders'>): Order[] {
  const records = findOrders(tenant.store, query);
  const items = records.map(toOrderListItem);
  if (tenant.progression.shown(records, tenant.client.settings, tenant.now())) tenant.changed();
  return items;
}
