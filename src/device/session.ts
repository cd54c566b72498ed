/**
 * The one owner of a board's raw REPL (DESIGN.md §4 "Device"). Callers' jobs wait their turn
 * (turns.ts: one queue, round-robin between owners, leases), then run one at a time under a
 * deadline. Before a job the session does what the line needs, as lineState.ts says from what the
 * driver (replDriver.ts) saw: raw mode, a clean line, the helpers. An overrun goes down the
 * recovery ladder below; a lost link is reopened with backoff. Every wait has a bound, and nothing
 * sent can hide a Ctrl-C from the board (the driver refuses it).
 */

import { DeadlineClock, type Race, raceDeadline } from './deadline.js';
import { asDeviceError, DeviceError } from './errors.js';
import { type RecoveryStep, type SessionHealth, type SessionState, SessionStats } from './health.js';
import {
  callSnippet,
  HELPER_CHECK,
  HELPER_NAME,
  HELPER_SOURCE,
  isMissingHelper,
  parseMarked,
  RESTORE_FIRMWARE_GLOBALS,
} from './helper.js';
import { nextStep } from './lineState.js';
import type { DeviceLink } from './link.js';
import { isExceptionReport, parsePythonError } from './pythonError.js';
import { encodeCode, encodeExec, firmwareOf, type ResetEvent } from './rawRepl.js';
import { type ExecOutcome, ReplDriver } from './replDriver.js';
import { type Job, type Lease, Turns } from './turns.js';

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
  /** Its turn comes only when no caller waits (turns.ts Lease.yields). */
  yields?: boolean;
}

/**
 * The board held for one caller: its jobs run one after another, and no other caller's job runs
 * in between, until `release()` (or the lease's signal aborts). Jobs are those of the session.
 */
export interface SessionLease {
  readonly owner: string;
  /** True once released: jobs sent then are refused with `canceled`. */
  readonly released: boolean;
  /** A job of `kind` in the lease (an `owner` in the options is the lease's anyway). */
  run(kind: JobKind, code: string, options?: JobOptions): Promise<unknown>;
  exec(code: string, options?: Omit<JobOptions, 'owner'>): Promise<ExecResult>;
  call<T = unknown>(expression: string, options?: Omit<JobOptions, 'owner'>): Promise<T>;
  callScript<T = unknown>(code: string, options?: Omit<JobOptions, 'owner'>): Promise<T>;
  release(): void;
}

/** `call`: one expression's JSON value; `script`: statements ending in `_jlh.out(value)`; `exec`: code as is. */
export type JobKind = 'call' | 'script' | 'exec';

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

interface Recovered {
  step: RecoveryStep;
  ms: number;
  /** The interrupted job's reply, when a Ctrl-C brought one (its traceback). */
  outcome?: ExecOutcome;
  /** The request was never read by the board: it may still run once the board gets to it. */
  unread: boolean;
}

/** Boards held by a session in this process, by link id: one owner per board. */
const owners = new Map<string, DeviceSession>();

export class DeviceSession {
  private readonly driver: ReplDriver;
  private readonly clock = new DeadlineClock();
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly options: Required<SessionOptions>;
  private readonly stats = new SessionStats();
  private readonly turns = new Turns();
  /** Added helper namespaces, in the order they are sent. */
  private readonly helpers: HelperModule[] = [];
  private current: SessionState = 'idle';
  private running: Job | undefined;
  private pumping = false;
  private connecting: Promise<void> | undefined;
  private wakeReconnect: (() => void) | undefined;
  private disconnectedAt: number | undefined;
  private reconnectAttempts = 0;
  /** A recovery runs: its failing step reports a lost link, and a reset is its to see. */
  private recovering = false;
  private resetDuringRecovery = false;
  /** A `soft reboot` came while the running job, already acknowledged, ran: the job caused it. */
  private softResetInJob = false;

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
    link.onClose((reason) => {
      // During recovery the failing step reports the loss itself.
      if (!this.recovering) this.loseLink(reason);
    });
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
   * lazily. Rejects with `not_found`, `busy`, `disconnected`, `no_repl` or `protocol`.
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
  exec(code: string, options: JobOptions = {}): Promise<ExecResult> {
    return this.job('exec', code, options, undefined) as Promise<ExecResult>;
  }

