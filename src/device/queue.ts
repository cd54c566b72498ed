/** Jobs in the order they came; the session takes the first of the lease whose turn it is. */
export class JobQueue<T> {
  private items: T[] = [];

  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The first item matching `predicate`, left in place. */
  peek(predicate: (item: T) => boolean): T | undefined {
    return this.items.find(predicate);
  }

  /** Removes one item; false when it was not queued (already running or done). */
  remove(item: T): boolean {
    const index = this.items.indexOf(item);
    if (index < 0) return false;
    this.items.splice(index, 1);
    return true;
  }

  /** Removes and returns every item matching `predicate`, keeping the order of the rest. */
  take(predicate: (item: T) => boolean): T[] {
    const taken = this.items.filter(predicate);
    if (taken.length > 0) this.items = this.items.filter((item) => !predicate(item));
    return taken;
  }
}

/**
 * Waiting items grouped by owner and served round-robin: each shift takes the oldest item of the
 * owner served longest ago, so one owner's burst cannot starve the others.
 */
export class FairQueue<T> {
  /** A Map keeps insertion order: re-inserting an owner after serving it moves it to the back. */
  private readonly byOwner = new Map<string, T[]>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Owners with something waiting, next served first. */
  owners(): string[] {
    return [...this.byOwner.keys()];
  }

  push(owner: string, item: T): void {
    const items = this.byOwner.get(owner);
    if (items) items.push(item);
    else this.byOwner.set(owner, [item]);
    this.count++;
  }

  shift(): T | undefined {
    const first = this.byOwner.entries().next();
    if (first.done) return undefined;
    const [owner, items] = first.value;
    const item = items.shift() as T;
    this.byOwner.delete(owner);
    if (items.length > 0) this.byOwner.set(owner, items);
    this.count--;
    return item;
  }

  /** Removes one item; false when it was not waiting. */
  remove(item: T): boolean {
    for (const [owner, items] of this.byOwner) {
      const index = items.indexOf(item);
      if (index < 0) continue;
      items.splice(index, 1);
      if (items.length === 0) this.byOwner.delete(owner);
      this.count--;
      return true;
    }
    return false;
  }

  /** Removes and returns every waiting item. */
  drain(): T[] {
    const all = [...this.byOwner.values()].flat();
    this.byOwner.clear();
    this.count = 0;
    return all;
  }
}
