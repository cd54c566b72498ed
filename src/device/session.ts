/**
 * The one owner of a board's raw REPL (DESIGN.md §4 "Device"): a FIFO of jobs, one at a time,
 * each with a deadline. An overrun gets Ctrl-C, then escalation until the link is back at a
 * clean raw prompt; a lost link is reopened with backoff; the helper namespace is re-primed
 * after any reset. Nothing the board sends can wedge the queue: every wait has a bound.
 */
import type { ResetEvent } from './banner.js';
import { firmwareOf } from './banner.js';
import { DeadlineClock } from './deadline.js';
import { asDeviceError, DeviceError } from './errors.js';
import { LatencyWindow, type RecoveryStep, type SessionHealth, type SessionState } from './health.js';
import {
  callSnippet,
  HELPER_CHECK,
  HELPER_NAME,
  HELPER_SOURCE,
  isMissingHelper,
  parseMarked,
  RESTORE_FIRMWARE_GLOBALS,
} from './helper.js';
import type { DeviceLink } from './link.js';
import { isExceptionReport, parsePythonError } from './pythonError.js';
import { FairQueue, JobQueue } from './queue.js';
import { encodeCode, encodeExec } from './rawRepl.js';
import { type ExecOutcome, ReplDriver } from './replDriver.js';

export interface SessionOptions {
  /** Run-time limit of a job whose caller gives none. Default 10 000 ms. */
  defaultTimeoutMs?: number;
  /** How long opening the link and reaching a raw prompt may take. Default 3000 ms. */
  connectTimeoutMs?: number;
  /**
   * How long the board may take to acknowledge code with `OK` before the session decides it is
   * not in raw mode and resyncs. Default 2000 ms.
   */
  ackTimeoutMs?: number;
  /** After each Ctrl-C, how long to wait for the traceback before escalating. Default 500 ms. */
  interruptGraceMs?: number;
  /** Code at least this long (bytes) goes through raw-paste. Default 1024. */
  pasteThreshold?: number;
  /** Cap per output stream of one job. Default 1 MB. */
  maxOutputBytes?: number;
  /** Reconnect backoff: first delay, doubling up to the max. Default 100 ms .. 3000 ms. */
  reconnectDelayMs?: { initial: number; max: number };
}

export interface JobOptions {
  /** Run-time limit, counted from when the job starts (not while it waits in the queue). */
  timeoutMs?: number;
  /** Aborting removes the job from the queue, or interrupts it when running. */
  signal?: AbortSignal;
  /**
   * While the board is disconnected, wait up to this long for it to come back. Without it, a
   * call made while disconnected fails at once with `disconnected`.
   */
  waitForConnectionMs?: number;
  /**
   * Who the job is for (a caller id). Jobs and leases of different owners take turns round-robin;
   * default `anonymous`.
   */
  owner?: string;
}

export interface LeaseOptions {
  /** Who holds it, for the round-robin between callers. Default `anonymous`. */
  owner?: string;
  /** Aborting gives up the wait, or ends the lease when held. */
  signal?: AbortSignal;
}

/**
 * The board held for one caller: its jobs run one after another, and no other caller's job runs
 * in between, until `release()` (or the lease's signal aborts). Jobs are those of the session.
 */
export interface SessionLease {
  readonly owner: string;
  /** True once released: jobs sent then are refused with `canceled`. */
  readonly released: boolean;
  exec(code: string, options?: Omit<JobOptions, 'owner'>): Promise<ExecResult>;
  call<T = unknown>(expression: string, options?: Omit<JobOptions, 'owner'>): Promise<T>;
  callScript<T = unknown>(code: string, options?: Omit<JobOptions, 'owner'>): Promise<T>;
  release(): void;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** Output went over the cap; the text ends with a truncation marker. */
  truncated: boolean;
  /** Run time on the board plus the round trip, in ms. */
  durationMs: number;
  /**
   * The code ended by soft-resetting the board (SystemExit: sys.exit(), machine.soft_reset()):
   * every Python global is gone, the hardware state is kept. The session then re-primed its helpers.
   */
  softReset?: { helpersReprimed: boolean };
}

/** A helper namespace kept in the board's RAM next to `_jlh` and re-sent after any reset. */
export interface HelperModule {
  /** The global the source defines, e.g. `_jlt`; a NameError naming it triggers a re-prime. */
  name: string;
  source: string;
}

