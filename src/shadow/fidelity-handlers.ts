import { DomainError } from '../api/errors.js';
import type { FakeContext } from '../context.js';
import { shadowModeOf, type ShadowMode } from './shadow-mode.js';
import { fidelityJunit } from './junit.js';
import { noContent, ok, type OperationHandlers } from '../http/operation.js';
import type { Schemas } from '../api/types.js';
import type { FidelityLog } from './log.js';
import { noDifferenceFile } from '../proof/vitest-export/index.js';
import { PACKAGE_NAME, packageVersion } from '../package-info.js';
import { tenantVitestFile } from '../control/proof.js';
import { checkedClientId, namedClientId, type TenantNaming } from '../control/tenant.js';

/** How long the report waits for comparisons of exchanges already answered (they run off the clients' path). */
const SETTLE_MS = 5_000;

const shadowOf = (ctx: FakeContext): ShadowMode => {
  const shadow = shadowModeOf(ctx);
  if (!shadow) {
    throw new DomainError(
      409,
      'shadow_mode_off',
      'The fake is not in shadow mode: start it with --upstream <base URL> (UPSTREAM_URL) to compare it with a deployment of the interface.',
    );
  }
  return shadow;
};

/** Shadow mode's report (docs/shadow-mode.md): the operator sees every client's exchanges, a partner its own. */
export function fidelityHandlers(ctx: FakeContext) {
  return {
    getFidelityReport: async (call) => {
      const { fidelity } = shadowOf(ctx);
      await fidelity.settled(SETTLE_MS);
      const clientId = call.controlPartner?.client.client_id;
      if (call.query.format === 'vitest')
        return {
          status: 200,
          body: Buffer.from(fidelityVitestFile(ctx, fidelity, call)),
          contentType: 'text/plain; charset=utf-8',
        };
      if (call.query.format !== 'junit') return ok(fidelity.report(clientId));
      return {
        status: 200,
        body: Buffer.from(fidelityJunit(fidelity, new Date(), clientId)),
        contentType: 'application/xml; charset=utf-8',
      };
    },
    clearFidelityReport: async (call) => {
      const { fidelity } = shadowOf(ctx);
      await fidelity.settled(SETTLE_MS);
      fidelity.clear(call.controlPartner?.client.client_id);
      return noContent();
    },
  } satisfies Partial<OperationHandlers>;
}

/** The shadow mode report's findings for one client, by the journal's request id. */
function findingsOf(report: Schemas['FidelityReport']) {
  const differences = new Map<string, Schemas['FidelityDifference'][]>();
  for (const difference of report.differences)
    differences.set(difference.request_id, [...(differences.get(difference.request_id) ?? []), difference]);
  const notComparable = new Map(
    report.not_comparable_exchanges.map((exchange) => [exchange.request_id, exchange.reason]),
  );
  return { upstream: report.upstream, differences, notComparable };
}

/**
 * The exchanges that differed as a vitest file asserting the upstream's answers (docs/shadow-mode.md): the session of
 * the named client (a partner: its own), else of the first twin with a difference; a passing file if none differed.
 */
function fidelityVitestFile(ctx: FakeContext, fidelity: FidelityLog, call: TenantNaming & { baseUrl: string }): string {
  const named = checkedClientId(call, namedClientId(call));
  // the twin of a client the fake also has is that client's own tenant: every tenant is a candidate
  const candidates = named !== undefined ? [named] : [...ctx.tenants.all()].map((t) => t.client.client_id);
  for (const clientId of candidates) {
    const findings = findingsOf(fidelity.report(clientId));
    if (findings.differences.size > 0 && ctx.tenants.find(clientId))
      return tenantVitestFile(ctx, clientId, call.baseUrl, findings);
  }
  return noDifferenceFile(fidelity.report(named).upstream, named, PACKAGE_NAME, packageVersion());
}
