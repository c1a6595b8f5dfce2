import { DomainError } from '../api/errors.js';
import type { FakeContext } from '../context.js';
import { ok, type OperationHandlers } from '../http/operation.js';
import { readinessJunit } from '../proof/readiness-junit.js';
import { exportTenantRequestsSliced, tenantReadinessReport, verifyTenantRequestsSliced } from './proof.js';
import { controlTenant } from './tenant.js';

/** What is proved from a tenant's journal: the readiness report, verify, the exports (the proof satellite's calls). */
export function proofHandlers(ctx: Pick<FakeContext, 'api' | 'journal' | 'options' | 'tenants'>) {
  return {
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
