import { listAssets } from '../../domain/catalog.js';
import { ok, type OperationHandlers } from '../operation.js';

/** The document's `assets` tag. */
export const assetHandlers = {
  listAssets: ({ tenant, query }) => ok({ data: listAssets(tenant.store, query) }),
} satisfies Partial<OperationHandlers>;
