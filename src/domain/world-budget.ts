// What every tenant's world may take together (CONTRACT 16, "Sized to the use"): WORLD_BYTES, shared as an operating
// system shares memory under quotas (cgroups' memory.min, Kubernetes' requests and limits). Each tenant is guaranteed
// its share and may borrow room no other tenant's guarantee holds, up to MAX_TENANT_BYTES; a tenant whose guarantee
// cannot be held is refused when it would be made. Running totals: a write's check is O(1), whatever the tenants.
import type { ByteAccount } from '../store/world-store.js';
import {
  guaranteeRefused,
  tenantBytesRefused,
  worldBytesRefused,
  type Holder,
  type RoomRefusal,
  type WorldBudgetSettings,
} from './limits.js';

/** The tenants a refused creation names, those that hold the most. */
const NAMED_HOLDERS = 5;

/** One tenant's use of the shared room, as `GET /__control/usage` shows it. */
export interface ShareUse {
  /** Its records' bytes as JSON. */
  bytes: number;
  /** What its writes can always reach, whatever other tenants do. */
  guarantee: number;
  /** What it uses past its guarantee: room no guarantee held, which it took. */
  borrowed: number;
}

/** One tenant's account of the shared room: its store tells it of every change of its bytes. */
export class TenantShare implements ByteAccount {
  constructor(
    private readonly budget: WorldBudget,
    readonly clientId: string,
    /** Its records' bytes as JSON, as its store counts them. */
    public bytes: number,
  ) {}

  /** Given back (its tenant removed): the budget no longer counts it, and what its store does after counts nowhere. */
  closed = false;

  ensureRoom(bytes: number): void {
    if (!this.closed) this.budget.ensureRoom(this, bytes, 'write');
  }

  moved(bytes: number): void {
    if (this.closed) this.bytes += bytes;
    else this.budget.move(this, bytes);
  }

  /** Throws unless a world of `bytes` may replace the tenant's (a snapshot loaded): as for a write, worded for a world. */
  ensureWorld(bytes: number): void {
    this.budget.ensureRoom(this, bytes - this.bytes, 'world');
  }

  get use(): ShareUse {
    const guarantee = this.budget.floor;
    return { bytes: this.bytes, guarantee, borrowed: Math.max(0, this.bytes - guarantee) };
  }
}

/**
 * The room every tenant's world shares. A tenant holds its guarantee whatever it uses, and what it uses past it: the
 * sum of what tenants hold stays within WORLD_BYTES, so a write within a tenant's guarantee always finds room, and
 * a write past it takes only room no one holds. A tenant's guarantee is never less than the fixtures, which a reset
 * brings it back to: a reset is never refused.
 */
export class WorldBudget {
  private readonly shares = new Set<TenantShare>();
  /** Bytes every tenant's records take together. */
  private usedBytes = 0;
  /** Bytes every tenant holds together: each the larger of its use and its guarantee. */
  private heldBytes = 0;

  constructor(
    readonly settings: WorldBudgetSettings,
    /** The fixtures' bytes: what every tenant starts from, and comes back to at a reset. */
    private readonly fixturesBytes: number,
  ) {}

  /**
   * What each tenant is guaranteed: its setting (never above MAX_TENANT_BYTES nor WORLD_BYTES: such settings stop the
   * start, `resolveBudgets`), at least the fixtures.
   */
  get floor(): number {
    return Math.max(this.settings.tenantGuaranteeBytes, this.fixturesBytes);
  }

  private holds(bytes: number): number {
    return Math.max(bytes, this.floor);
  }

  /** Bytes of every tenant's records, what tenants hold (guarantees and borrowing), and the room no one holds. */
  get totals(): { used: number; held: number; free: number } {
    return { used: this.usedBytes, held: this.heldBytes, free: Math.max(0, this.settings.worldBytes - this.heldBytes) };
  }

  /**
   * A new tenant's share, its world of `bytes` to start with (the fixtures, or one restored): refused (409
   * `limit_reached`, naming WORLD_BYTES and the tenants that hold the room) when its guarantee cannot be held.
   */
  open(clientId: string, bytes: number): TenantShare {
    if (this.capped(bytes))
      throw tenantBytesRefused({ held: 0, adding: bytes, limit: this.settings.maxTenantBytes, kind: 'world' });
    const holds = this.holds(bytes);
    if (this.heldBytes + holds > this.settings.worldBytes) {
      throw guaranteeRefused({
        needed: holds,
        free: this.totals.free,
        worldBytes: this.settings.worldBytes,
        guarantee: this.floor,
        tenants: this.shares.size,
        holders: this.largestHolders(NAMED_HOLDERS),
      });
    }
    const share = new TenantShare(this, clientId, bytes);
    this.shares.add(share);
    this.usedBytes += bytes;
    this.heldBytes += holds;
    return share;
  }

  /** A tenant removed: what it used and held is room again, for every other tenant and for new ones. */
  close(share: TenantShare): void {
    if (share.closed || !this.shares.delete(share)) return;
    share.closed = true;
    this.usedBytes -= share.bytes;
    this.heldBytes -= this.holds(share.bytes);
  }

  /** Throws unless `share` may grow by `bytes`: within MAX_TENANT_BYTES, and into its guarantee or room no one holds. */
  ensureRoom(share: TenantShare, bytes: number, kind: RoomRefusal['kind']): void {
    if (bytes <= 0) return;
    const to = share.bytes + bytes;
    const { maxTenantBytes, worldBytes } = this.settings;
    if (this.capped(to)) throw tenantBytesRefused({ held: share.bytes, adding: bytes, limit: maxTenantBytes, kind });
    const held = this.heldBytes - this.holds(share.bytes) + this.holds(to);
    if (held > worldBytes) {
      throw worldBytesRefused({
        held: share.bytes,
        adding: bytes,
        limit: worldBytes,
        kind,
        guarantee: this.floor,
        free: this.totals.free,
      });
    }
  }

  /** Whether a tenant of `bytes` passes MAX_TENANT_BYTES, when that is below WORLD_BYTES (else WORLD_BYTES is what refuses). */
  private capped(bytes: number): boolean {
    return bytes > this.settings.maxTenantBytes && this.settings.maxTenantBytes < this.settings.worldBytes;
  }

  /** `share`'s bytes changed by `bytes`: the totals follow. */
  move(share: TenantShare, bytes: number): void {
    this.heldBytes += this.holds(share.bytes + bytes) - this.holds(share.bytes);
    this.usedBytes += bytes;
    share.bytes += bytes;
  }

  /** The tenants that hold the most, most first: named when a new tenant is refused (O(tenants), on refusal only). */
  private largestHolders(count: number): Holder[] {
    const all = [...this.shares].map((share) => ({
      clientId: share.clientId,
      holds: this.holds(share.bytes),
      borrowed: share.use.borrowed,
    }));
    return all.sort((a, b) => b.holds - a.holds).slice(0, count);
  }
}
