import { changeClock, Clock } from './clock.js';
import { DomainError } from '../api/errors.js';
import { FaultBook } from '../records/faults.js';
import type { FixturesSource, SpanOrigin } from '../records/control-steps.js';
import type { ApiScope, ClientSettings, Schemas, TokenEndpointAuthMethod, World } from '../api/types.js';
import { OrderProgression } from './order-progression.js';
import { InvestorActivity } from './investor-activity.js';
import { placeOrder } from './order-placement.js';
import { worldBytes, WorldStore } from '../store/world-store.js';
import { copyOfJson } from '../store/json-copy.js';
import { ensureWorldFits, tenantLimitReached, twinLimitReached, type Limits } from './limits.js';
import { WorldBudget, type TenantShare } from './world-budget.js';

/** What bounds one tenant's world: its records (MAX_RECORDS_PER_TENANT), and its share of WORLD_BYTES if any. */
export interface WorldBounds {
  maxRecords: number;
  share?: TenantShare;
}

const UNBOUNDED: WorldBounds = { maxRecords: Number.POSITIVE_INFINITY };

export interface ClientRecord {
  client_id: string;
  client_secret: string;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  scopes: ApiScope[];
  settings: ClientSettings;
  /**
   * Set when the control plane registers the client (not for CLIENTS): the first group of every jti of its tokens,
   * so that a token of a client removed and then registered again under the same id is refused (docs/control-plane.md).
   * Kept with the tenant in STATE_DIR.
   */
  registration?: string;
}

/**
 * The fixtures every tenant starts from; never handed out, only copied. Kept as objects: a JSON string needs less heap
 * once built, but building it beside the generated world raised a 100k-order world's peak RSS (bench/RESULTS.md).
 */
export class Fixtures {
  /**
   * `seed`: the world's seed, which also draws each tenant's investor activity. `source`: how the world was made
   * (a replay of a session makes it the same way; own fixtures it must carry as they are).
   */
  constructor(
    private readonly world: World,
    readonly seed: string | number = 'fixtures',
    readonly source: FixturesSource = { kind: 'own' },
  ) {}

  freshCopy(): World {
    return copyOfJson(this.world);
  }

  private measured: number | undefined;

  /** The world's bytes as JSON (`worldBytes`), measured once: every copy has them. */
  get bytes(): number {
    return (this.measured ??= worldBytes(this.world));
  }
}

/** An OAuth client and the world it sees: its own store, its own clock, and its orders' progression on that clock. */
export class Tenant {
  /** The world's records as they are; `settle()` first brings them to the tenant's clock. */
  store: WorldStore;
  readonly clock = new Clock();
  readonly faults = new FaultBook();
  readonly progression: OrderProgression;
  readonly activity: InvestorActivity;
  /** Where the tenant's span (its journal since its last reset) began: what a replay of its session starts from. */
  origin: SpanOrigin;

  /** `bounds.share`: its account of WORLD_BYTES, opened with the bytes of the world it starts with (the registry's). */
  constructor(
    readonly client: ClientRecord,
    private readonly fixtures: Fixtures,
    private readonly bounds: WorldBounds = UNBOUNDED,
    world?: World,
  ) {
    // The fixtures may hold more records than MAX_RECORDS_PER_TENANT (a 100,000-order world): the cap bounds what
    // requests add. A restored world's bytes were counted when its share was opened: not serialized again.
    this.store = world ? this.storeOf(world, 0, bounds.share?.bytes) : this.freshStore(0);
    this.progression = new OrderProgression(this.now());
    this.activity = new InvestorActivity(`${fixtures.seed}:${client.client_id}`, this.now());
    this.origin = this.originNow(world ? 'restored' : 'fixtures');
  }

  private originNow(world: SpanOrigin['world']): SpanOrigin {
    const { settings, scopes, token_endpoint_auth_method } = this.client;
    return {
      world,
      clockMs: this.now(),
      settings: copyOfJson(settings),
      scopes: [...scopes],
      token_endpoint_auth_method,
    };
  }

  /** The fixtures the tenant's world begins from at a reset: how they were made, and (own fixtures) a copy. */
  get fixturesSource(): FixturesSource {
    return this.fixtures.source;
  }

  fixturesWorld(): World {
    return this.fixtures.freshCopy();
  }

  /**
   * Takes what the tenant's clock implies since the last call: the orders end investors placed
   * (`investor_activity_per_hour`) and the order steps of `order_progression` `clock`; one comparison each when nothing
   * is due. Called at the start of a request's (or a control or library call's) work: reading the store never writes.
   */
  settle(): void {
    const now = this.now();
    this.placeInvestorOrders(now);
    // steps change orders in place: the world's version says so (an investor's order is counted as it is added)
    if (this.progression.settle(this.store.orders, this.client.settings, now)) this.store.changed();
  }

