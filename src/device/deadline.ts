import type { ExecOutcome } from './replDriver.js';

/**
 * One timer for a stream of short jobs. Arming and disarming a Node timer for every job costs
 * more than a whole in-process round trip's worth of work; here the timer stays armed at the
 * earliest deadline, and when it fires for a job that already finished it just re-arms (or
 * stops). Unref'd: a pending deadline never keeps the process alive on its own.
 */
export class DeadlineClock {
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private at = Number.POSITIVE_INFINITY;
  private fire: (() => void) | undefined;
  private readonly check = this.onTimer.bind(this);

  /** Calls `fire` in `ms` unless disarmed or re-armed first. One deadline at a time. */
  arm(ms: number, fire: () => void): void {
    const now = Date.now();
    // setTimeout fires at once for anything above 2^31-1 ms (Infinity included).
    this.at = now + Math.min(Math.max(0, ms), 2 ** 31 - 1);
    this.fire = fire;
    if (this.timer === undefined || this.timerAt > this.at) this.schedule(now);
  }

  /** Cancels the deadline; with `fire`, only if that callback is still the armed one. */
  disarm(fire?: () => void): void {
    if (fire !== undefined && this.fire !== fire) return;
    this.fire = undefined;
    this.at = Number.POSITIVE_INFINITY;
  }

  /** Stops the timer itself (when the owner is done for good). */
  stop(): void {
    this.disarm();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private schedule(now: number): void {
    clearTimeout(this.timer);
    this.timerAt = this.at;
    this.timer = setTimeout(this.check, this.at - now);
    this.timer.unref();
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const fire = this.fire;
    if (!fire) return;
    const now = Date.now();
    if (now < this.at) {
      this.schedule(now);
      return;
    }
    this.disarm();
    fire();
  }
}

/* A job's exec raced against its deadline and its caller's abort signal. */

export type Race = { kind: 'done'; outcome: ExecOutcome } | { kind: 'timeout' } | { kind: 'canceled' };

/** Waits for `promise`, the deadline or the abort signal, whichever comes first. Rejections pass through. */
export function raceDeadline(
  clock: DeadlineClock,
  promise: Promise<ExecOutcome>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<Race> {
  return new Promise<Race>(
    (resolve, reject) => new DeadlineRace(clock, promise, ms, signal, resolve, reject),
  );
}

/** One race; a class rather than closures, as this runs for every job. */
class DeadlineRace {
  private readonly onTimeout = this.timedOut.bind(this);
  private readonly onAbort = this.canceled.bind(this);
  private settled = false;

  constructor(
    private readonly clock: DeadlineClock,
    promise: Promise<ExecOutcome>,
    ms: number,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (race: Race) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    clock.arm(ms, this.onTimeout);
    if (signal?.aborted) this.canceled();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
    promise.then(this.done.bind(this), this.failed.bind(this));
  }

  private end(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.clock.disarm(this.onTimeout);
    this.signal?.removeEventListener('abort', this.onAbort);
    return true;
  }

  private done(outcome: ExecOutcome): void {
    if (this.end()) this.resolve({ kind: 'done', outcome });
  }

  private timedOut(): void {
    if (this.end()) this.resolve({ kind: 'timeout' });
  }

  private canceled(): void {
    if (this.end()) this.resolve({ kind: 'canceled' });
  }

  private failed(error: unknown): void {
    if (this.end()) this.reject(error);
  }
}
