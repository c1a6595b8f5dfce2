import { DomainError } from '../api/errors.js';
import type { FakeContext } from '../context.js';
import { noContent, ok, type OperationHandlers } from '../http/operation.js';
import { checkedClientId, controlTenant, namedClientId } from './tenant.js';
import { readinessJunit } from '../proof/readiness-junit.js';
import { exportTenantRequestsSliced, lastReset, tenantReadinessReport, verifyTenantRequestsSliced } from './proof.js';
import { requestExchange } from './request-exchange.js';

/** The journal and what is read from it: its entries and exchanges, the readiness report, verify, the exports. */
export function journalHandlers(ctx: FakeContext) {
  return {
    listRequests: (call) => {
      const { method, path, since = 'reset' } = call.query;
      const clientId = checkedClientId(call, namedClientId(call));
      const data = ctx.journal.entries({ method, path, since, ...(clientId !== undefined && { clientId }) });
      return ok({ data, since, last_reset: clientId === undefined ? null : lastReset(ctx, clientId) });
    },
    clearRequests: (call) => {
      const clientId = checkedClientId(call, namedClientId(call));
      ctx.journal.clear(clientId);
      return noContent();
    },
    getRequestExchange: (call) => {
      // a partner reads its own requests only, and names no other tenant here either
      checkedClientId(call, namedClientId(call));
      return ok(requestExchange(ctx, call.path.request_id, call.controlPartner?.client.client_id));
    },
    getReadinessReport: (call) => {
      const tenant = controlTenant(ctx, call);
      const report = tenantReadinessReport(ctx, tenant.client.client_id, call.query.since ?? 'start');
      if (call.query.format !== 'junit') return ok(report);
      return {
        status: 200,
        body: Buffer.from(readinessJunit(report, tenant.clock.now())),
        contentType: 'application/xml; charset=utf-8',
      };
    },
    exportRequests: async (call) => {
      const clientId = controlTenant(ctx, call).client.client_id;
      const { format = 'har', since = 'start', consumer } = call.query;
      const exported = await exportTenantRequestsSliced(ctx, clientId, format, call.baseUrl, {
        since,
        ...(consumer !== undefined && { consumer }),
      });
      return {
        status: 200,
        body: exported.body,
        contentType: exported.contentType,
        headers: {
          'Content-Disposition': `attachment; filename="${clientId.replace(/[^\w.-]/g, '_')}-requests.${exported.extension}"`,
        },
      };
    },
    verifyRequests: async (call) => {
      const outcome = await verifyTenantRequestsSliced(ctx, controlTenant(ctx, call).client.client_id, call.body);
      if (!outcome.holds)
        throw new DomainError(409, 'verification_failed', outcome.detail, undefined, undefined, outcome.failure);
      return ok(outcome.result);
    },
  } satisfies Partial<OperationHandlers>;
}
