/**
 * The recovery ladder (DESIGN.md §4): what brings the link back to a clean raw prompt after a job
 * overran, was canceled or got no `OK`, and the resync that follows a reply with bytes out of
 * step. Each step is tried only when the one before did not work; every wait has a bound.
 */
import { DeviceError } from './errors.js';
import type { RecoveryStep, SessionStats } from './health.js';
import type { HelperPrimer } from './priming.js';
import type { ExecOutcome } from './replDriver.js';
import type { SessionCore, SessionEvent } from './sessionTypes.js';

export interface RecoveryResult {
  step: RecoveryStep;
  ms: number;
  /** The interrupted job's reply, when a Ctrl-C brought one (its traceback). */
  outcome?: ExecOutcome;
}

export class Recovery {
  /** A recovery runs: the failing step reports a lost link itself, and resets are its to handle. */
  recovering = false;
  /** The board reset while a recovery ran. */
  resetDuringRecovery = false;
  /** The board is not in raw mode (it printed a banner, which ends in the friendly prompt). */
  needsRaw = false;
  /** Old replies may still be on the line: prove it clean before the next job. */
  needsSync = false;
  /** The driver's stray-byte count at the last sync; more since means the line needs another. */
  strayAtSync = 0;

  constructor(
    private readonly core: SessionCore,
    private readonly primer: HelperPrimer,
    private readonly stats: SessionStats,
    private readonly emit: (event: SessionEvent) => void,
  ) {}

  /**
   * Brings the link back to a clean raw prompt after an overrun, trying each step in turn:
   * Ctrl-C, Ctrl-C again, leave and re-enter raw mode, close and reopen the port. Returns the
   * step that worked; throws when none did.
   */
  async recover(exec: Promise<ExecOutcome>): Promise<RecoveryResult> {
    const started = performance.now();
    const primedBefore = { primed: this.primer.primed, pending: [...this.primer.pending] };
    this.recovering = true;
    this.resetDuringRecovery = false;
    this.stats.interrupts++;
    const finish = (step: RecoveryStep, outcome?: ExecOutcome) => {
      const ms = performance.now() - started;
      this.stats.recovered(step, ms);
      this.emit({ type: 'recovery', step, ms });
      return { step, ms, ...(outcome ? { outcome } : {}) };
    };
    try {
      for (const step of ['ctrl-c', 'ctrl-c-again'] as const) {
        this.core.driver.interrupt();
        const settled = await settleWithin(exec, this.core.options.interruptGraceMs);
        if (settled.kind === 'done') return finish(step, settled.value);
        if (settled.kind === 'failed' && !this.resetDuringRecovery) throw settled.error;
        if (this.resetDuringRecovery) break;
      }
      if (this.resetDuringRecovery) {
        // The board rebooted (its watchdog, or a crash): it is in friendly mode with fresh globals.
        await this.reenterRaw(false);
        return finish('board-reset');
      }
      let step: RecoveryStep = 'reenter-raw';
      try {
        await this.reenterRaw(true);
      } catch {
        await this.reopen();
        step = 'reopen';
      }
      // Ctrl-B prints a banner too, so only the lost helper tells a reboot apart.
      if (!(await this.primer.survived(primedBefore))) step = 'board-reset';
      return finish(step);
    } finally {
      this.recovering = false;
    }
  }

  /** Proves the line clean with a sync, or throws `protocol`. */
  async syncOrThrow(): Promise<void> {
    const { driver, options, link } = this.core;
    if (!(await driver.sync(Math.max(1000, options.interruptGraceMs * 2)))) {
      throw new DeviceError('protocol', `${link.id} gave no clean reply to a sync`);
    }
    this.needsRaw = false;
    this.needsSync = false;
    this.strayAtSync = driver.strayBytes;
  }

  private async reenterRaw(leaveFirst: boolean): Promise<void> {
    const { driver, options } = this.core;
    if (leaveFirst) driver.leaveRaw();
    else driver.abandon(new DeviceError('protocol', 'resyncing'));
    await driver.enterRaw(options.connectTimeoutMs);
    await this.syncOrThrow();
  }

  private async reopen(): Promise<void> {
    const { driver, options, link } = this.core;
    driver.abandon(new DeviceError('protocol', 'reopening the port'));
    await link.close();
    await link.open();
    driver.resetCapabilities();
    this.primer.primed = false;
    await driver.enterRaw(options.connectTimeoutMs);
    await this.syncOrThrow();
  }
}

type Settled<T> = { kind: 'done'; value: T } | { kind: 'failed'; error: unknown } | { kind: 'pending' };

function settleWithin<T>(promise: Promise<T>, ms: number): Promise<Settled<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'pending' }), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve({ kind: 'done', value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ kind: 'failed', error });
      },
    );
  });
}
