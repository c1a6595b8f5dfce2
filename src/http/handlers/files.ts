import type { FakeContext } from '../../context.js';
import { downloadDocument } from '../../domain/documents.js';
import { notFound } from '../../api/errors.js';
import { param, queryOf, type OperationHandlers } from '../operation-handlers.js';
import { linkContextOf } from '../request-context.js';

export function fileHandlers(ctx: FakeContext): Pick<OperationHandlers, 'downloadDocument'> {
  return {
    downloadDocument: (req, res) => {
      const tenant = ctx.tenants.find(param(req, 'client_id'));
      if (!tenant) throw notFound('The document');
      const { expires, signature } = queryOf<{ expires?: string; signature?: string }>(req);
      const pdf = downloadDocument(tenant.store, linkContextOf(req, ctx, tenant), {
        fileName: param(req, 'file_name'),
        expires,
        signature,
      });
      res.status(200).type('application/pdf').set('Cache-Control', 'private, max-age=60').send(pdf);
    },
  };
}
