/**
 * Turns at the board: jobs wait in one queue, and leases (a caller's turn) are granted
 * round-robin between owners. A job without a lease gets a turn of its own that ends when it
 * settles; a lease's jobs run one after another with no other owner's job in between.
 */
import { asDeviceError, DeviceError } from './errors.js';
import type { SessionState, SessionStats } from './health.js';
import { callSnippet, parseMarked } from './helper.js';
import { canceledError, closedError, summary } from './jobErrors.js';
import { FairQueue, JobQueue } from './queue.js';
import { encodeExec } from './rawRepl.js';
import type { ExecResult, Job, JobOptions, Lease, LeaseOptions, SessionLease } from './sessionTypes.js';

/** What the turns need of the session they belong to. */
export interface TurnsHost {
  readonly state: SessionState;
  readonly defaultTimeoutMs: number;
  /** Why a job cannot run while the board is away. */
  disconnectedError(why?: string): DeviceError;
  /** Starts the queue unless it already runs. */
  kick(): void;
}

const EMPTY = Buffer.alloc(0);

export class Turns {
  readonly queue = new JobQueue<Job>();
  /** Leases waiting for their turn; `active` holds the board now. */
  private readonly waiting = new FairQueue<Lease>();
  private active: Lease | undefined;

  constructor(
    private readonly host: TurnsHost,
    private readonly stats: SessionStats,
  ) {}

  /** Whose lease holds the board, and the owners waiting, next first (for health). */
  status(): { holder: string | null; waiting: string[] } {
    return {
      holder: this.active?.implicit === false ? this.active.owner : null,
      waiting: this.waiting.owners(),
    };
  }

