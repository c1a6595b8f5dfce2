import { Clock } from './clock.js';
import { DomainError } from '../api/errors.js';
import { FaultBook } from '../harness/faults.js';
import type { ApiScope, ClientSettings, World } from '../api/types.js';
import { WorldStore } from '../store/world-store.js';

export interface ClientRecord {
  client_id: string;
  client_secret: string;
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
  ) {
    this.store = new WorldStore(fixtures.freshCopy());
  }

  /** Back to the fixtures byte for byte, the clock back to real time, no faults; the client itself stays. */
  reset(): void {
    this.store = new WorldStore(this.fixtures.freshCopy());
    this.clock.reset();
    this.faults.clear();
  }

  /** Loads a world the caller hands over (and no longer uses). */
  replaceWorld(world: World): void {
    this.store = new WorldStore(world);
  }
}

/** Every tenant of one server instance. The first client is the default one for control-plane calls. */
export class TenantRegistry {
  private readonly tenants = new Map<string, Tenant>();
  readonly defaultClientId: string;

  constructor(
    private readonly fixtures: Fixtures,
    clients: readonly ClientRecord[],
  ) {
    if (clients.length === 0) throw new Error('At least one client is needed.');
    for (const client of clients) this.add(client);
    this.defaultClientId = clients[0]!.client_id;
  }

  add(client: ClientRecord): Tenant {
    if (this.tenants.has(client.client_id)) {
      throw new DomainError(409, 'client_exists', `A client with client_id "${client.client_id}" already exists.`);
    }
    const tenant = new Tenant(client, this.fixtures);
    this.tenants.set(client.client_id, tenant);
    return tenant;
  }

  find(clientId: string): Tenant | undefined {
    return this.tenants.get(clientId);
  }

  get(clientId: string): Tenant {
    const tenant = this.tenants.get(clientId);
    if (!tenant) throw new DomainError(404, 'client_not_found', `No client has client_id "${clientId}".`);
    return tenant;
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
