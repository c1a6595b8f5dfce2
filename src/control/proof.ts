import { operationScopesOf, operationsOf, pagedListsOf } from '../api/document.js';
import { API_SCOPES } from '../domain/scopes.js';
import type { ExportFormat, Schemas } from '../api/types.js';
import type { FakeContext } from '../context.js';
import { harSteps, httpFileSteps } from '../proof/export.js';
import { vitestFileSteps } from '../proof/vitest-export/index.js';
import type { FidelityFindings } from '../proof/vitest-export/fidelity-step.js';
import { contractSteps } from '../proof/pact/contract.js';
import type { RecordFields, RecordKind } from '../proof/pact/sightings.js';
import type { Tenant } from '../domain/tenants.js';
import type { JournalRecord, JournalSpan } from '../records/journal.js';
import { PACKAGE_NAME, packageVersion } from '../package-info.js';
import { readinessReport, type ReadinessReport } from '../proof/readiness-report.js';
import { runNow, runSliced, type Slices } from '../util/slices.js';
import { verifySteps, type VerificationOutcome } from '../proof/verify.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'api' | 'journal' | 'options' | 'tenants'>;

/**
 * The proof calls over one tenant's journal, shared by the control plane and the library (`fake.verify`,
 * `fake.report`, the exports): the tenant's verified requests only, as a control call never names another's.
 * Verify looks since the tenant's last reset by default, the report and the exports at the whole journal.
 */
const tenantRecords = (ctx: InstanceParts, clientId: string, since: JournalSpan): JournalRecord[] =>
  ctx.journal.records(clientId, since);

/** How many resets the journal marks among the records read. */
const resetsWithin = (ctx: InstanceParts, clientId: string, records: readonly JournalRecord[]): number => {
  const first = records[0]?.seq;
  if (first === undefined) return 0;
  return ctx.journal
    .resets(clientId)
    .filter((mark) => mark.afterSeq >= first && mark.afterSeq < records[records.length - 1]!.seq).length;
};

const verifySlices = (
  ctx: InstanceParts,
  clientId: string,
  verification: Schemas['Verification'],
): Slices<VerificationOutcome> =>
  verifySteps(
    tenantRecords(ctx, clientId, verification.since ?? 'reset'),
    verification,
    new Set(operationsOf(ctx.api.document).map((op) => op.operationId)),
  );

/** Verify at once (the library: its caller's own time). */
export const verifyTenantRequests = (
  ctx: InstanceParts,
  clientId: string,
  verification: Schemas['Verification'],
): VerificationOutcome => runNow(verifySlices(ctx, clientId, verification));

/** Verify for the control plane: the event loop gets a turn between slices of the journal. */
export const verifyTenantRequestsSliced = (
  ctx: InstanceParts,
  clientId: string,
  verification: Schemas['Verification'],
): Promise<VerificationOutcome> => runSliced(verifySlices(ctx, clientId, verification));

export function tenantReadinessReport(
  ctx: InstanceParts,
  clientId: string,
  since: JournalSpan = 'start',
): ReadinessReport {
  const records = tenantRecords(ctx, clientId, since);
  const marks = ctx.journal.resets(clientId);
  const report = readinessReport(clientId, records, {
    tokenTtlSeconds: ctx.options.tokenTtlSeconds,
    operationScopes: operationScopesOf(ctx.api.document),
    apiScopes: API_SCOPES,
    lists: pagedListsOf(ctx.api.document),
    resetBetween: (earlier, later) => marks.some((mark) => mark.afterSeq >= earlier.seq && mark.afterSeq < later.seq),
  });
  return { ...report, since, resets: resetsWithin(ctx, clientId, records) };
}

export interface ExportedRequests {
  body: Buffer;
  contentType: string;
  extension: 'har' | 'http' | 'pact.json' | 'test.ts';
}

/** What an export takes beyond its format: its span (HAR and `.http`), the contract's consumer (`pact`). */
export interface ExportOptions {
  since?: JournalSpan;
  /** The consumer's name in a Pact contract (default the client id). */
  consumer?: string;
}

