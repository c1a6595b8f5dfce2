import { operationScopesOf, operationsOf } from '../api/document.js';
import type { Schemas } from '../api/types.js';
import type { FakeContext } from '../context.js';
import { PACKAGE_NAME, packageVersion } from '../package-info.js';
import { harOf, httpFileOf } from '../harness/export.js';
import type { JournalRecord } from '../harness/journal.js';
import { readinessReport, type ReadinessReport } from '../harness/readiness-report.js';
import { verifyRequests, type VerificationOutcome } from '../harness/verify.js';

/**
 * The proof calls over one tenant's journal, shared by the control plane and the library (`fake.verify`,
 * `fake.report`): the tenant's verified requests only, as a control call never names another's.
 */
export const tenantRecords = (ctx: FakeContext, clientId: string): JournalRecord[] => ctx.journal.records((r) => r.clientId === clientId);

export const verifyTenantRequests = (ctx: FakeContext, clientId: string, verification: Schemas['Verification']): VerificationOutcome =>
  verifyRequests(tenantRecords(ctx, clientId), verification, new Set(operationsOf(ctx.api.document).map((op) => op.operationId)));

export const tenantReadinessReport = (ctx: FakeContext, clientId: string): ReadinessReport =>
  readinessReport(clientId, tenantRecords(ctx, clientId), {
    tokenTtlSeconds: ctx.options.tokenTtlSeconds,
    operationScopes: operationScopesOf(ctx.api.document),
  });

/** The tenant's journal as HAR 1.2 or a `.http` file. */
export function exportTenantRequests(ctx: FakeContext, clientId: string, format: 'har' | 'http', baseUrl: string) {
  const records = tenantRecords(ctx, clientId);
  // the fake names itself by the package's version (the document's info.version is the API's)
  const context = { baseUrl, creator: { name: PACKAGE_NAME, version: packageVersion() } };
  return format === 'http'
    ? { body: Buffer.from(httpFileOf(records, context)), contentType: 'text/plain; charset=utf-8', extension: 'http' }
    : { body: Buffer.from(JSON.stringify(harOf(records, context), null, 2)), contentType: 'application/json; charset=utf-8', extension: 'har' };
}
