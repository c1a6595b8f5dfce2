import { getShareClass, listShareClasses } from '../../domain/catalog.js';
import { ok, type OperationHandlers } from '../operation.js';

/** The document's `share-classes` tag. */
export const shareClassHandlers = {
  listShareClasses: ({ tenant, query }) => ok({ data: listShareClasses(tenant.store, query) }),
  getShareClass: ({ tenant, path }) => ok(getShareClass(tenant.store, path.isin, tenant.clock.now())),
} satisfies Partial<OperationHandlers>;
