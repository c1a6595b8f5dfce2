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
  return {
    url,
    clientId,
    control,
    token: () => fetchToken(url, clientId, clientSecret),
  };
}
