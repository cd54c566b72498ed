/**
 * Running one job: get the board ready (raw mode, a clean line, the helpers), send the code,
 * wait for its `OK` and then its deadline, and turn what came back into a result or an error.
 * An overrun goes to the recovery ladder; a reply with bytes out of step is the link's fault.
 */
import { raceDeadline } from './deadlineRace.js';
import { asDeviceError, DeviceError } from './errors.js';
import type { SessionStats } from './health.js';
import { isMissingHelper } from './helper.js';
import { canceledError, pythonError, summary } from './jobErrors.js';
import type { HelperPrimer } from './priming.js';
import { isExceptionReport, parsePythonError } from './pythonError.js';
import type { Recovery, RecoveryResult } from './recovery.js';
import type { ExecOutcome } from './replDriver.js';
import type { ExecResult, Job, SessionCore } from './sessionTypes.js';

/** What the runner needs of the session it belongs to. */
export interface RunnerHost {
  /** Ends a job with its result or error. */
  settle(job: Job, outcome: ExecResult | DeviceError): void;
  /** The link is gone: fail what cannot wait, then reopen with backoff. */
  loseLink(reason: DeviceError): void;
}

export class JobRunner {
  /** A `soft reboot` came while the running job, already acknowledged, ran: the job caused it. */
  softResetInJob = false;

  constructor(
    private readonly core: SessionCore,
    private readonly primer: HelperPrimer,
    private readonly recovery: Recovery,
    private readonly stats: SessionStats,
    private readonly host: RunnerHost,
  ) {}

  /** Runs a job taken off the queue and settles it; never throws. */
  async run(job: Job): Promise<void> {
    try {
      if (job.signal?.aborted) throw canceledError(job, 'before it started');
      const preparing = this.prepare();
      if (preparing) await preparing;
      if (job.signal?.aborted) throw canceledError(job, 'before it started');
      const started = performance.now();
      let outcome = await this.runOnce(job);
      if (job.usesHelper && outcome.stderr && this.helperWasLost(outcome.stderr) && !this.softResetInJob) {
        // A global the helpers rely on is gone without us seeing a reset (user code deleted it, or a
        // reset we missed): put the firmware's names and our helpers back, and try once more.
        this.primer.forget();
        this.primer.restoreGlobals = true;
        await this.prepare();
        outcome = await this.runOnce(job);
      }
      const durationMs = performance.now() - started;
      this.stats.roundTrip(durationMs);
      const softReset = this.softResetInJob
        ? { helpersReprimed: await this.reprimeAfterSoftReset() }
        : undefined;
      if (softReset && job.usesHelper) {
        throw new DeviceError(
          'protocol',
          `the board soft-reset while job "${summary(job)}" ran, so its result is lost; the helpers were ${softReset.helpersReprimed ? '' : 'not '}re-primed`,
          { reset: 'soft', interrupted: summary(job), helpersReprimed: softReset.helpersReprimed },
        );
      }
      if (
        (outcome.anomaly || (outcome.stderr && !isExceptionReport(outcome.stderr, job.usesHelper))) &&
        !softReset
      ) {
        // Bytes out of step inside this job's reply (line noise, a reset's junk): what came back
        // may be cut or belong to another job, so it is the link's fault, not the caller's code.
        // The rest of the real reply may still come: resync before the next job.
        this.recovery.needsSync = true;
        throw new DeviceError(
          'protocol',
          `the reply to job "${summary(job)}" came with bytes out of step; the link is resynced, and the job may or may not have run`,
          { interrupted: summary(job), garbled: true },
        );
      }
      if (outcome.stderr) throw pythonError(outcome, softReset);
      this.host.settle(job, {
        stdout: outcome.stdout,
        stderr: '',
        truncated: outcome.truncated,
        durationMs,
        ...(softReset ? { softReset } : {}),
      });
    } catch (error) {
      this.host.settle(job, asDeviceError(error, 'protocol', `job "${summary(job)}" failed`));
    }
  }

