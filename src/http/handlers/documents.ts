import type { FakeContext } from '../../context.js';
import { downloadDocument } from '../../domain/documents.js';
import { notFound } from '../../api/errors.js';
import type { OperationHandlers } from '../operation.js';
import { linkContextOf } from '../request-context.js';

export function fileHandlers(ctx: FakeContext) {
  return {
    // Signed links are the credential here: the tenant is the one the link names, not a token's.
    downloadDocument: (call) => {
      const tenant = ctx.tenants.find(call.path.client_id);
      if (!tenant) throw notFound('The document');
      const pdf = downloadDocument(tenant.store, linkContextOf(call, ctx, tenant), {
        fileName: call.path.file_name,
        expires: call.query.expires,
        signature: call.query.signature,
        // a link signed by this server proves its tenant, expired or not (the readiness report's stale_document_link)
        proven: () => call.attribute(tenant),
      });
      return { status: 200, body: pdf, contentType: 'application/pdf', headers: { 'Cache-Control': 'private, max-age=60' } };
    },
  } satisfies Partial<OperationHandlers>;
}
