/**
 * The one owner of a board's raw REPL (DESIGN.md §4 "Device"): a FIFO of jobs, one at a time,
 * each with a deadline. An overrun gets Ctrl-C, then escalation until the link is back at a
 * clean raw prompt; a lost link is reopened with backoff; the helper namespace is re-primed
 * after any reset. Nothing the board sends can wedge the queue: every wait has a bound.
 *
 * This file is the front: the public API, the loop that runs jobs in turn, and reset events.
 * The parts: turns.ts (the queue, turns and leases), jobRunner.ts (one job under its deadline),
 * recovery.ts (interrupt, resync, escalation), priming.ts (the helpers on the board),
 * connection.ts (connect, reconnect with backoff), health.ts (counters and the health report).
 */
import type { ResetEvent } from './banner.js';
import { Connection } from './connection.js';
import { DeadlineClock } from './deadline.js';
import { asDeviceError, DeviceError } from './errors.js';
import { type SessionHealth, type SessionState, SessionStats } from './health.js';
import { callSnippet, parseMarked } from './helper.js';
import { summary } from './jobErrors.js';
import { JobRunner } from './jobRunner.js';
import type { DeviceLink } from './link.js';
import { HelperPrimer } from './priming.js';
import { Recovery } from './recovery.js';
import { ReplDriver } from './replDriver.js';
import type {
  ExecResult,
  HelperModule,
  Job,
  JobOptions,
  LeaseOptions,
  SessionCore,
  SessionEvent,
  SessionLease,
  SessionOptions,
} from './sessionTypes.js';
import { Turns } from './turns.js';

export type {
  ExecResult,
  HelperModule,
  JobOptions,
  LeaseOptions,
  SessionEvent,
  SessionLease,
  SessionOptions,
} from './sessionTypes.js';

export class DeviceSession {
  private readonly driver: ReplDriver;
  private readonly clock = new DeadlineClock();
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly options: Required<SessionOptions>;
  private readonly stats = new SessionStats();
  private readonly primer: HelperPrimer;
  private readonly recovery: Recovery;
  private readonly connection: Connection;
  private readonly turns: Turns;
  private readonly runner: JobRunner;
  private current: SessionState = 'idle';
  private running: Job | undefined;
  private pumping = false;

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
    const core: SessionCore = { link, driver: this.driver, options: this.options, clock: this.clock };
    const session = this;
    const kick = () => {
      if (!this.pumping) void this.pump();
    };
    this.primer = new HelperPrimer(core, this.stats);
    this.recovery = new Recovery(core, this.primer, this.stats, (event) => this.emit(event));
    this.turns = new Turns(
      {
        get state() {
          return session.current;
        },
        defaultTimeoutMs: this.options.defaultTimeoutMs,
        disconnectedError: (why) => this.connection.disconnectedError(why),
        kick,
      },
      this.stats,
    );
    this.connection = new Connection(core, this.primer, this.recovery, this.stats, {
      get state() {
        return session.current;
      },
      setState: (state) => this.setState(state),
      prepare: () => this.runner.prepare(),
      failUnwaiting: (error) => this.turns.failUnwaiting(error),
      kick,
    });
    this.runner = new JobRunner(core, this.primer, this.recovery, this.stats, {
      settle: (job, outcome) => this.turns.settle(job, outcome),
      loseLink: (reason) => this.connection.loseLink(reason),
    });
    link.onClose((reason) => this.connection.onLinkLost(reason));
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
    return this.connection.connect();
  }

  /** Runs Python code. Rejects with `python_error` when it raises (stdout is in `details`). */
  async exec(code: string, options: JobOptions = {}): Promise<ExecResult> {
    return this.turns.enqueue(code, options, false, undefined);
  }

  /** Evaluates one Python expression on the board and returns its value, sent back as JSON. */
  async call<T = unknown>(expression: string, options: JobOptions = {}): Promise<T> {
    const result = await this.turns.enqueue(callSnippet(expression), options, true, undefined);
    return parseMarked(result.stdout) as T;
  }

  /** Runs statements that report their result with `_jlh.out(value)`; returns the last value. */
  async callScript<T = unknown>(code: string, options: JobOptions = {}): Promise<T> {
    const result = await this.turns.enqueue(code, options, true, undefined);
    return parseMarked(result.stdout) as T;
  }

  /**
   * Waits for the board to be this owner's alone, for a tool that needs several jobs to see and
   * change it without another caller's job in between. Owners take turns round-robin. Rejects
   * with `canceled` when the signal aborts first, `disconnected` when the session closes.
   */
  lease(options: LeaseOptions = {}): Promise<SessionLease> {
    return this.turns.lease(options);
  }

  /** Keeps another helper namespace on the board, sent before the next job and after every reset. */
  addHelper(helper: HelperModule): void {
    this.primer.add(helper);
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
    this.turns.close();
    this.connection.stopReconnect();
    // Leave the board idle rather than still running our code (spec §3.3: loops outlive the host).
    if (wasRunning && this.link.isOpen) {
      try {
        this.link.write(Buffer.of(0x03));
      } catch {}
    }
    this.driver.dispose();
    this.clock.stop();
    await this.link.close();
    this.connection.release();
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
            this.turns.failUnwaiting(reason);
            if (this.turns.queue.length > 0) this.connection.startReconnect(reason);
            return;
          }
          continue;
        }
        if (this.current !== 'ready') return;
        const job = this.turns.nextJob() as Job;
        this.turns.queue.remove(job);
        this.running = job;
        await this.runner.run(job);
        this.running = undefined;
      }
    } finally {
      this.pumping = false;
    }
  }

  private onReset(event: ResetEvent): void {
    if (event.kind === 'banner') {
      this.stats.info = {
        ...this.stats.info,
        micropython: event.info.micropython,
        machine: event.info.machine,
        ...(event.info.firmware ? { firmware: event.info.firmware } : {}),
      };
      this.recovery.needsRaw = true; // a banner ends in the friendly prompt
    }
    this.primer.forget();
    if (this.recovery.recovering) {
      this.recovery.resetDuringRecovery = true;
      return;
    }
    if (this.current !== 'ready') return;
    this.stats.resets++;
    this.emit({ type: 'reset', kind: event.kind });
    if (this.running && event.kind === 'softReboot' && this.driver.started) {
      // The running code soft-reset the board (SystemExit in a raw-REPL exec): the reply still ends
      // at the raw prompt that follows `soft reboot`, so the job completes; the runner re-primes.
      this.runner.softResetInJob = true;
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
