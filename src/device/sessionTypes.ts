/**
 * The session's types: the options and results callers see (re-exported by session.ts), and the
 * lease and job records its parts pass between them.
 */
import type { ResetEvent } from './banner.js';
import type { DeadlineClock } from './deadline.js';
import type { DeviceError } from './errors.js';
import type { RecoveryStep, SessionState } from './health.js';
import type { DeviceLink } from './link.js';
import type { ReplDriver } from './replDriver.js';

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
export interface Lease {
  owner: string;
  /** One job's own turn (a call made without a lease): ends when that job settles. */
  implicit: boolean;
  granted: boolean;
  released: boolean;
  /** An explicit lease's signal: aborting it releases the lease, which refuses its queued jobs. */
  signal?: AbortSignal;
  grant(): void;
  refuse(error: DeviceError): void;
  cleanup: Array<() => void>;
}

export interface Job {
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

/** What the session's parts share: the link, its REPL driver, the options and the one deadline clock. */
export interface SessionCore {
  readonly link: DeviceLink;
  readonly driver: ReplDriver;
  readonly options: Required<SessionOptions>;
  readonly clock: DeadlineClock;
}
