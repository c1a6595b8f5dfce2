// One tenant per vitest worker: parallel workers never see each other's accounts, orders, faults or clock.
import { inject } from 'vitest';
import { createControlClient, fetchToken } from 'investment-api-fake';

export async function workerTenant() {
  const url = inject('fakeUrl');
  const clientId = `partner-worker-${process.env.VITEST_POOL_ID ?? '1'}`;
  const clientSecret = 'worker-secret';
  const admin = createControlClient({ url, controlToken: process.env.CONTROL_TOKEN });
  await admin.addClient({ client_id: clientId, client_secret: clientSecret }).catch((error: { status?: number }) => {
    if (error.status !== 409) throw error; // registered by an earlier file of this worker
  });
  const control = admin.forClient(clientId);
  // one access token for the worker, as a careful client keeps it (the readiness report's token_per_call checks)
  let kept: { token: string; fetchedAt: number } | undefined;
  return {
    url,
    clientId,
    control,
    /** The worker's token, fetched again well before its hour is up, or at once with `{ fresh: true }` (after a 401). */
    token: async ({ fresh = false }: { fresh?: boolean } = {}) => {
      if (fresh || kept === undefined || Date.now() - kept.fetchedAt > 50 * 60_000)
        kept = { token: await fetchToken(url, clientId, clientSecret), fetchedAt: Date.now() };
      return kept.token;
    },
  };
}
