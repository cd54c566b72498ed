/**
 * Turns at the board, as bookkeeping (no timers, no I/O, no promises): jobs wait in one queue in
 * the order they came, and turns are granted round-robin between owners. A job without a lease gets
 * a turn of its own that ends when it settles; a lease's jobs run one after another with no other
 * owner's job in between. The session (session.ts) adds signals, deadlines and the running of jobs.
 */
import type { DeviceError } from './errors.js';
import type { ExecResult } from './session.js';

/** A turn at the board: granted in round-robin order between owners, held until released. */
export interface Lease {
  owner: string;
  /** One job's own turn (a call made without a lease): ends when that job settles. */
  implicit: boolean;
  granted: boolean;
  released: boolean;
  /** An explicit lease's signal: aborting it releases the lease, which refuses its queued jobs. */
  signal?: AbortSignal;
  /**
   * Yields to every caller: its turn comes only when no other lease or job waits (a person's view
   * of the board reading it where there is no telemetry port: watching never goes ahead of a call).
   */
  yields?: boolean;
  grant(): void;
  refuse(error: DeviceError): void;
  cleanup: Array<() => void>;
}

export interface Job {
  lease: Lease;
  /** The exec request: code + Ctrl-D. */
  request: Buffer;
  /** The code as given, for messages (see `summary` in session.ts). */
  source: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  usesHelper: boolean;
  waitUntil: number | undefined;
  resolve: (result: ExecResult) => void;
  reject: (error: DeviceError) => void;
  cleanup: Array<() => void>;
}

export class Turns {
  readonly queue = new JobQueue<Job>();
  /** Leases waiting for their turn; `active` holds the board now. */
  private readonly waiting = new FairQueue<Lease>();
  /** Leases that yield (Lease.yields): granted only when `waiting` is empty. */
  private readonly yielding = new FairQueue<Lease>();
  private active: Lease | undefined;

  private queueOf(lease: Lease): FairQueue<Lease> {
    return lease.yields ? this.yielding : this.waiting;
  }

  /** Whose lease holds the board, and the owners waiting, next first (for health). */
  status(): { holder: string | null; waiting: string[] } {
    return {
      holder: this.active?.implicit === false ? this.active.owner : null,
      waiting: [...this.waiting.owners(), ...this.yielding.owners()],
    };
  }

  /** An explicit lease asks for its turn. */
  ask(lease: Lease): void {
    this.queueOf(lease).push(lease.owner, lease);
  }

  /** A lease gives up waiting; false when it was not waiting (granted already, or gone). */
  withdraw(lease: Lease): boolean {
    return this.queueOf(lease).remove(lease);
  }

  /** Queues a job, in its lease's turn; a job's own turn waits with the others. */
  add(job: Job): void {
    this.queue.push(job);
    if (job.lease.implicit) this.queueOf(job.lease).push(job.lease.owner, job.lease);
  }

  /** Whether `lease` holds the board now. */
  holds(lease: Lease): boolean {
    return this.active === lease;
  }

  /** Ends a lease's turn (or its wait): returns its queued jobs, which will not run. */
  end(lease: Lease): Job[] {
    lease.released = true;
    this.queueOf(lease).remove(lease);
    const refused = this.queue.take((job) => job.lease === lease);
    if (this.active === lease) this.active = undefined;
    return refused;
  }

  /** The next job of the lease whose turn it is, granting the next turn when none is held. */
  nextJob(): Job | undefined {
    if (this.active === undefined) {
      const next = this.waiting.shift() ?? this.yielding.shift();
      if (next === undefined) return undefined;
      this.active = next;
      next.granted = true;
      next.grant();
    }
    const active = this.active;
    return this.queue.peek((job) => job.lease === active);
  }

  /** The session closed: every queued job and waiting lease, for the session to refuse. */
  drain(): { jobs: Job[]; leases: Lease[] } {
    const jobs = this.queue.take(() => true);
    const leases = [...this.waiting.drain(), ...this.yielding.drain()];
    for (const lease of leases) lease.released = true;
    this.active = undefined;
    return { jobs, leases };
  }
}

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