export type SessionEvent =
  | { type: 'state'; state: SessionState }
  | { type: 'recovery'; step: RecoveryStep; ms: number }
  | { type: 'reset'; kind: ResetEvent['kind'] };

/** A turn at the board: granted in round-robin order between owners, held until released. */
interface Lease {
  owner: string;
  /** One job's own turn (a call made without a lease): ends when that job settles. */
  implicit: boolean;
  granted: boolean;
  released: boolean;
  grant(): void;
  refuse(error: DeviceError): void;
  cleanup: Array<() => void>;
}

interface Job {
  lease: Lease;
  /** The exec request: code + Ctrl-D. */
  request: Buffer;
  /** The code as given, for messages (see `summary`). */
  source: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  usesHelper: boolean;
  waitUntil: number | undefined;
  resolve: (result: ExecResult) => void;
  reject: (error: DeviceError) => void;
  cleanup: Array<() => void>;
}

type Race = { kind: 'done'; outcome: ExecOutcome } | { kind: 'timeout' } | { kind: 'canceled' };

/** Boards held by a session in this process, by link id: one owner per board. */
const owners = new Map<string, DeviceSession>();

export class DeviceSession {
  private readonly driver: ReplDriver;
  private readonly queue = new JobQueue<Job>();
  /** Leases waiting for their turn; `active` holds the board now. */
  private readonly waiting = new FairQueue<Lease>();
  private active: Lease | undefined;
  private readonly latency = new LatencyWindow();
  private readonly clock = new DeadlineClock();
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly helpers: HelperModule[] = [];
  private readonly options: Required<SessionOptions>;
  private current: SessionState = 'idle';
  private running: Job | undefined;
  private pumping = false;
  private connecting: Promise<void> | undefined;
  private recovering = false;
  private resetDuringRecovery = false;
  private needsRaw = false;
  private needsSync = false;
  private primed = false;
  /** Before the next prime, put the firmware's names back in the globals (a helper hit a NameError). */
  private restoreGlobals = false;
  /** A `soft reboot` came while the running job, already acknowledged, ran: the job caused it. */
  private softResetInJob = false;
  private pendingHelpers: HelperModule[] = [];
  private strayAtSync = 0;
  private wakeReconnect: (() => void) | undefined;
  private disconnectedAt: number | undefined;
  private reconnectAttempts = 0;
  private readonly stats = {
    done: 0,
    failed: 0,
    canceled: 0,
    reconnects: 0,
    interrupts: 0,
    resets: 0,
    recoveries: {} as Partial<Record<RecoveryStep, number>>,
  };
  private info: { firmware?: string; micropython?: string; machine?: string } = {};
  private lastGood: { at: number; ms: number } | undefined;
  private lastRecovery: SessionHealth['lastRecovery'];
  private lastError: SessionHealth['lastError'];

  constructor(
    readonly link: DeviceLink,
    options: SessionOptions = {},
  ) {
    this.options = {
      defaultTimeoutMs: options.defaultTimeoutMs ?? 10_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 3000,
      interruptGraceMs: options.interruptGraceMs ?? 500,
      ackTimeoutMs: options.ackTimeoutMs ?? 2000,
      pasteThreshold: options.pasteThreshold ?? 1024,
      maxOutputBytes: options.maxOutputBytes ?? 1024 * 1024,
      reconnectDelayMs: options.reconnectDelayMs ?? { initial: 100, max: 3000 },
    };
    this.driver = new ReplDriver(link, {
      maxOutputBytes: this.options.maxOutputBytes,
      pasteThreshold: this.options.pasteThreshold,
      onReset: (event) => this.onReset(event),
    });
    link.onClose((reason) => this.onLinkLost(reason));
  }

  get state(): SessionState {
    return this.current;
  }

