/**
 * The open MCP sessions of one instance, by owner (the operator, or one partner): CONTRACT 15, "MCP sessions per
 * owner". Each owner's sessions are capped on their own, and past that cap its own least recently used goes; the
 * instance's total is capped too, so count and memory stay bounded whatever the number of partners. Opening a
 * session never closes another owner's: when the instance is full, the opener gives up its own least recently used,
 * and an opener holding none is refused.
 */
export interface SessionLimits {
  perOwner: number;
  total: number;
}

export class SessionBook<Session> {
  private readonly owners = new Map<string, string>();
  /** Each owner's sessions, least recently used first. */
  private readonly byOwner = new Map<string, Map<string, Session>>();
  /** Sessions being opened: counted against the total until they are added or fail. */
  private opening = 0;

  constructor(
    readonly limits: SessionLimits,
    /** Closes a session the book let go; the transport's close then calls `remove`, which finds it gone. */
    private readonly close: (session: Session) => void,
  ) {}

  /** The session `id` when `owner` opened it (another owner's is as unknown as a closed one), now its most recent. */
  use(id: string, owner: string): Session | undefined {
    const own = this.byOwner.get(owner);
    const session = own?.get(id);
    if (session === undefined) return undefined;
    own!.delete(id);
    own!.set(id, session);
    return session;
  }

  /**
   * A place for one more session of `owner`, to `add` the session in or `release` when its opening fails. When the
   * instance is full, the owner's own least recently used session goes now; an owner holding none is refused
   * (undefined). Sessions and places together never pass the total.
   */
  reserve(owner: string): { release(): void } | undefined {
    if (this.owners.size + this.opening >= this.limits.total) {
      if (!this.byOwner.has(owner)) return undefined;
      this.letGoOldestOf(owner);
    }
    this.opening++;
    let held = true;
    return {
      release: () => {
        if (held) this.opening--;
        held = false;
      },
    };
  }

  /** A session opened in a reserved place; past the owner's cap, its own least recently used go. */
  add(id: string, owner: string, session: Session, place: { release(): void }): void {
    place.release();
    let own = this.byOwner.get(owner);
    if (!own) this.byOwner.set(owner, (own = new Map()));
    own.set(id, session);
    this.owners.set(id, owner);
    while (own.size > this.limits.perOwner) this.letGoOldestOf(owner);
  }

  private letGoOldestOf(owner: string): void {
    const [id, session] = this.byOwner.get(owner)!.entries().next().value!;
    this.remove(id);
    this.close(session);
  }

  remove(id: string): void {
    const owner = this.owners.get(id);
    if (owner === undefined) return;
    this.owners.delete(id);
    const own = this.byOwner.get(owner)!;
    own.delete(id);
    if (own.size === 0) this.byOwner.delete(owner);
  }

  has(id: string): boolean {
    return this.owners.has(id);
  }

  /** Closes every session of `owner` (a partner whose client was removed): their places are free for others. */
  closeOwner(owner: string): void {
    for (const [id, session] of [...(this.byOwner.get(owner) ?? [])]) {
      this.remove(id);
      this.close(session);
    }
  }
}
