/** A job's exec raced against its deadline and its caller's abort signal. */
import type { DeadlineClock } from './deadline.js';
import type { ExecOutcome } from './replDriver.js';

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
