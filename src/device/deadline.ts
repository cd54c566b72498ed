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
