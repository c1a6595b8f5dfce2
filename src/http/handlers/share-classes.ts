import type { FakeContext } from '../../context.js';
import { getShareClass, listAssets, listShareClasses } from '../../domain/catalog.js';
import { listCustomOfferingDocuments, listFundDocuments } from '../../domain/documents.js';
import { listOrders } from '../../domain/orders.js';
import { ok, type OperationHandlers } from '../operation.js';
import { linkContextOf } from '../request-context.js';

export function catalogHandlers(ctx: FakeContext) {
  return {
    listShareClasses: ({ tenant, query }) => ok({ data: listShareClasses(tenant.store, query) }),
    getShareClass: ({ tenant, path }) => ok(getShareClass(tenant.store, path.isin, tenant.clock.now())),
    listAssets: ({ tenant, query }) => ok({ data: listAssets(tenant.store, query) }),
    listOrders: ({ tenant, query }) => ok({ data: listOrders(tenant, query) }),
    listFundDocuments: (call) =>
      ok({ data: listFundDocuments(call.tenant.store, call.path.abbreviation, linkContextOf(call, ctx, call.tenant), call.query) }),
    listCustomOfferingDocuments: (call) => {
      const { tenant, path } = call;
      return ok({ data: listCustomOfferingDocuments(tenant.store, path.isin, path.custom_offering_id, linkContextOf(call, ctx, tenant), call.query) });
    },
  } satisfies Partial<OperationHandlers>;
}