/** A record of the tenant's world now, by id, as a contract's provider state names it. */
const worldRecord =
  (tenant: Tenant) =>
  (id: string): { kind: RecordKind; fields: RecordFields } | undefined => {
    const { accountById, walletById, paymentMethodById, orderById } = tenant.store;
    const account = accountById.get(id);
    if (account) return { kind: 'account', fields: account };
    const wallet = walletById.get(id);
    if (wallet) return { kind: 'wallet', fields: wallet };
    const method = paymentMethodById.get(id);
    if (method) return { kind: 'paymentMethod', fields: method };
    const order = orderById.get(id);
    return order ? { kind: 'order', fields: order } : undefined;
  };

/** The tenant's session since its last reset as a vitest file: its span, where it began, the secret kept out. */
export const tenantVitestFile = (
  ctx: InstanceParts,
  clientId: string,
  baseUrl: string,
  fidelity?: FidelityFindings,
): string => runNow(tenantVitestFileSteps(ctx, clientId, baseUrl, fidelity));

function tenantVitestFileSteps(
  ctx: InstanceParts,
  clientId: string,
  baseUrl: string,
  fidelity?: FidelityFindings,
): Slices<string> {
  const tenant = ctx.tenants.get(clientId);
  return vitestFileSteps({
    clientId,
    baseUrl,
    credentials: [tenant.client.client_secret],
    span: ctx.journal.span(clientId),
    origin: tenant.origin,
    fixtures: tenant.fixturesSource,
    fixturesWorld: () => tenant.fixturesWorld(),
    packageName: PACKAGE_NAME,
    version: packageVersion(),
    ...(fidelity && { fidelity }),
  });
}

function* exportSlices(
  ctx: InstanceParts,
  clientId: string,
  format: ExportFormat,
  baseUrl: string,
  { since = 'start', consumer }: ExportOptions,
): Slices<ExportedRequests> {
  // a replay covers the span since the last reset, whatever `since` says: it starts from a known world
  if (format === 'vitest')
    return {
      body: Buffer.from(yield* tenantVitestFileSteps(ctx, clientId, baseUrl)),
      contentType: 'text/plain; charset=utf-8',
      extension: 'test.ts',
    };
  // the fake names itself by the package's version (the document's info.version is the API's)
  const creator = { name: PACKAGE_NAME, version: packageVersion() };
  if (format === 'pact') {
    // a contract is of a span that starts from a known world: since the last reset, whatever `since` says
    const tenant = ctx.tenants.get(clientId);
    const context = {
      document: ctx.api.document,
      consumer: consumer ?? clientId,
      creator,
      worldRecord: worldRecord(tenant),
      credentials: [tenant.client.client_secret],
    };
    return {
      body: yield* contractSteps(tenantRecords(ctx, clientId, 'reset'), context),
      contentType: 'application/json; charset=utf-8',
      extension: 'pact.json',
    };
  }
  const records = tenantRecords(ctx, clientId, since);
  const context = { baseUrl, creator, resets: ctx.journal.resets(clientId) };
  return format === 'http'
    ? { body: yield* httpFileSteps(records, context), contentType: 'text/plain; charset=utf-8', extension: 'http' }
    : { body: yield* harSteps(records, context), contentType: 'application/json; charset=utf-8', extension: 'har' };
}

/** The tenant's journal as HAR 1.2, `.http` or Pact, or its session as a vitest file: at once (the library). */
export const exportTenantRequests = (
  ctx: InstanceParts,
  clientId: string,
  format: ExportFormat,
  baseUrl: string,
  options: ExportOptions = {},
): ExportedRequests => runNow(exportSlices(ctx, clientId, format, baseUrl, options));

/** The same for the control plane, the event loop free between slices. */
export const exportTenantRequestsSliced = (
  ctx: InstanceParts,
  clientId: string,
  format: ExportFormat,
  baseUrl: string,
  options: ExportOptions = {},
): Promise<ExportedRequests> => runSliced(exportSlices(ctx, clientId, format, baseUrl, options));