  /** Subscribe to state changes, recoveries and resets (for logs); returns an unsubscribe function. */
  onEvent(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Opens the link, enters raw mode and primes the helper. Optional: the first job connects
   * lazily. Rejects with `not_found`, `busy`, `disconnected` or `protocol`.
   */
  connect(): Promise<void> {
    if (this.current === 'ready') return Promise.resolve();
    if (this.current === 'closed') return Promise.reject(closedError());
    this.connecting ??= this.firstConnect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Runs Python code. Rejects with `python_error` when it raises (stdout is in `details`). */
  async exec(code: string, options: JobOptions = {}): Promise<ExecResult> {
    return this.enqueue(code, options, false, undefined);
  }

  /** Evaluates one Python expression on the board and returns its value, sent back as JSON. */
  async call<T = unknown>(expression: string, options: JobOptions = {}): Promise<T> {
    const result = await this.enqueue(callSnippet(expression), options, true, undefined);
    return parseMarked(result.stdout) as T;
  }

  /** Runs statements that report their result with `_jlh.out(value)`; returns the last value. */
  async callScript<T = unknown>(code: string, options: JobOptions = {}): Promise<T> {
    const result = await this.enqueue(code, options, true, undefined);
    return parseMarked(result.stdout) as T;
  }

  /**
   * Waits for the board to be this owner's alone, for a tool that needs several jobs to see and
   * change it without another caller's job in between. Owners take turns round-robin. Rejects
   * with `canceled` when the signal aborts first, `disconnected` when the session closes.
   */
  lease(options: LeaseOptions = {}): Promise<SessionLease> {
    const owner = options.owner ?? 'anonymous';
    return new Promise<SessionLease>((resolve, reject) => {
      if (this.current === 'closed') return reject(closedError());
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
      if (!this.pumping) void this.pump();
    });
  }

  /** Keeps another helper namespace on the board, sent before the next job and after every reset. */
  addHelper(helper: HelperModule): void {
    encodeCode(helper.source); // refuse bad bytes now, not at some later reconnect
    this.helpers.push(helper);
    this.pendingHelpers.push(helper);
  }

  health(): SessionHealth {
    return {
      state: this.current,
      connected: this.current === 'ready',
      port: this.link.address,
      ...this.info,
      ...(this.lastGood
        ? { lastGoodAt: new Date(this.lastGood.at).toISOString(), lastRoundTripMs: this.lastGood.ms }
        : {}),
      latencyMs: this.latency.summary(),
      jobs: {
        done: this.stats.done,
        failed: this.stats.failed,
        canceled: this.stats.canceled,
        queued: this.queue.length,
        running: this.running !== undefined,
      },
      turns: {
        holder: this.active?.implicit === false ? this.active.owner : null,
        waiting: this.waiting.owners(),
      },
      reconnects: this.stats.reconnects,
      interrupts: this.stats.interrupts,
      resets: this.stats.resets,
      recoveries: { ...this.stats.recoveries },
      ...(this.lastRecovery ? { lastRecovery: this.lastRecovery } : {}),
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** Fails queued jobs, interrupts a running one (Ctrl-C), releases the port. Idempotent. */
  async close(): Promise<void> {
    if (this.current === 'closed') return;
    const wasRunning = this.running !== undefined;
    this.setState('closed');
    for (const job of this.queue.take(() => true)) this.settle(job, closedError());
    for (const lease of this.waiting.drain()) {
      lease.released = true;
      lease.refuse(closedError());
    }
    this.active = undefined;
    this.wakeReconnect?.();
    // Leave the board idle rather than still running our code (spec §3.3: loops outlive the host).
    if (wasRunning && this.link.isOpen) {
      try {
        this.link.write(Buffer.of(0x03));
      } catch {}
    }
    this.driver.dispose();
    this.clock.stop();
    await this.link.close();
    if (owners.get(this.link.id) === this) owners.delete(this.link.id);
  }

  // ---- leases and the queue ----

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
    if (!this.pumping) void this.pump();
  }

  private enqueue(
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
        timeoutMs: options.timeoutMs ?? this.options.defaultTimeoutMs,
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
      if (this.current === 'closed') return reject(closedError());
      if (lease.released) {
        return reject(
          new DeviceError('canceled', `job "${summary(job)}" was sent after its board lease ended`),
        );
      }
      if (job.signal?.aborted) return reject(canceledError(job, 'before it was queued'));
      if (this.current === 'reconnecting' && job.waitUntil === undefined) {
        return reject(this.disconnectedError());
      }
      this.queue.push(job);
      if (lease.implicit) this.waiting.push(lease.owner, lease);
      if (job.signal) {
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
          if (this.current !== 'ready' && this.queue.remove(job)) {
            this.settle(
              job,
              this.disconnectedError(`it did not come back within ${options.waitForConnectionMs} ms`),
            );
          }
        }, waitMs);
        job.cleanup.push(() => clearTimeout(timer));
      }
      if (!this.pumping) void this.pump();
    });
  }

  /** The next job of the lease whose turn it is, granting the next turn when none is held. */
  private nextJob(): Job | undefined {
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

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.current !== 'closed' && this.nextJob() !== undefined) {
        if (this.current === 'idle') {
          try {
            await this.connect();
          } catch (error) {
            const reason = asDeviceError(error, 'not_found', `cannot reach ${this.link.id}`);
            for (const job of this.queue.take((j) => j.waitUntil === undefined)) this.settle(job, reason);
            if (this.queue.length > 0) this.startReconnect(reason);
            return;
          }
          continue;
        }
        if (this.current !== 'ready') return;
        const job = this.nextJob() as Job;
        this.queue.remove(job);
        this.running = job;
        await this.runJob(job);
        this.running = undefined;
      }
    } finally {
      this.pumping = false;
    }
  }

  private settle(job: Job, outcome: ExecResult | DeviceError): void {
    for (const cleanup of job.cleanup) cleanup();
    if (job.lease.implicit) this.release(job.lease);
    if (outcome instanceof DeviceError) {
      if (outcome.code === 'canceled') this.stats.canceled++;
      else this.stats.failed++;
      this.lastError = { code: outcome.code, message: outcome.message, at: new Date().toISOString() };
      job.reject(outcome);
    } else {
      this.stats.done++;
      job.resolve(outcome);
    }
  }

  private async runJob(job: Job): Promise<void> {
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
        this.primed = false;
        this.restoreGlobals = true;
        this.pendingHelpers = [...this.helpers];
        await this.prepare();
        outcome = await this.runOnce(job);
      }
      const durationMs = performance.now() - started;
      this.latency.add(durationMs);
      this.lastGood = { at: Date.now(), ms: durationMs };
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
        this.needsSync = true;
        throw new DeviceError(
          'protocol',
          `the reply to job "${summary(job)}" came with bytes out of step; the link is resynced, and the job may or may not have run`,
          { interrupted: summary(job), garbled: true },
        );
      }
      if (outcome.stderr) throw pythonError(outcome, softReset);
      this.settle(job, {
        stdout: outcome.stdout,
        stderr: '',
        truncated: outcome.truncated,
        durationMs,
        ...(softReset ? { softReset } : {}),
      });
    } catch (error) {
      this.settle(job, asDeviceError(error, 'protocol', `job "${summary(job)}" failed`));
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
      return this.primed;
    } catch {
      return false;
    }
  }

  /** Runs the job's code once under its deadline; on overrun interrupts and recovers, then throws. */
  private async runOnce(job: Job, retried = false): Promise<ExecOutcome> {
    const started = performance.now();
    this.softResetInJob = false;
    const exec = this.driver.exec(job.request);
    exec.catch(() => {}); // abandoned during recovery: the rejection is expected
    // A raw REPL says OK as soon as it has the code; silence means it is not in raw mode at all.
    const ackMs = Math.min(this.options.ackTimeoutMs, job.timeoutMs);
    let race = await raceDeadline(this.clock, exec, ackMs, job.signal);
    if (race.kind === 'timeout' && this.driver.started && ackMs < job.timeoutMs) {
      race = await raceDeadline(this.clock, exec, job.timeoutMs - (performance.now() - started), job.signal);
    }
    if (race.kind === 'done') {
      if (race.outcome.anomaly) this.needsSync = true;
      return race.outcome;
    }
    const acknowledged = this.driver.started;
    const what =
      race.kind === 'canceled'
        ? 'was canceled'
        : acknowledged
          ? `ran over its ${job.timeoutMs} ms deadline`
          : `was not acknowledged within ${ackMs} ms`;
    let recovery: Awaited<ReturnType<DeviceSession['recover']>>;
    try {
      recovery = await this.recover(exec);
    } catch (error) {
      const reason = asDeviceError(error, 'disconnected', 'recovery failed');
      this.loseLink(reason);
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
    const traceback = recovery.outcome?.stderr;
    throw new DeviceError(
      race.kind,
      `job "${summary(job)}" ${what}; ${acknowledged ? 'interrupted' : 'the board had not started it'}, ` +
        `recovered by ${recovery.step} in ${Math.round(recovery.ms)} ms`,
      {
        interrupted: summary(job),
        timeoutMs: job.timeoutMs,
        started: acknowledged,
        recovery: recovery.step,
        recoveryMs: Math.round(recovery.ms),
        ...(traceback ? { traceback } : {}),
        ...(recovery.outcome?.stdout ? { stdout: recovery.outcome.stdout } : {}),
      },
    );
  }

  // ---- recovery ----

  /**
   * Brings the link back to a clean raw prompt after an overrun, trying each step in turn:
   * Ctrl-C, Ctrl-C again, leave and re-enter raw mode, close and reopen the port. Returns the
   * step that worked; throws when none did.
   */
  private async recover(
    exec: Promise<ExecOutcome>,
  ): Promise<{ step: RecoveryStep; ms: number; outcome?: ExecOutcome }> {
    const started = performance.now();
    const primedBefore = { primed: this.primed, pending: [...this.pendingHelpers] };
    this.recovering = true;
    this.resetDuringRecovery = false;
    this.stats.interrupts++;
    const finish = (step: RecoveryStep, outcome?: ExecOutcome) => {
      const ms = performance.now() - started;
      this.stats.recoveries[step] = (this.stats.recoveries[step] ?? 0) + 1;
      this.lastRecovery = { step, ms: Math.round(ms), at: new Date().toISOString() };
      this.emit({ type: 'recovery', step, ms });
      return { step, ms, ...(outcome ? { outcome } : {}) };
    };
    try {
      for (const step of ['ctrl-c', 'ctrl-c-again'] as const) {
        this.driver.interrupt();
        const settled = await settleWithin(exec, this.options.interruptGraceMs);
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
      if (!(await this.helperSurvived(primedBefore))) step = 'board-reset';
      return finish(step);
    } finally {
      this.recovering = false;
    }
  }

  /**
   * After a deep recovery: is the helper still in RAM? Leaving and re-entering raw mode keeps
   * the globals; a reboot does not. Restores the primed state when it survived.
   */
  private async helperSurvived(before: { primed: boolean; pending: HelperModule[] }): Promise<boolean> {
    if (!before.primed) return true;
    const present = (await this.bounded(HELPER_CHECK)).stdout.trim() === '1';
    this.primed = present;
    this.pendingHelpers = present ? before.pending : [...this.helpers];
    return present;
  }

  private async reenterRaw(leaveFirst: boolean): Promise<void> {
    if (leaveFirst) this.driver.leaveRaw();
    else this.driver.abandon(new DeviceError('protocol', 'resyncing'));
    await this.driver.enterRaw(this.options.connectTimeoutMs);
    await this.syncOrThrow();
  }

  private async reopen(): Promise<void> {
    this.driver.abandon(new DeviceError('protocol', 'reopening the port'));
    await this.link.close();
    await this.link.open();
    this.driver.resetCapabilities();
    this.primed = false;
    await this.driver.enterRaw(this.options.connectTimeoutMs);
    await this.syncOrThrow();
  }

  private async syncOrThrow(): Promise<void> {
    if (!(await this.driver.sync(Math.max(1000, this.options.interruptGraceMs * 2)))) {
      throw new DeviceError('protocol', `${this.link.id} gave no clean reply to a sync`);
    }
    this.needsRaw = false;
    this.needsSync = false;
    this.strayAtSync = this.driver.strayBytes;
  }

  /** Before a job: raw mode, a clean line and the helper, each only when needed. */
  private prepare(): Promise<void> | undefined {
    if (
      !this.needsRaw &&
      !this.needsSync &&
      this.primed &&
      this.pendingHelpers.length === 0 &&
      this.driver.strayBytes === this.strayAtSync
    ) {
      return undefined; // the common case: no await, no extra turn of the event loop
    }
    return this.prepareSlowly();
  }

  private async prepareSlowly(): Promise<void> {
    try {
      if (this.needsRaw) {
        await this.driver.enterRaw(this.options.connectTimeoutMs);
        this.needsRaw = false;
        this.needsSync = true;
      }
      if (this.driver.strayBytes !== this.strayAtSync) this.needsSync = true;
      if (this.needsSync) await this.syncOrThrow();
      if (!this.primed || this.pendingHelpers.length > 0) await this.prime();
    } catch (error) {
      const reason = asDeviceError(error, 'protocol', `cannot get ${this.link.id} ready`);
      this.loseLink(reason);
      throw reason;
    }
  }

  private async prime(): Promise<void> {
    // A repair re-sends everything: the check only sees `_jlh`, not the globals its source binds.
    const repair = this.restoreGlobals;
    if (repair) {
      await this.bounded(RESTORE_FIRMWARE_GLOBALS, true);
      this.restoreGlobals = false;
    }
    if (!this.primed) {
      const present = !repair && (await this.bounded(HELPER_CHECK)).stdout.trim() === '1';
      if (!present) {
        await this.bounded(HELPER_SOURCE, true);
        this.pendingHelpers = [...this.helpers];
      }
      const info = parseMarked((await this.bounded(callSnippet(`${HELPER_NAME}.info()`), true)).stdout) as {
        micropython?: string;
        machine?: string;
      };
      // The banner (asked for on connect) is the better source; this fills what it did not say.
      this.info = {
        ...(info.micropython ? { micropython: info.micropython } : {}),
        ...(info.machine ? { machine: info.machine, ...firmwareOf(info.machine) } : {}),
        ...this.info,
      };
      this.primed = true;
    }
    while (this.pendingHelpers.length > 0) {
      const helper = this.pendingHelpers[0] as HelperModule;
      await this.bounded(helper.source, true);
      this.pendingHelpers.shift();
    }
  }

  /** An internal exec with the connect timeout; no recovery of its own (the caller drops the link). */
  private async bounded(code: string, mustSucceed = false): Promise<ExecOutcome> {
    const exec = this.driver.exec(encodeExec(code));
    exec.catch(() => {});
    const race = await raceDeadline(this.clock, exec, this.options.connectTimeoutMs, undefined);
    if (race.kind !== 'done') {
      this.driver.abandon(new DeviceError('timeout', 'setup step timed out'));
      throw new DeviceError(
        'protocol',
        `${this.link.id} did not answer a setup step within ${this.options.connectTimeoutMs} ms`,
      );
    }
    if (mustSucceed && race.outcome.stderr) throw pythonError(race.outcome);
    return race.outcome;
  }

  // ---- connection ----

  private async firstConnect(): Promise<void> {
    const owner = owners.get(this.link.id);
    if (owner && owner !== this) {
      throw new DeviceError(
        'busy',
        `${this.link.id} is busy: another session in this process (pid ${process.pid}) holds it`,
        {
          port: this.link.id,
          holders: [{ pid: process.pid, command: 'this process' }],
        },
      );
    }
    owners.set(this.link.id, this);
    this.setState('connecting');
    try {
      await this.establish();
      this.setState('ready');
    } catch (error) {
      if (owners.get(this.link.id) === this) owners.delete(this.link.id);
      await this.link.close().catch(() => {});
      if (this.current === 'connecting') this.setState('idle');
      throw asDeviceError(error, 'not_found', `cannot connect to ${this.link.id}`);
    }
  }

  private async establish(): Promise<void> {
    await this.link.close();
    await this.link.open();
    this.driver.resetCapabilities();
    this.primed = false;
    this.pendingHelpers = [...this.helpers];
    this.info = {};
    // Via friendly mode, so the board prints its banner: firmware and MicroPython versions.
    await this.driver.enterRaw(this.options.connectTimeoutMs, { banner: true });
    // Old replies (a script the last host left running) may still be on the line.
    this.needsRaw = false;
    this.needsSync = true;
    await this.prepare();
  }

  private onLinkLost(reason: DeviceError): void {
    // During recovery the failing step reports the loss itself.
    if (!this.recovering) this.loseLink(reason);
  }

  /** The link is gone: fail what cannot wait, then reopen with backoff. */
  private loseLink(reason: DeviceError): void {
    if (this.current !== 'ready') return;
    this.driver.abandon(reason);
    this.startReconnect(reason);
  }

  private startReconnect(reason: DeviceError): void {
    if (this.current === 'reconnecting' || this.current === 'closed') return;
    this.lastError = { code: reason.code, message: reason.message, at: new Date().toISOString() };
    this.disconnectedAt = Date.now();
    this.reconnectAttempts = 0;
    this.setState('reconnecting');
    const error = this.disconnectedError();
    for (const job of this.queue.take((j) => j.waitUntil === undefined)) this.settle(job, error);
    void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    let delay = this.options.reconnectDelayMs.initial;
    while (this.current === 'reconnecting') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeReconnect = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeReconnect = undefined;
      if (this.current !== 'reconnecting') return;
      this.reconnectAttempts++;
      try {
        await this.establish();
      } catch (error) {
        await this.link.close().catch(() => {});
        const reason = asDeviceError(error, 'disconnected', 'reconnect failed');
        this.lastError = { code: reason.code, message: reason.message, at: new Date().toISOString() };
        delay = Math.min(delay * 2, this.options.reconnectDelayMs.max);
        continue;
      }
      if (this.current !== 'reconnecting') return; // closed meanwhile
      this.stats.reconnects++;
      this.disconnectedAt = undefined;
      owners.set(this.link.id, this);
      this.setState('ready');
      if (!this.pumping) void this.pump();
    }
  }

  private onReset(event: ResetEvent): void {
    if (event.kind === 'banner') {
      this.info = {
        ...this.info,
        micropython: event.info.micropython,
        machine: event.info.machine,
        ...(event.info.firmware ? { firmware: event.info.firmware } : {}),
      };
      this.needsRaw = true; // a banner ends in the friendly prompt
    }
    this.primed = false;
    this.pendingHelpers = [...this.helpers];
    if (this.recovering) {
      this.resetDuringRecovery = true;
      return;
    }
    if (this.current !== 'ready') return;
    this.stats.resets++;
    this.emit({ type: 'reset', kind: event.kind });
    if (this.running && event.kind === 'softReboot' && this.driver.started) {
      // The running code soft-reset the board (SystemExit in a raw-REPL exec): the reply still ends
      // at the raw prompt that follows `soft reboot`, so the job completes; runJob re-primes.
      this.softResetInJob = true;
      return;
    }
    if (this.running) {
      this.driver.abandon(
        new DeviceError('disconnected', `${this.link.id} reset while job "${summary(this.running)}" ran`, {
          port: this.link.id,
          reset: true,
          interrupted: summary(this.running),
        }),
      );
    }
  }

  private disconnectedError(why = 'it is reconnecting'): DeviceError {
    const since = this.disconnectedAt ? ` since ${new Date(this.disconnectedAt).toISOString()}` : '';
    const last = this.lastError ? ` (last error: ${this.lastError.message})` : '';
    return new DeviceError(
      'disconnected',
      `${this.link.id} is disconnected${since}; ${why}${last}. Retry later, or pass waitForConnectionMs to wait.`,
      { port: this.link.id, reconnectAttempts: this.reconnectAttempts },
    );
  }

  private setState(state: SessionState): void {
    if (this.current === state) return;
    this.current = state;
    this.emit({ type: 'state', state });
  }

  private emit(event: SessionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {}
    }
  }
}

const EMPTY = Buffer.alloc(0);

/** What a job runs, for messages: its first line, shortened. Only built when needed. */
function summary(job: Job): string {
  const lines = job.source.trim().split('\n');
  const first = (lines[0] ?? '').trim();
  const short = first.length > 80 ? `${first.slice(0, 77)}...` : first;
  return lines.length > 1 ? `${short} (+${lines.length - 1} lines)` : short;
}

function pythonError(outcome: ExecOutcome, softReset?: ExecResult['softReset']): DeviceError {
  const info = parsePythonError(outcome.stderr);
  return new DeviceError('python_error', `${info.type}: ${info.message}`.replace(/: $/, ''), {
    type: info.type,
    pythonMessage: info.message,
    traceback: info.traceback,
    stdout: outcome.stdout,
    ...(softReset ? { softReset } : {}),
  });
}

function closedError(): DeviceError {
  return new DeviceError('disconnected', 'the device session is closed', { closed: true });
}

function canceledError(job: Job, when: string): DeviceError {
  return new DeviceError('canceled', `job "${summary(job)}" was canceled ${when}`, {
    interrupted: summary(job),
  });
}

/** Waits for `promise`, the deadline or the abort signal, whichever comes first. Rejections pass through. */
function raceDeadline(
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