  /** Evaluates one Python expression on the board and returns its value, sent back as JSON. */
  call<T = unknown>(expression: string, options: JobOptions = {}): Promise<T> {
    return this.job('call', expression, options, undefined) as Promise<T>;
  }

  /** Runs statements that report their result with `_jlh.out(value)`; returns the last value. */
  callScript<T = unknown>(code: string, options: JobOptions = {}): Promise<T> {
    return this.job('script', code, options, undefined) as Promise<T>;
  }

  /** A job of `kind`: what `call`, `callScript` or `exec` returns. */
  run(kind: JobKind, code: string, options: JobOptions = {}): Promise<unknown> {
    return this.job(kind, code, options, undefined);
  }

  /**
   * Waits for the board to be this owner's alone, for a tool that needs several jobs to see and
   * change it without another caller's job in between. Owners take turns round-robin. Rejects
   * with `canceled` when the signal aborts first, `disconnected` when the session closes.
   */
  lease(options: LeaseOptions = {}): Promise<SessionLease> {
    const owner = options.owner ?? 'anonymous';
    const signal = options.signal;
    return new Promise<SessionLease>((resolve, reject) => {
      if (this.current === 'closed') return reject(closedError());
      if (signal?.aborted) {
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
        ...(signal ? { signal } : {}),
        ...(options.yields ? { yields: true } : {}),
      };
      if (signal) {
        const onAbort = () => {
          if (lease.granted) return this.release(lease);
          this.turns.withdraw(lease);
          lease.released = true;
          reject(new DeviceError('canceled', `the board lease for ${owner} was canceled while it waited`));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        lease.cleanup.push(() => signal.removeEventListener('abort', onAbort));
      }
      this.turns.ask(lease);
      this.kick();
    });
  }

  /** Keeps another helper namespace on the board, sent before the next job and after every reset. */
  addHelper(helper: HelperModule): void {
    encodeCode(helper.source); // refuse bad bytes now, not at some later reconnect
    this.helpers.push(helper);
  }

  health(): SessionHealth {
    return this.stats.report({
      state: this.current,
      port: this.link.address,
      queued: this.turns.queue.length,
      running: this.running !== undefined,
      turns: this.turns.status(),
    });
  }

  /** Fails queued jobs, interrupts a running one (Ctrl-C), releases the port. Idempotent. */
  async close(): Promise<void> {
    if (this.current === 'closed') return;
    const wasRunning = this.running !== undefined;
    this.setState('closed');
    const { jobs, leases } = this.turns.drain();
    for (const job of jobs) this.settle(job, closedError());
    for (const lease of leases) lease.refuse(closedError());
    this.wakeReconnect?.();
    // Leave the board idle rather than still running our code (spec §3.3: loops outlive the host).
    if (wasRunning && this.link.isOpen && this.driver.mayInterrupt) {
      try {
        this.driver.interrupt();
      } catch {}
    }
    this.driver.dispose();
    this.clock.stop();
    await this.link.close();
    if (owners.get(this.link.id) === this) owners.delete(this.link.id);
  }

  // ---- turns -------------------------------------------------------------------------------

  /** Queues a job, in `held`'s turn or (without a lease) in a turn of its own. */
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
      if (lease.released) return reject(leaseEndedError(job));
      if (job.signal?.aborted) return reject(canceledError(job, 'before it was queued'));
      if (this.current === 'reconnecting' && job.waitUntil === undefined) {
        return reject(this.disconnectedError());
      }
      this.turns.add(job);
      // A job under its lease's own signal needs no listener: the lease's, added first, releases
      // the lease on abort, and that refuses its queued jobs.
      if (job.signal && job.signal !== lease.signal) {
        const signal = job.signal;
        const onAbort = () => {
          // A running job sees the abort through its own race and is interrupted there.
          if (this.turns.queue.remove(job))
            this.settle(job, canceledError(job, 'while it waited in the queue'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        job.cleanup.push(() => signal.removeEventListener('abort', onAbort));
      }
      if (job.waitUntil !== undefined) {
        const timer = setTimeout(() => {
          if (this.current !== 'ready' && this.turns.queue.remove(job)) {
            this.settle(
              job,
              this.disconnectedError(`it did not come back within ${options.waitForConnectionMs} ms`),
            );
          }
        }, job.waitUntil - Date.now());
        job.cleanup.push(() => clearTimeout(timer));
      }
      this.kick();
    });
  }

  private leaseHandle(lease: Lease): SessionLease {
    return {
      owner: lease.owner,
      get released() {
        return lease.released;
      },
      run: (kind, code, options = {}) => this.job(kind, code, options, lease),
      exec: (code, options = {}) => this.job('exec', code, options, lease) as Promise<ExecResult>,
      call: <T>(expression: string, options: JobOptions = {}) =>
        this.job('call', expression, options, lease) as Promise<T>,
      callScript: <T>(code: string, options: JobOptions = {}) =>
        this.job('script', code, options, lease) as Promise<T>,
      release: () => this.release(lease),
    };
  }

  /** A job of `kind`, in `held`'s turn or one of its own: a call's or a script's value, or an exec's result. */
  private async job(
    kind: JobKind,
    code: string,
    options: JobOptions,
    held: Lease | undefined,
  ): Promise<unknown> {
    if (kind === 'exec') return this.enqueue(code, options, false, held);
    const result = await this.enqueue(kind === 'call' ? callSnippet(code) : code, options, true, held);
    return parseMarked(result.stdout);
  }

  /** Ends a lease: its queued jobs are refused, and the next owner's turn begins. Idempotent. */
  private release(lease: Lease): void {
    if (lease.released && !this.turns.holds(lease)) return;
    for (const cleanup of lease.cleanup.splice(0)) cleanup();
    for (const job of this.turns.end(lease)) this.settle(job, leaseEndedError(job));
    this.kick();
  }

  /** Ends a job with its result or error; a job's own turn ends with it. */
  private settle(job: Job, outcome: ExecResult | DeviceError): void {
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
  private failUnwaiting(error: DeviceError): void {
    for (const job of this.turns.queue.take((j) => j.waitUntil === undefined)) this.settle(job, error);
  }

  /** Starts the queue unless it already runs. */
  private kick(): void {
    if (!this.pumping) void this.pump();
  }

  /** Runs the jobs in turn until none is left whose turn it is, connecting first when not connected. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.current !== 'closed' && this.turns.nextJob() !== undefined) {
        // Idle: connect first. Connecting (someone called connect()): wait for that connect, or
        // the jobs queued meanwhile would wait for a kick that never comes.
        if (this.current === 'idle' || this.current === 'connecting') {
          try {
            await this.connect();
          } catch (error) {
            const reason = asDeviceError(error, 'not_found', `cannot reach ${this.link.id}`);
            this.failUnwaiting(reason);
            if (this.turns.queue.length > 0) this.startReconnect(reason);
            return;
          }
          continue;
        }
        if (this.current !== 'ready') return;
        const job = this.turns.nextJob() as Job;
        this.turns.queue.remove(job);
        this.running = job;
        await this.runJob(job);
        this.running = undefined;
      }
    } finally {
      this.pumping = false;
    }
  }

  // ---- one job -----------------------------------------------------------------------------

  /** Runs a job taken off the queue and settles it; never throws. */
  private async runJob(job: Job): Promise<void> {
    try {
      if (job.signal?.aborted) throw canceledError(job, 'before it started');
      const preparing = this.prepare();
      if (preparing) await preparing;
      if (job.signal?.aborted) throw canceledError(job, 'before it started');
      const started = performance.now();
      let outcome = await this.runOnce(job);
      if (job.usesHelper && outcome.stderr && helperWasLost(outcome.stderr) && !this.softResetInJob) {
        // A global the helpers rely on is gone without us seeing a reset (user code deleted it, or a
        // reset we missed): put the firmware's names and our helpers back, and try once more.
        this.driver.note({ type: 'helperMissing' });
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
          {
            reset: 'soft',
            interrupted: summary(job),
            helpersReprimed: softReset.helpersReprimed,
            mayHaveRun: true,
          },
        );
      }
      if (
        (outcome.anomaly || (outcome.stderr && !isExceptionReport(outcome.stderr, job.usesHelper))) &&
        !softReset
      ) {
        // Bytes out of step inside this job's reply (line noise, a reset's junk): what came back
        // may be cut or belong to another job, so it is the link's fault, not the caller's code.
        // The rest of the real reply may still come: resync before the next job.
        this.driver.note({ type: 'garbled' });
        throw new DeviceError(
          'protocol',
          `the reply to job "${summary(job)}" came with bytes out of step; the link is resynced, and the job may or may not have run`,
          { interrupted: summary(job), garbled: true, mayHaveRun: true },
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

  /** Before a job: what the line needs (lineState.ts `nextStep`); nothing to await in the common case. */
  private prepare(): Promise<void> | undefined {
    if (nextStep(this.driver.line, this.driver.strayBytes, this.helpers.length) === 'run') return undefined;
    return this.prepareSlowly();
  }

  private async prepareSlowly(): Promise<void> {
    const { driver } = this;
    try {
      for (;;) {
        const step = nextStep(driver.line, driver.strayBytes, this.helpers.length);
        if (step === 'run') return;
        if (step === 'enterRaw') await driver.enterRaw(this.options.connectTimeoutMs + this.hopMs());
        else if (step === 'sync') await this.syncOrThrow();
        else if (step === 'restoreGlobals') {
          await this.setupStep(RESTORE_FIRMWARE_GLOBALS, true);
          driver.note({ type: 'globalsRestored' });
        } else if (step === 'checkHelpers') {
          const present = (await this.setupStep(HELPER_CHECK)).stdout.trim() === '1';
          driver.note({ type: 'helperCheck', present });
          if (present) await this.readBoardInfo();
        } else if (step === 'sendCore') {
          await this.setupStep(HELPER_SOURCE, true);
          driver.note({ type: 'coreSent' });
          await this.readBoardInfo();
        } else {
          await this.setupStep((this.helpers[driver.line.sent] as HelperModule).source, true);
          driver.note({ type: 'helperSent' });
        }
      }
    } catch (error) {
      const reason = asDeviceError(error, 'protocol', `cannot get ${this.link.id} ready`);
      this.loseLink(reason);
      throw reason;
    }
  }

  /** What the helper says the board runs, where the banner (asked for on connect) did not say. */
  private async readBoardInfo(): Promise<void> {
    if (this.stats.info.micropython && this.stats.info.machine) return;
    const reply = await this.setupStep(callSnippet(`${HELPER_NAME}.info()`), true);
    const info = parseMarked(reply.stdout) as { micropython?: string; machine?: string };
    this.stats.info = {
      ...(info.micropython ? { micropython: info.micropython } : {}),
      ...(info.machine ? { machine: info.machine, ...firmwareOf(info.machine) } : {}),
      ...this.stats.info,
    };
  }

  /** A setup exec with the connect timeout; no recovery of its own (the caller drops the link). */
  private async setupStep(code: string, mustSucceed = false): Promise<ExecOutcome> {
    const exec = this.driver.exec(encodeExec(code));
    exec.catch(() => {});
    const boundMs = this.options.connectTimeoutMs + this.hopMs(code.length);
    const race = await raceDeadline(this.clock, exec, boundMs, undefined);
    if (race.kind !== 'done') {
      this.driver.abandon(new DeviceError('timeout', 'setup step timed out'));
      throw new DeviceError('protocol', `${this.link.id} did not answer a setup step within ${boundMs} ms`);
    }
    if (mustSucceed && race.outcome.stderr) throw pythonError(race.outcome);
    return race.outcome;
  }

  /** Proves the line clean with a sync, or throws `protocol`. */
  private async syncOrThrow(): Promise<void> {
    if (!(await this.driver.sync(Math.max(1000, this.options.interruptGraceMs * 2) + this.hopMs()))) {
      throw new DeviceError('protocol', `${this.link.id} gave no clean reply to a sync`);
    }
  }

  /**
   * After a job soft-reset the board: resync and prime the helpers now, so the job's result can say
   * the board is ready again. False when that failed (the link is then being reopened).
   */
  private async reprimeAfterSoftReset(): Promise<boolean> {
    this.softResetInJob = false;
    try {
      await this.prepare();
      return this.driver.line.helpers === 'on';
    } catch {
      return false;
    }
  }

  /** Runs the job's code once under its deadline; on overrun interrupts and recovers, then throws. */
  private async runOnce(job: Job, retried = false): Promise<ExecOutcome> {
    const { driver, clock, options } = this;
    const started = performance.now();
    this.softResetInJob = false;
    const exec = driver.exec(job.request);
    exec.catch(() => {}); // abandoned during recovery: the rejection is expected
    // The deadline is the board's run time: a network hop's transfer comes on top.
    const hop = this.hopMs(job.request.length);
    const deadlineMs = job.timeoutMs + hop;
    // A raw REPL says OK as soon as it has the code; silence means it is not in raw mode at all.
    const ackMs = Math.min(options.ackTimeoutMs + hop, deadlineMs);
    let race: Race;
    try {
      race = await raceDeadline(clock, exec, ackMs, job.signal);
      if (race.kind === 'timeout' && driver.started && ackMs < deadlineMs) {
        race = await raceDeadline(clock, exec, deadlineMs - (performance.now() - started), job.signal);
      }
    } catch (error) {
      throw this.cutOff(job, error);
    }
    if (race.kind === 'done') return race.outcome;
    const acknowledged = driver.started;
    const what =
      race.kind === 'canceled'
        ? 'was canceled'
        : acknowledged
          ? `ran over its ${job.timeoutMs} ms deadline`
          : `was not acknowledged within ${ackMs} ms`;
    let recovered: Recovered;
    try {
      // A cancel can come before the board's OK: the rest of the ack window is its to answer in.
      const ackLeftMs = race.kind === 'canceled' ? ackMs - (performance.now() - started) : 0;
      recovered = await this.recover(exec, ackLeftMs);
    } catch (error) {
      const reason = asDeviceError(error, 'disconnected', 'recovery failed');
      // Known before loseLink: code never acknowledged and still parked may run once the board gets to it.
      const unread = !acknowledged && driver.line.parked;
      this.loseLink(reason);
      throw new DeviceError(
        race.kind,
        `job "${summary(job)}" ${what}, and the board did not come back: ${reason.message}` +
          (unread ? '; the board had not read the code, and may still run it once it gets to it' : ''),
        {
          interrupted: summary(job),
          timeoutMs: job.timeoutMs,
          started: acknowledged,
          recovery: 'failed',
          ...(unread ? { unread: true } : {}),
        },
      );
    }
    // Code the board read but did not run (a board left in friendly mode typed it out), with no
    // line break, cannot have run: safe to send once more.
    if (!acknowledged && !recovered.unread && !retried && !/[\r\n]/.test(job.source)) {
      if (race.kind === 'timeout') {
        await this.prepare();
        return this.runOnce(job, true);
      }
    }
    const traceback = recovered.outcome?.stderr;
    const state = acknowledged
      ? 'interrupted'
      : recovered.unread
        ? 'the board had not read it, and may still run it once it gets to it'
        : 'the board had not started it';
    throw new DeviceError(
      race.kind,
      `job "${summary(job)}" ${what}; ${state}, recovered by ${recovered.step} in ${Math.round(recovered.ms)} ms`,
      {
        interrupted: summary(job),
        timeoutMs: job.timeoutMs,
        started: acknowledged,
        recovery: recovered.step,
        recoveryMs: Math.round(recovered.ms),
        ...(recovered.unread ? { unread: true } : {}),
        ...(traceback ? { traceback } : {}),
        ...(recovered.outcome?.stdout ? { stdout: recovered.outcome.stdout } : {}),
      },
    );
  }

  /**
   * What a network hop adds to one exchange that moves `bytes` to the board: a round trip for the
   * request and one for the reply, and one per raw-paste window, as the board grants the next
   * window only once it has read the last. 0 for a local port. Every wait on the board's answer
   * adds it, so a slow hop stretches the bounds instead of failing them (connecting primes the
   * tools' 16 kB helper in one step: about 130 windows).
   */
  private hopMs(bytes = 0): number {
    const roundTrip = this.link.roundTripMs ?? 0;
    if (roundTrip <= 0) return 0;
    const windows = Math.ceil(bytes / (this.driver.pasteWindow ?? ASSUMED_PASTE_WINDOW));
    return Math.ceil(roundTrip * (2 + windows));
  }

  /**
   * A job's exec failed on a dropped link or a board reset. Once its code went out, the board may
   * have run it (over a network hop it did in every drop measured): say so, and do not call it
   * retryable, or a client would run it twice. A job that never went out is plainly retryable.
   */
  private cutOff(job: Job, error: unknown): unknown {
    if (!(error instanceof DeviceError) || error.code !== 'disconnected' || !this.driver.codeSent)
      return error;
    return new DeviceError(
      'disconnected',
      `job "${summary(job)}" was cut off (${error.message}) after it was sent: the board may have run it. Read back what it changes before sending it again`,
      { ...error.details, interrupted: summary(job), mayHaveRun: true },
    );
  }

  // ---- the recovery ladder -----------------------------------------------------------------

  /**
   * Brings the line back to a clean raw prompt after a job overran, was canceled or got no `OK`,
   * trying each step only when the one before did not work: Ctrl-C, Ctrl-C again (spaced past the
   * firmware's 20 ms debounce), then ask for raw mode again (`reenter-raw`), then close and reopen
   * the port (`reopen`). While the job's code may run, only Ctrl-C goes out (the driver refuses
   * anything else, see lineState.ts); a request the board never acknowledged may sit unread ahead
   * of any Ctrl-C, so then no Ctrl-C goes out at all. Throws when no step worked.
   */
  private async recover(exec: Promise<ExecOutcome>, ackLeftMs: number): Promise<Recovered> {
    const { driver, options } = this;
    const started = performance.now();
    const helpersBefore = driver.line.helpers;
    this.recovering = true;
    this.resetDuringRecovery = false;
    this.stats.interrupts++;
    let unread = false;
    const finish = (step: RecoveryStep, outcome?: ExecOutcome): Recovered => {
      const ms = performance.now() - started;
      this.stats.recovered(step, ms);
      this.emit({ type: 'recovery', step, ms });
      return { step, ms, unread, ...(outcome ? { outcome } : {}) };
    };
    try {
      if (ackLeftMs > 0) await driver.acknowledgement(ackLeftMs);
      if (driver.line.script === 'starting') {
        driver.abandon(new DeviceError('protocol', 'the board did not acknowledge the code'));
        unread = driver.line.parked;
      } else {
        for (const step of ['ctrl-c', 'ctrl-c-again'] as const) {
          if (!driver.mayInterrupt) break;
          driver.interrupt();
          const settled = await settleWithin(exec, options.interruptGraceMs + this.hopMs());
          if (settled.kind === 'done') return finish(step, settled.value);
          if (settled.kind === 'failed' && !this.resetDuringRecovery) throw settled.error;
          if (this.resetDuringRecovery) break;
        }
        driver.abandon(new DeviceError('protocol', 'resyncing'));
        if (!this.resetDuringRecovery) driver.note({ type: 'unanswered' });
      }
      if (this.resetDuringRecovery) {
        // The board rebooted (its watchdog, or a crash): it is in friendly mode with fresh globals.
        await driver.enterRaw(options.connectTimeoutMs + this.hopMs());
        await this.syncOrThrow();
        return finish('board-reset');
      }
      let step: RecoveryStep = 'reenter-raw';
      try {
        await driver.enterRaw(options.connectTimeoutMs + this.hopMs());
        await this.syncOrThrow();
      } catch {
        await this.reopen();
        step = 'reopen';
      }
      // Only the lost helper tells a reboot we did not hear apart.
      if (helpersBefore === 'on' && !(await this.helpersSurvived())) step = 'board-reset';
      return finish(step);
    } finally {
      this.recovering = false;
    }
  }

  private async helpersSurvived(): Promise<boolean> {
    const present = (await this.setupStep(HELPER_CHECK)).stdout.trim() === '1';
    this.driver.note({ type: 'helperCheck', present });
    return present;
  }

  private async reopen(): Promise<void> {
    const { driver, link, options } = this;
    driver.abandon(new DeviceError('protocol', 'reopening the port'));
    await link.close();
    await link.open();
    driver.opened();
    await driver.enterRaw(options.connectTimeoutMs + this.hopMs());
    await this.syncOrThrow();
  }

  // ---- connecting and reconnecting ---------------------------------------------------------

  private async firstConnect(): Promise<void> {
    const { link } = this;
    const owner = owners.get(link.id);
    if (owner && owner !== this) {
      throw new DeviceError(
        'busy',
        `${link.id} is busy: another session in this process (pid ${process.pid}) holds it`,
        { port: link.id, holders: [{ pid: process.pid, command: 'this process' }] },
      );
    }
    owners.set(link.id, this);
    this.setState('connecting');
    try {
      await this.establish();
      this.setState('ready');
    } catch (error) {
      if (owners.get(link.id) === this) owners.delete(link.id);
      await link.close().catch(() => {});
      if (this.current === 'connecting') this.setState('idle');
      throw asDeviceError(error, 'not_found', `cannot connect to ${link.id}`);
    }
  }

  private async establish(): Promise<void> {
    const { link, driver, options } = this;
    await link.close();
    await link.open();
    driver.opened();
    this.stats.info = {};
    // Via friendly mode, so the board prints its banner: firmware and MicroPython versions.
    await driver.enterRaw(options.connectTimeoutMs + this.hopMs(), { banner: true });
    // Old replies (a script the last host left running) may still be on the line: the prompt
    // leaves the line unsynced, and prepare syncs it.
    await this.prepare();
  }

  /** The link is gone: fail what cannot wait, then reopen with backoff. */
  private loseLink(reason: DeviceError): void {
    if (this.current !== 'ready') return;
    this.driver.abandon(reason);
    this.startReconnect(reason);
  }

  private startReconnect(reason: DeviceError): void {
    if (this.current === 'reconnecting' || this.current === 'closed') return;
    this.stats.noteError(reason);
    this.disconnectedAt = Date.now();
    this.reconnectAttempts = 0;
    this.setState('reconnecting');
    this.failUnwaiting(this.disconnectedError());
    void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    const { link, options } = this;
    let delay = options.reconnectDelayMs.initial;
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
        await link.close().catch(() => {});
        this.stats.noteError(asDeviceError(error, 'disconnected', 'reconnect failed'));
        delay = Math.min(delay * 2, options.reconnectDelayMs.max);
        continue;
      }
      if (this.current !== 'reconnecting') return; // closed meanwhile
      this.stats.reconnects++;
      this.disconnectedAt = undefined;
      owners.set(link.id, this);
      this.setState('ready');
      this.kick();
    }
  }

  private disconnectedError(why = 'it is reconnecting'): DeviceError {
    const since = this.disconnectedAt ? ` since ${new Date(this.disconnectedAt).toISOString()}` : '';
    const last = this.stats.lastError ? ` (last error: ${this.stats.lastError.message})` : '';
    return new DeviceError(
      'disconnected',
      `${this.link.id} is disconnected${since}; ${why}${last}. Retry later, or pass waitForConnectionMs to wait.`,
      { port: this.link.id, reconnectAttempts: this.reconnectAttempts },
    );
  }

  // ---- resets and events -------------------------------------------------------------------

  /** A banner or `soft reboot` on the line (the driver has already noted it in the line state). */
  private onReset(event: ResetEvent): void {
    if (event.kind === 'banner') {
      this.stats.info = {
        ...this.stats.info,
        micropython: event.info.micropython,
        machine: event.info.machine,
        ...(event.info.firmware ? { firmware: event.info.firmware } : {}),
      };
    }
    if (this.recovering) {
      this.resetDuringRecovery = true;
      return;
    }
    if (this.current !== 'ready') return;
    this.stats.resets++;
    this.emit({ type: 'reset', kind: event.kind });
    if (this.running && event.kind === 'softReboot' && this.driver.started) {
      // The running code soft-reset the board (SystemExit in a raw-REPL exec): the reply still ends
      // at the raw prompt that follows `soft reboot`, so the job completes; then the helpers are
      // primed again.
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

/**
 * The raw-paste window assumed before the board names its own: the virtual board's, which derives
 * it from MicroPython's stdin buffer as upstream does. Too small only stretches a bound.
 */
const ASSUMED_PASTE_WINDOW = 128;

function helperWasLost(stderr: string): boolean {
  return isMissingHelper(parsePythonError(stderr).type);
}

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

function leaseEndedError(job: Job): DeviceError {
  return new DeviceError('canceled', `job "${summary(job)}" was sent after its board lease ended`);
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
