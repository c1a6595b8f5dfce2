import { Clock } from './clock.js';
import { DomainError } from '../api/errors.js';
import { FaultBook } from '../harness/faults.js';
import type { ApiScope, ClientSettings, TokenEndpointAuthMethod, World } from '../api/types.js';
import { WorldStore } from '../store/world-store.js';
import { ensureWorldFits, tenantLimitReached, type Limits } from './limits.js';

export interface ClientRecord {
  client_id: string;
  client_secret: string;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  scopes: ApiScope[];
  settings: ClientSettings;
}

/**
 * The fixtures every tenant starts from; never handed out, only copied. (Kept as objects: a JSON string needs less
 * heap once built, but building it next to the generated world raised the peak, and so the RSS, of a 100k-order
 * world by ~100 MB in the benchmark.)
 */
export class Fixtures {
  constructor(private readonly world: World) {}

  freshCopy(): World {
    return structuredClone(this.world);
  }
}

/** An OAuth client and the world it sees: its own store and its own clock. */
export class Tenant {
  store: WorldStore;
  readonly clock = new Clock();
  readonly faults = new FaultBook();

  constructor(
    readonly client: ClientRecord,
    private readonly fixtures: Fixtures,
    private readonly maxRecords = Number.POSITIVE_INFINITY,
    world: World = fixtures.freshCopy(),
  ) {
    // The fixtures are the operator's choice and may start above the cap: it bounds what requests add.
    this.store = new WorldStore(world, maxRecords);
  }

  /** Back to the fixtures byte for byte, the clock back to real time, no faults; the client itself stays. */
  reset(): void {
    this.store = new WorldStore(this.fixtures.freshCopy(), this.maxRecords);
    this.clock.reset();
    this.faults.clear();
  }

  /** Loads a world the caller hands over (and no longer uses); one above MAX_RECORDS_PER_TENANT is refused. */
  replaceWorld(world: World): void {
    const next = new WorldStore(world, this.maxRecords);
    ensureWorldFits(next.recordCount, this.maxRecords);
    this.store = next;
  }
}

/** Every tenant of one server instance. The first client is the default one for control-plane calls. */
export class TenantRegistry {
  private readonly tenants = new Map<string, Tenant>();
  readonly defaultClientId: string;
  private changeListener: ((tenant: Tenant) => void) | undefined;

  /** `restoredWorlds`: the worlds tenants had before a restart (STATE_DIR), by client id; the others start from the fixtures. */
  constructor(
    private readonly fixtures: Fixtures,
    clients: readonly ClientRecord[],
    private readonly limits: Limits = { maxTenants: Number.POSITIVE_INFINITY, maxRecordsPerTenant: Number.POSITIVE_INFINITY },
    restoredWorlds: ReadonlyMap<string, World> = new Map(),
  ) {
    if (clients.length === 0) throw new Error('At least one client is needed.');
    if (clients.length > limits.maxTenants) throw new Error(`${clients.length} clients are configured, more than MAX_TENANTS (${limits.maxTenants}) allows.`);
    for (const client of clients) this.add(client, restoredWorlds.get(client.client_id));
    this.defaultClientId = clients[0]!.client_id;
  }

  /** A new tenant seeded from the fixtures, or (a restart restoring it) with the world it had. */
  add(client: ClientRecord, world?: World): Tenant {
    if (this.tenants.has(client.client_id)) {
      throw new DomainError(409, 'client_exists', `A client with client_id "${client.client_id}" already exists.`);
    }
    if (this.tenants.size >= this.limits.maxTenants) throw tenantLimitReached(this.limits.maxTenants);
    const tenant = new Tenant(client, this.fixtures, this.limits.maxRecordsPerTenant, world);
    this.tenants.set(client.client_id, tenant);
    this.touch(tenant);
    return tenant;
  }

  find(clientId: string): Tenant | undefined {
    const tenant = this.tenants.get(clientId);
    if (tenant) this.touch(tenant);
    return tenant;
  }

  get(clientId: string): Tenant {
    const tenant = this.tenants.get(clientId);
    if (!tenant) throw new DomainError(404, 'client_not_found', `No client has client_id "${clientId}".`);
    this.touch(tenant);
    return tenant;
  }

  /**
   * Whoever persists tenants (STATE_DIR) hears of each tenant a call reaches (found, added, reset), so it can save it
   * soon after, off the request path. Reaching is not proof of a change; it is cheap, and it misses none.
   */
  onTouch(listener: (tenant: Tenant) => void): void {
    this.changeListener = listener;
  }

  touch(tenant: Tenant): void {
    this.changeListener?.(tenant);
  }

  /** Whether any tenant has a fault to inject: most requests of most runs need not look further. */
  hasFaults(): boolean {
    for (const tenant of this.tenants.values()) if (tenant.faults.size > 0) return true;
    return false;
  }

  all(): IterableIterator<Tenant> {
    return this.tenants.values();
  }
}