  /** Each at its own instant, under the market rules; one the account cannot take (or a full tenant) is skipped. */
  private placeInvestorOrders(now: number): void {
    for (const { at, order } of this.activity.due(
      this.store,
      this.client.settings.investor_activity_per_hour ?? 0,
      now,
    )) {
      try {
        placeOrder(this, order, at, 'investor');
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
  }

  /** The tenant's clock in ms. */
  now(): number {
    return this.clock.nowMs();
  }

  /** The world changed outside its collections (a step, a clock or settings change): its version moves on. */
  changed(): void {
    this.store.changed();
  }

  /**
   * A control-plane clock change. What was due by the old time happens first. Investors act in the time that passes (an
   * advance, or a running clock); a clock set to an instant is a new start for them, so setting it to a date years away
   * does not place years of orders, and a test that sets the clock first sees the same orders whatever ran before.
   */
  changeClock(change: Schemas['ClockChange']): Schemas['Clock'] {
    this.settle();
    const view = changeClock(this.clock, change);
    if (change.now !== undefined) {
      this.activity.restart(this.now());
      // set back before progression began: it counts from there, as it would for a tenant begun at that instant
      this.progression.startNoLaterThan(this.now());
    }
    this.changed();
    return view;
  }

  /**
   * New settings: the steps the old ones imply up to now are taken first; progression then counts from now, so
   * switching it on does not complete year-old orders at once.
   */
  changeSettings(settings: ClientSettings): void {
    const before = this.client.settings;
    this.settle();
    this.client.settings = settings;
    this.changed();
    const progressionChanged = (
      ['order_progression', 'order_step_seconds', 'order_polls_per_step', 'payment_deadline_seconds'] as const
    ).some((key) => JSON.stringify(before[key]) !== JSON.stringify(settings[key]));
    if (progressionChanged) this.progression.restart(this.now());
    if (before.investor_activity_per_hour !== settings.investor_activity_per_hour) this.activity.restart(this.now());
  }

  private storeOf(world: World, firstVersion = 0, bytes?: number): WorldStore {
    const { maxRecords, share } = this.bounds;
    return new WorldStore(world, {
      maxRecords,
      ...(share && { account: share }),
      idSeed: this.client.client_id,
      firstVersion,
      ...(bytes !== undefined && { bytes }),
    });
  }

  /** Its share of WORLD_BYTES (none when unbounded): what `GET /__control/usage` shows of it. */
  get share(): TenantShare | undefined {
    return this.bounds.share;
  }

  /** The store that replaces the tenant's: its share told of the new world's bytes. */
  private replaceStore(next: WorldStore): void {
    this.bounds.share?.moved(next.bytes - this.store.bytes);
    this.store = next;
  }

  private freshStore(firstVersion: number): WorldStore {
    return this.storeOf(this.fixtures.freshCopy(), firstVersion, this.fixtures.bytes);
  }

  /** Back to the fixtures byte for byte, the clock back to real time, no faults; the client itself stays. */
  reset(): void {
    // never refused: a tenant's guarantee is at least the fixtures' bytes (domain/world-budget.ts)
    this.replaceStore(this.freshStore(this.store.version + 1));
    this.clock.reset();
    this.faults.clear();
    this.progression.clear(this.now());
    this.activity.restart(this.now());
    this.origin = this.originNow('fixtures');
  }

  /**
   * Loads a world the caller hands over (and no longer uses); one above MAX_RECORDS_PER_TENANT, or past the tenant's
   * room (MAX_TENANT_BYTES, WORLD_BYTES), is refused and changes nothing.
   */
  replaceWorld(world: World): void {
    const next = this.storeOf(world, this.store.version + 1);
    ensureWorldFits(next);
    this.bounds.share?.ensureWorld(next.bytes);
    this.replaceStore(next);
    this.progression.keepOnly(new Set(next.orderById.keys()), this.now());
    this.activity.restart(this.now());
  }
}

const clientNotFound = (clientId: string): DomainError =>
  new DomainError(404, 'client_not_found', `No client has client_id "${clientId}".`);

/** Every tenant of one server instance. The first client is the default one for control-plane calls. */
export class TenantRegistry {
  private readonly tenants = new Map<string, Tenant>();
  /** Shadow mode's twins: tenants of their own count (MAX_TWINS), none of the operator's MAX_TENANTS slots. */
  private readonly twins = new Set<string>();
  /** The room every tenant's records share (WORLD_BYTES); none when the limits set no bytes. */
  readonly worldBudget: WorldBudget | undefined;

  /** Whether a tenant is shadow mode's twin of an upstream's client (counted against MAX_TWINS, not MAX_TENANTS). */
  isTwin(clientId: string): boolean {
    return this.twins.has(clientId);
  }
  readonly defaultClientId: string;
  /** Under `--demo`: the client the fake's own simulated partner runs as (src/demo/), listed as such. */
  demoPartnerId: string | undefined;
  private changeListener: ((tenant: Tenant) => void) | undefined;
  private readonly removeListeners: ((tenant: Tenant) => void)[] = [];

  /** `restoredWorlds`: tenants' worlds before a restart (STATE_DIR), by client id; others start from the fixtures. */
  constructor(
    private readonly fixtures: Fixtures,
    clients: readonly ClientRecord[],
    private readonly limits: Limits = {
      maxTenants: Number.POSITIVE_INFINITY,
      maxRecordsPerTenant: Number.POSITIVE_INFINITY,
    },
    restoredWorlds: ReadonlyMap<string, World> = new Map(),
  ) {
    this.worldBudget = limits.world && new WorldBudget(limits.world, fixtures.bytes);
    if (clients.length === 0) throw new Error('At least one client is needed.');
    if (clients.length > limits.maxTenants)
      throw new Error(`${clients.length} clients are configured, more than MAX_TENANTS (${limits.maxTenants}) allows.`);
    for (const client of clients) this.add(client, restoredWorlds.get(client.client_id));
    this.defaultClientId = clients[0]!.client_id;
  }

  /**
   * A new tenant seeded from the fixtures, or (a restart restoring it) with the world it had; `twin`: shadow mode's
   * twin of an upstream's client, counted against MAX_TWINS rather than MAX_TENANTS. Refused (409 `limit_reached`)
   * when WORLD_BYTES cannot hold its guarantee: never made, and then refused every write.
   */
  add(client: ClientRecord, world?: World, { twin = false }: { twin?: boolean } = {}): Tenant {
    if (this.tenants.has(client.client_id)) {
      throw new DomainError(409, 'client_exists', `A client with client_id "${client.client_id}" already exists.`);
    }
    const maxTwins = this.limits.maxTwins ?? Number.POSITIVE_INFINITY;
    if (twin && this.twins.size >= maxTwins) throw twinLimitReached(maxTwins);
    if (!twin && this.tenants.size - this.twins.size >= this.limits.maxTenants)
      throw tenantLimitReached(this.limits.maxTenants);
    const share = this.worldBudget?.open(client.client_id, world ? worldBytes(world) : this.fixtures.bytes);
    const tenant = new Tenant(
      client,
      this.fixtures,
      { maxRecords: this.limits.maxRecordsPerTenant, ...(share && { share }) },
      world,
    );
    this.tenants.set(client.client_id, tenant);
    if (twin) this.twins.add(client.client_id);
    this.touch(tenant);
    return tenant;
  }

  /**
   * Removes a tenant (`DELETE /__control/clients/{client_id}`, after `removableTenant`): its world, clock and faults go
   * with it, its share of WORLD_BYTES and its MAX_TENANTS slot are free at once, and whoever listens (`onRemove`) lets
   * go what it kept of it. Not a reach of the tenant: nothing is told to save it.
   */
  remove(clientId: string): Tenant {
    const tenant = this.tenants.get(clientId);
    if (!tenant) throw clientNotFound(clientId);
    this.tenants.delete(clientId);
    this.twins.delete(clientId);
    if (tenant.share) this.worldBudget?.close(tenant.share);
    for (const listener of this.removeListeners) listener(tenant);
    return tenant;
  }

  /** Whoever keeps something of a tenant (the MCP sessions it opened) hears of its removal. */
  onRemove(listener: (tenant: Tenant) => void): void {
    this.removeListeners.push(listener);
  }

  /**
   * The tenant of a client, brought to its clock first (`settle`): whoever it is handed to (a request, a control or
   * library call) starts from what the clock implies, and no caller has to remember to. Settling is a pure function
   * of the clock, so settling twice, or for a call that is then refused, changes no answer.
   */
  find(clientId: string): Tenant | undefined {
    const tenant = this.tenants.get(clientId);
    if (tenant) this.reached(tenant);
    return tenant;
  }

  /** As `find`, for a client that must exist (404 `client_not_found` otherwise). */
  get(clientId: string): Tenant {
    const tenant = this.tenants.get(clientId);
    if (!tenant) throw clientNotFound(clientId);
    this.reached(tenant);
    return tenant;
  }

  private reached(tenant: Tenant): void {
    tenant.settle();
    this.touch(tenant);
  }

  /**
   * Whoever persists tenants (STATE_DIR) hears of each tenant a call reaches (found, added, reset), so it can save it
   * soon after, off the request path. Reaching is not proof of a change; it is cheap, and it misses none.
   */
  onTouch(listener: (tenant: Tenant) => void): void {
    this.changeListener = listener;
  }

  touch(tenant: Tenant): void {
    // a twin is shadow mode's, for this run's session: never saved, nor restored into an operator's slot
    if (!this.twins.has(tenant.client.client_id)) this.changeListener?.(tenant);
  }

  /** The fixtures' bytes as JSON: every tenant's world starts at them. */
  get fixturesBytes(): number {
    return this.fixtures.bytes;
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