  /** Before a job: raw mode, a clean line and the helper, each only when needed. */
  prepare(): Promise<void> | undefined {
    const recovery = this.recovery;
    if (
      !recovery.needsRaw &&
      !recovery.needsSync &&
      this.primer.primed &&
      this.primer.pending.length === 0 &&
      this.core.driver.strayBytes === recovery.strayAtSync
    ) {
      return undefined; // the common case: no await, no extra turn of the event loop
    }
    return this.prepareSlowly();
  }

  private async prepareSlowly(): Promise<void> {
    const { driver, options, link } = this.core;
    const recovery = this.recovery;
    try {
      if (recovery.needsRaw) {
        await driver.enterRaw(options.connectTimeoutMs);
        recovery.needsRaw = false;
        recovery.needsSync = true;
      }
      if (driver.strayBytes !== recovery.strayAtSync) recovery.needsSync = true;
      if (recovery.needsSync) await recovery.syncOrThrow();
      if (this.primer.needed) await this.primer.prime();
    } catch (error) {
      const reason = asDeviceError(error, 'protocol', `cannot get ${link.id} ready`);
      this.host.loseLink(reason);
      throw reason;
    }
  }

  private helperWasLost(stderr: string): boolean {
    return isMissingHelper(parsePythonError(stderr).type);
  }

  /**
   * After a job soft-reset the board: resync and prime the helpers now, so the job's result can say
   * the board is ready again. False when that failed (the link is then being reopened).
   */
  private async reprimeAfterSoftReset(): Promise<boolean> {
    this.softResetInJob = false;
    try {
      await this.prepare();
      return this.primer.primed;
    } catch {
      return false;
    }
  }

  /** Runs the job's code once under its deadline; on overrun interrupts and recovers, then throws. */
  private async runOnce(job: Job, retried = false): Promise<ExecOutcome> {
    const { driver, clock, options } = this.core;
    const started = performance.now();
    this.softResetInJob = false;
    const exec = driver.exec(job.request);
    exec.catch(() => {}); // abandoned during recovery: the rejection is expected
    // A raw REPL says OK as soon as it has the code; silence means it is not in raw mode at all.
    const ackMs = Math.min(options.ackTimeoutMs, job.timeoutMs);
    let race = await raceDeadline(clock, exec, ackMs, job.signal);
    if (race.kind === 'timeout' && driver.started && ackMs < job.timeoutMs) {
      race = await raceDeadline(clock, exec, job.timeoutMs - (performance.now() - started), job.signal);
    }
    if (race.kind === 'done') {
      if (race.outcome.anomaly) this.recovery.needsSync = true;
      return race.outcome;
    }
    const acknowledged = driver.started;
    const what =
      race.kind === 'canceled'
        ? 'was canceled'
        : acknowledged
          ? `ran over its ${job.timeoutMs} ms deadline`
          : `was not acknowledged within ${ackMs} ms`;
    let recovered: RecoveryResult;
    try {
      recovered = await this.recovery.recover(exec);
    } catch (error) {
      const reason = asDeviceError(error, 'disconnected', 'recovery failed');
      this.host.loseLink(reason);
      throw new DeviceError(
        race.kind,
        `job "${summary(job)}" ${what}, and the board did not come back: ${reason.message}`,
        { interrupted: summary(job), timeoutMs: job.timeoutMs, recovery: 'failed' },
      );
    }
    // Code the board never took and that has no line break cannot have run, even if a reset
    // left the board in friendly mode typing it out: safe to send once more.
    if (race.kind === 'timeout' && !acknowledged && !retried && !/[\r\n]/.test(job.source)) {
      await this.prepare();
      return this.runOnce(job, true);
    }
    const traceback = recovered.outcome?.stderr;
    throw new DeviceError(
      race.kind,
      `job "${summary(job)}" ${what}; ${acknowledged ? 'interrupted' : 'the board had not started it'}, ` +
        `recovered by ${recovered.step} in ${Math.round(recovered.ms)} ms`,
      {
        interrupted: summary(job),
        timeoutMs: job.timeoutMs,
        started: acknowledged,
        recovery: recovered.step,
        recoveryMs: Math.round(recovered.ms),
        ...(traceback ? { traceback } : {}),
        ...(recovered.outcome?.stdout ? { stdout: recovered.outcome.stdout } : {}),
      },
    );
  }
}
