/** A FIFO that also lets a job leave from the middle (cancellation, a wait that ran out). */
export class JobQueue<T> {
  private items: T[] = [];

  get length(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    return this.items.shift();
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
