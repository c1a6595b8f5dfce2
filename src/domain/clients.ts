import { randomBytes } from 'node:crypto';
import { componentRef } from '../api/document.js';
import { DomainError } from '../api/errors.js';
import type { Journal } from '../records/journal.js';
import type { ClientRecord, Tenant, TenantRegistry } from './tenants.js';
import { API_SCOPES } from './scopes.js';
import type { ClientSettings, Schemas } from '../api/types.js';
import { DEFAULT_PROGRESSION_SETTINGS } from './order-progression.js';

export type ClientView = Schemas['Client'];

/**
 * A client record's schema, its parts the document's components: the one check of a client a server starts with
 * (the library's, CLIENTS) and of one read back from a tenant file (which requires its members).
 */
export const CLIENT_RECORD_SCHEMA = {
  type: 'object',
  properties: {
    client_id: { type: 'string', minLength: 1 },
    client_secret: { type: 'string', minLength: 1 },
    token_endpoint_auth_method: componentRef('TokenEndpointAuthMethod'),
    scopes: { type: 'array', uniqueItems: true, items: componentRef('ApiScope') },
    settings: componentRef('ClientSettings'),
    registration: { type: 'string', pattern: '^[0-9a-f]{8}$' },
  },
};
export type ClientCreate = Schemas['ClientCreate'];
export type ClientUpdate = Schemas['ClientUpdate'];

const DEFAULT_SETTINGS: ClientSettings = {
  tax_reporting: false,
  lei_required: false,
  investor_activity_per_hour: 0,
  ...DEFAULT_PROGRESSION_SETTINGS,
};

/** Settings with changes applied: a change names only what it changes, down to one status's step seconds. */
function withSettings(settings: ClientSettings, changes: Schemas['ClientSettings'] = {}): ClientSettings {
  return {
    ...settings,
    ...changes,
    order_step_seconds: { ...settings.order_step_seconds, ...changes.order_step_seconds },
  };
}

export const DEFAULT_CLIENT: ClientCreate = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' };

/** What `demo` gives the default client, unless its own settings say otherwise: a world that moves by itself. */
export const DEMO_SETTINGS = {
  order_progression: 'clock',
  investor_activity_per_hour: 120,
} as const satisfies Schemas['ClientSettings'];

/** The clients a demo sandbox starts with: the first (the default) with DEMO_SETTINGS under its own. */
export function withDemoSettings([first, ...rest]: readonly ClientCreate[]): ClientCreate[] {
  return first ? [{ ...first, settings: { ...DEMO_SETTINGS, ...first.settings } }, ...rest] : [];
}

export function toClientRecord(input: ClientCreate): ClientRecord {
  return {
    client_id: input.client_id,
    client_secret: input.client_secret,
    token_endpoint_auth_method: input.token_endpoint_auth_method ?? 'client_secret_post',
    scopes: [...(input.scopes ?? API_SCOPES)],
    settings: withSettings(DEFAULT_SETTINGS, input.settings),
  };
}

function toClientView({ client_id, token_endpoint_auth_method, scopes, settings }: ClientRecord): ClientView {
  return { client_id, token_endpoint_auth_method, scopes: [...scopes], settings: withSettings(settings) };
}

/** Every client, or only the one named (what a partner may see: its own). */
export function listClients(registry: TenantRegistry, only?: string): Schemas['ClientList'] {
  const tenants = only === undefined ? [...registry.all()] : [registry.get(only)];
  return {
    data: tenants.map(({ client }) => ({
      ...toClientView(client),
      client_secret: client.client_secret,
      default: client.client_id === registry.defaultClientId,
      ...(client.client_id === registry.demoPartnerId && { demo_partner: true }),
    })),
  };
}

/** `twin`: shadow mode's twin of an upstream's client (MAX_TWINS, none of the operator's slots). */
export function createClient(
  registry: TenantRegistry,
  input: ClientCreate,
  { twin = false }: { twin?: boolean } = {},
): ClientView {
  const registration = randomBytes(4).toString('hex');
  return toClientView(registry.add({ ...toClientRecord(input), registration }, undefined, { twin }).client);
}

export function updateClient(registry: TenantRegistry, clientId: string, changes: ClientUpdate): ClientView {
  const tenant = registry.get(clientId);
  const { client } = tenant;
  if (changes.token_endpoint_auth_method) client.token_endpoint_auth_method = changes.token_endpoint_auth_method;
  if (changes.scopes) client.scopes = [...changes.scopes];
  if (changes.settings) tenant.changeSettings(withSettings(client.settings, changes.settings));
  return toClientView(client);
}

/**
 * The tenant `DELETE /__control/clients/{client_id}` would remove (404 when none): not the default client (control
 * calls and the library without a client id act on it), the demo's partner (its session runs as it) nor a shadow mode
 * twin (shadow mode keeps it): 409 `client_not_removable`, saying which.
 */
export function removableTenant(registry: TenantRegistry, clientId: string): Tenant {
  const tenant = registry.get(clientId);
  const why =
    clientId === registry.defaultClientId
      ? 'is the default one (the first configured): control calls and the library without a client id act on it, so it stays. Reset it instead (POST /__control/reset)'
      : clientId === registry.demoPartnerId
        ? "is --demo's partner, whose session runs as it: it stays while the demo runs"
        : registry.isTwin(clientId)
          ? "is shadow mode's twin of an upstream's client: shadow mode keeps it for the exchanges it compares"
          : undefined;
  if (why !== undefined)
    throw new DomainError(409, 'client_not_removable', `The client "${clientId.slice(0, 200)}" ${why}.`);
  return tenant;
}

/** A tenant removed with everything it holds (`removableTenant` first): its world and room, and its journal. */
export function removeClient(registry: TenantRegistry, journal: Journal, clientId: string): void {
  registry.remove(clientId);
  journal.remove(clientId);
}

/**
 * The one reset path (control plane and library): worlds, clocks and faults of the tenants; their journals are kept,
 * the reset marked in them (what `verify` and the journal's list look at by default begins there).
 */
export function resetTenants(registry: TenantRegistry, journal: Journal, clientId?: string): void {
  const targets: Iterable<Tenant> = clientId === undefined ? registry.all() : [registry.get(clientId)];
  for (const tenant of targets) {
    tenant.reset();
    registry.touch(tenant);
  }
  journal.markReset(clientId);
}
