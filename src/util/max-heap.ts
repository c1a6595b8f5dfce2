/**
 * Items whose key changes, the first by `before` always at hand: a binary heap that knows where each item is, so an
 * item whose key changed moves to its place in O(log n), and the first (or the first but one) is read in O(1).
 */
export class MaxHeap<T> {
  private readonly items: T[] = [];
  private readonly places = new Map<T, number>();

  /** `before(a, b)`: whether `a` comes out before `b`. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  first(): T | undefined {
    return this.items[0];
  }

  /** The first item other than the first: the larger of the first's two children. */
  second(): T | undefined {
    const [left, right] = [this.items[1], this.items[2]];
    if (left === undefined || right === undefined) return left;
    return this.before(right, left) ? right : left;
  }

  /** Adds an item, or moves one whose key changed to its place. */
  update(item: T): void {
    let place = this.places.get(item);
    if (place === undefined) {
      place = this.items.push(item) - 1;
      this.places.set(item, place);
    }
    this.down(this.up(place));
  }

  remove(item: T): void {
    const place = this.places.get(item);
    if (place === undefined) return;
    const last = this.items.pop()!;
    this.places.delete(item);
    if (place === this.items.length) return;
    this.items[place] = last;
    this.places.set(last, place);
    this.down(this.up(place));
  }

  clear(): void {
    this.items.length = 0;
    this.places.clear();
  }

  private up(place: number): number {
    while (place > 0) {
      const parent = (place - 1) >> 1;
      if (!this.before(this.items[place]!, this.items[parent]!)) break;
      this.swap(place, parent);
      place = parent;
    }
    return place;
  }

  private down(place: number): void {
    for (;;) {
      const left = 2 * place + 1;
      const right = left + 1;
      let first = place;
      if (left < this.items.length && this.before(this.items[left]!, this.items[first]!)) first = left;
      if (right < this.items.length && this.before(this.items[right]!, this.items[first]!)) first = right;
      if (first === place) return;
      this.swap(place, first);
      place = first;
    }
  }

  private swap(a: number, b: number): void {
    const item = this.items[a]!;
    this.items[a] = this.items[b]!;
    this.items[b] = item;
    this.places.set(this.items[a]!, a);
    this.places.set(item, b);
  }
}
