import type { Express } from 'express';
import { beforeAll } from 'vitest';
import type { ClientCreate } from '../../src/domain/clients.js';
import type { FakeOptions } from '../../src/config.js';
import { http, testApp, tokenFor } from './test-app.js';

export interface FreshTenant {
  app: Express;
  clientId: string;
  clientSecret: string;
  token: string;
}

/**
 * One app for a test file, a tenant of its own for each test: a new client starts from the fixtures with its own
 * store, clock and faults, which isolates a test as well as a new app does, at a fraction of its cost. Tests that
 * read instance-wide things (the journal, options, the default client) still make their own app.
 */
export function appPerFile(options: FakeOptions = {}) {
  let app: Express;
  let tenants = 0;
  beforeAll(() => {
    app = testApp(options);
  });
  return {
    get app(): Express {
      return app;
    },
    /** Registers a new client (settings and scopes as given) and signs it in. */
    async tenant(client: Omit<Partial<ClientCreate>, 'client_id'> = {}): Promise<FreshTenant> {
      const clientId = `tenant-${++tenants}`;
      const clientSecret = client.client_secret ?? 'tenant-secret';
      await http(app)
        .post('/__control/clients')
        .send({ ...client, client_id: clientId, client_secret: clientSecret })
        .expect(201);
      const token = await tokenFor(app, { client_id: clientId, client_secret: clientSecret });
      return { app, clientId, clientSecret, token };
    },
  };
}

/**
 * Registers client `clientId` (secret `secret`) with these settings on `target`, its clock frozen at `now`: the
 * control headers that act as it, its clock moves and a token of its own (tokens live on its clock).
 */
export async function frozenTenant(target: Express, clientId: string, settings: Record<string, unknown>, now: string) {
  await http(target)
    .post('/__control/clients')
    .send({ client_id: clientId, client_secret: 'secret', settings })
    .expect(201);
  const control = { 'X-Client-Id': clientId };
  const setClock = (body: Record<string, unknown>) =>
    http(target).post('/__control/clock').set(control).send(body).expect(200);
  await setClock({ now, frozen: true });
  return {
    clientId,
    control,
    setClock,
    advanceClock: (seconds: number) => setClock({ advance_seconds: seconds }),
    patch: (changes: Record<string, unknown>) =>
      http(target).patch(`/__control/clients/${clientId}`).send({ settings: changes }),
    token: () => tokenFor(target, { client_id: clientId, client_secret: 'secret' }),
  };
}
