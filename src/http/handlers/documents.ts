import type { FakeContext } from '../../context.js';
import { downloadDocument, listCustomOfferingDocuments, listFundDocuments } from '../../domain/documents.js';
import { notFound } from '../../api/errors.js';
import { ok, type OperationHandlers } from '../operation.js';
import { linkContextOf } from '../request-context.js';

/** The document's `documents` tag: the lists, with links signed for the tenant, and the download a link leads to. */
export function documentHandlers(ctx: Pick<FakeContext, 'linkSigner' | 'options' | 'tenants' | 'tokens'>) {
  return {
    listFundDocuments: (call) =>
      ok({
        data: listFundDocuments(
          call.tenant.store,
          call.path.abbreviation,
          linkContextOf(call, ctx, call.tenant),
          call.query,
        ),
      }),
    listCustomOfferingDocuments: (call) => {
      const { tenant, path } = call;
      return ok({
        data: listCustomOfferingDocuments(
          tenant.store,
          path.isin,
          path.custom_offering_id,
          linkContextOf(call, ctx, tenant),
          call.query,
        ),
      });
    },
    // Signed links are the credential here: the tenant is the one the link names, not a token's.
    downloadDocument: (call) => {
      const tenant = ctx.tenants.find(call.path.client_id);
      if (!tenant) throw notFound('The document');
      const pdf = downloadDocument(tenant.store, linkContextOf(call, ctx, tenant), {
        fileName: call.path.file_name,
        // the signature covers the digits as the link carries them; the document types them as the Unix time
        expires: call.query.expires === undefined ? undefined : String(call.query.expires),
        signature: call.query.signature,
        // a link signed by this server proves its tenant, expired or not (the readiness report's stale_document_link)
        proven: () => call.attribute(tenant),
      });
      return {
        status: 200,
        body: pdf,
        contentType: 'application/pdf',
        headers: { 'Cache-Control': 'private, max-age=60' },
      };
    },
  } satisfies Partial<OperationHandlers>;
}