  /** The session's `lease()`. */
  lease(options: LeaseOptions = {}): Promise<SessionLease> {
    const owner = options.owner ?? 'anonymous';
    return new Promise<SessionLease>((resolve, reject) => {
      if (this.host.state === 'closed') return reject(closedError());
      if (options.signal?.aborted) {
        return reject(
          new DeviceError('canceled', `the board lease for ${owner} was canceled before its turn`),
        );
      }
      const lease: Lease = {
        owner,
        implicit: false,
        granted: false,
        released: false,
        grant: () => resolve(this.leaseHandle(lease)),
        refuse: reject,
        cleanup: [],
        ...(options.signal ? { signal: options.signal } : {}),
      };
      const signal = options.signal;
      if (signal) {
        const onAbort = () => {
          if (!lease.granted) {
            this.waiting.remove(lease);
            lease.released = true;
            reject(new DeviceError('canceled', `the board lease for ${owner} was canceled while it waited`));
          } else this.release(lease);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        lease.cleanup.push(() => signal.removeEventListener('abort', onAbort));
      }
      this.waiting.push(owner, lease);
      this.host.kick();
    });
  }

  private leaseHandle(lease: Lease): SessionLease {
    const run = (code: string, options: JobOptions, usesHelper: boolean) =>
      this.enqueue(code, options, usesHelper, lease);
    return {
      owner: lease.owner,
      get released() {
        return lease.released;
      },
      exec: (code, options = {}) => run(code, options, false),
      call: async <T>(expression: string, options: JobOptions = {}) =>
        parseMarked((await run(callSnippet(expression), options, true)).stdout) as T,
      callScript: async <T>(code: string, options: JobOptions = {}) =>
        parseMarked((await run(code, options, true)).stdout) as T,
      release: () => this.release(lease),
    };
  }

  /** Ends a lease: its queued jobs are refused, and the next owner's turn begins. Idempotent. */
  private release(lease: Lease): void {
    if (lease.released && this.active !== lease) return;
    lease.released = true;
    for (const cleanup of lease.cleanup.splice(0)) cleanup();
    this.waiting.remove(lease);
    for (const job of this.queue.take((j) => j.lease === lease)) {
      this.settle(
        job,
        new DeviceError('canceled', `job "${summary(job)}" was sent after its board lease ended`),
      );
    }
    if (this.active === lease) this.active = undefined;
    this.host.kick();
  }

  /** Queues a job, in `held`'s turn or (without a lease) in a turn of its own. */
  enqueue(
    code: string,
    options: JobOptions,
    usesHelper: boolean,
    held: Lease | undefined,
  ): Promise<ExecResult> {
    return new Promise<ExecResult>((resolve, reject) => {
      const lease: Lease = held ?? {
        owner: options.owner ?? 'anonymous',
        implicit: true,
        granted: false,
        released: false,
        grant: () => {},
        refuse: () => {},
        cleanup: [],
      };
      const job: Job = {
        lease,
        request: EMPTY,
        source: code,
        timeoutMs: options.timeoutMs ?? this.host.defaultTimeoutMs,
        signal: options.signal,
        usesHelper,
        waitUntil: options.waitForConnectionMs ? Date.now() + options.waitForConnectionMs : undefined,
        resolve,
        reject,
        cleanup: [],
      };
      try {
        job.request = encodeExec(code);
      } catch (error) {
        reject(asDeviceError(error, 'invalid_code', 'cannot send this code'));
        return;
      }
      if (this.host.state === 'closed') return reject(closedError());
      if (lease.released) {
        return reject(
          new DeviceError('canceled', `job "${summary(job)}" was sent after its board lease ended`),
        );
      }
      if (job.signal?.aborted) return reject(canceledError(job, 'before it was queued'));
      if (this.host.state === 'reconnecting' && job.waitUntil === undefined) {
        return reject(this.host.disconnectedError());
      }
      this.queue.push(job);
      if (lease.implicit) this.waiting.push(lease.owner, lease);
      // A job under its lease's own signal needs no listener: the lease's, added first, releases
      // the lease on abort, and that refuses its queued jobs.
      if (job.signal && job.signal !== lease.signal) {
        const signal = job.signal;
        const onAbort = () => {
          // A running job sees the abort through its own race and is interrupted there.
          if (this.queue.remove(job)) this.settle(job, canceledError(job, 'while it waited in the queue'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        job.cleanup.push(() => signal.removeEventListener('abort', onAbort));
      }
      if (job.waitUntil !== undefined) {
        const waitMs = job.waitUntil - Date.now();
        const timer = setTimeout(() => {
          if (this.host.state !== 'ready' && this.queue.remove(job)) {
            this.settle(
              job,
              this.host.disconnectedError(`it did not come back within ${options.waitForConnectionMs} ms`),
            );
          }
        }, waitMs);
        job.cleanup.push(() => clearTimeout(timer));
      }
      this.host.kick();
    });
  }

  /** The next job of the lease whose turn it is, granting the next turn when none is held. */
  nextJob(): Job | undefined {
    if (this.active === undefined) {
      const next = this.waiting.shift();
      if (next === undefined) return undefined;
      this.active = next;
      next.granted = true;
      next.grant();
    }
    const active = this.active;
    return this.queue.peek((job) => job.lease === active);
  }

  /** Ends a job with its result or error; a job's own turn ends with it. */
  settle(job: Job, outcome: ExecResult | DeviceError): void {
    for (const cleanup of job.cleanup) cleanup();
    if (job.lease.implicit) this.release(job.lease);
    if (outcome instanceof DeviceError) {
      if (outcome.code === 'canceled') this.stats.canceled++;
      else this.stats.failed++;
      this.stats.noteError(outcome);
      job.reject(outcome);
    } else {
      this.stats.done++;
      job.resolve(outcome);
    }
  }

  /** Fails the queued jobs that were not asked to wait for the board to come back. */
  failUnwaiting(error: DeviceError): void {
    for (const job of this.queue.take((j) => j.waitUntil === undefined)) this.settle(job, error);
  }

  /** The session closed: every queued job and waiting lease is refused, and no turn is held. */
  close(): void {
    for (const job of this.queue.take(() => true)) this.settle(job, closedError());
    for (const lease of this.waiting.drain()) {
      lease.released = true;
      lease.refuse(closedError());
    }
    this.active = undefined;
  }
}
