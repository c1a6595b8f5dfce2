/** A binary min-heap of items by the instant something is due to them: O(log n) an item, never a pass over all. */
export class DueQueue<T> {
  private readonly ats: number[] = [];
  private readonly items: T[] = [];

  get size(): number {
    return this.ats.length;
  }

  /** The earliest instant queued; +Infinity when empty. */
  peekAt(): number {
    return this.ats.length === 0 ? Number.POSITIVE_INFINITY : this.ats[0]!;
  }

  push(at: number, item: T): void {
    let i = this.ats.length;
    this.ats.push(at);
    this.items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.ats[parent]! <= at) break;
      this.move(parent, i);
      i = parent;
    }
    this.ats[i] = at;
    this.items[i] = item;
  }

  /** Removes and answers the earliest item (the caller checks peekAt first). */
  pop(): T {
    const top = this.items[0]!;
    const lastAt = this.ats.pop()!;
    const lastItem = this.items.pop()!;
    const n = this.ats.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const child = left + 1 < n && this.ats[left + 1]! < this.ats[left]! ? left + 1 : left;
        if (this.ats[child]! >= lastAt) break;
        this.move(child, i);
        i = child;
      }
      this.ats[i] = lastAt;
      this.items[i] = lastItem;
    }
    return top;
  }

  clear(): void {
    this.ats.length = 0;
    this.items.length = 0;
  }

  private move(from: number, to: number): void {
    this.ats[to] = this.ats[from]!;
    this.items[to] = this.items[from]!;
  }
}
