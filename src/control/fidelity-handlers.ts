import { DomainError } from '../api/errors.js';
import type { FakeContext, ShadowModeState } from '../context.js';
import { fidelityJunit } from '../harness/fidelity/junit.js';
import { noContent, ok, type OperationHandlers } from '../http/operation.js';

/** How long the report waits for comparisons of exchanges already answered (they run off the clients' path). */
const SETTLE_MS = 5_000;

const shadowOf = (ctx: FakeContext): ShadowModeState => {
  if (!ctx.shadow) {
    throw new DomainError(409, 'shadow_mode_off', 'The fake is not in shadow mode: start it with --upstream <base URL> (UPSTREAM_URL) to compare it with a deployment of the interface.');
  }
  return ctx.shadow;
};

/** Shadow mode's report (CONTRACT 14): the operator sees every client's exchanges, a partner its own. */
export function fidelityHandlers(ctx: FakeContext) {
  return {
    getFidelityReport: async (call) => {
      const { fidelity } = shadowOf(ctx);
      await fidelity.settled(SETTLE_MS);
      const clientId = call.controlPartner?.client.client_id;
      if (call.query.format !== 'junit') return ok(fidelity.report(clientId));
      return { status: 200, body: Buffer.from(fidelityJunit(fidelity, new Date(), clientId)), contentType: 'application/xml; charset=utf-8' };
    },
    clearFidelityReport: async (call) => {
      const { fidelity } = shadowOf(ctx);
      await fidelity.settled(SETTLE_MS);
      fidelity.clear(call.controlPartner?.client.client_id);
      return noContent();
    },
  } satisfies Partial<OperationHandlers>;
}
