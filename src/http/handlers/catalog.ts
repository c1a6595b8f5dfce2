import type { FakeContext } from '../../context.js';
import { getShareClass, listAssets, listShareClasses } from '../../domain/catalog.js';
import { listCustomOfferingDocuments, listFundDocuments } from '../../domain/documents.js';
import { listOrders } from '../../domain/orders.js';
import type { QueryOf } from '../../api/types.js';
import { param, queryOf, type OperationHandlers } from '../operation-handlers.js';
import { linkContextOf, tenantOf } from '../request-context.js';

type CatalogOperations =
  | 'listShareClasses'
  | 'getShareClass'
  | 'listAssets'
  | 'listOrders'
  | 'listFundDocuments'
  | 'listCustomOfferingDocuments';

export function catalogHandlers(ctx: FakeContext): Pick<OperationHandlers, CatalogOperations> {
  return {
    listShareClasses: (req, res) => {
      res.json({ data: listShareClasses(tenantOf(res).store, queryOf<QueryOf<'listShareClasses'>>(req)) });
    },
    getShareClass: (req, res) => {
      const tenant = tenantOf(res);
      res.json(getShareClass(tenant.store, param(req, 'isin'), tenant.clock.now()));
    },
    listAssets: (req, res) => {
      res.json({ data: listAssets(tenantOf(res).store, queryOf<QueryOf<'listAssets'>>(req)) });
    },
    listOrders: (req, res) => {
      res.json({ data: listOrders(tenantOf(res).store, queryOf<QueryOf<'listOrders'>>(req)) });
    },
    listFundDocuments: (req, res) => {
      const tenant = tenantOf(res);
      res.json({ data: listFundDocuments(tenant.store, param(req, 'abbreviation'), linkContextOf(req, ctx, tenant), queryOf<QueryOf<'listFundDocuments'>>(req)) });
    },
    listCustomOfferingDocuments: (req, res) => {
      const tenant = tenantOf(res);
      const links = linkContextOf(req, ctx, tenant);
      const page = queryOf<QueryOf<'listCustomOfferingDocuments'>>(req);
      res.json({ data: listCustomOfferingDocuments(tenant.store, param(req, 'isin'), param(req, 'custom_offering_id'), links, page) });
    },
  };
}
