/**
 * The board as tools use it (DESIGN.md §2 device, §4 Device): one-line calls that come back as
 * JSON, scripts, raw execs and the firmware's function list, over wherever the board's jobs run,
 * this process's session or the process that holds the port (share/remote.ts). `hold` is the one
 * way a call has the board: every job carries the call's signal and owner, and an atomic call
 * holds a lease from its first job to its end, so no other caller's job runs in between.
 */
import {
  type BoardLease,
  type BoardLeaseAnswer,
  type BoardLeaseRequest,
  BoardLeases,
  leaseHolder,
  leaseRefusal,
  type OutsideLease,
  outsideHolder,
} from './boardLeases.js';
import { DeviceError } from './errors.js';
import type { SessionHealth } from './health.js';
import type { DeviceSession, ExecResult, HelperModule } from './session.js';

export interface BoardCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Who the job is for, for the round-robin between callers (a held board sets the call's). */
  owner?: string;
}

/** Which process holds the port, and who works through it (one owner per board, across processes). */
export interface BoardSharing {
  /** `owner`: this process holds the port; `client`: it works through the owner's socket. */
  role: 'owner' | 'client';
  owner: { pid: number; device: string; socket: string; since: string };
  /** Processes working through the owner now. */
  clients: Array<{ client: string; pid: number; since: string; connections: number }>;
}

/** `lease`: the caller's lease on the board in force now (boardLeases.ts), if any. */
export type BoardHealth = SessionHealth & { sharing?: BoardSharing; lease?: BoardLease };

/** `call`: one expression's JSON value; `script`: statements ending in `_jlh.out(value)`; `exec`: code as is. */
export type JobKind = 'call' | 'script' | 'exec';

/**
 * Where one board's jobs run: a session in this process (`sessionJobs`), or the process that
 * holds the port (share/remote.ts), or whichever of the two this process has now (share/shared.ts).
 */
export interface JobTarget {
  /** Names the board (its port) for per-board state kept on the host. */
  readonly id: string;
  run(kind: JobKind, code: string, options: BoardCallOptions): Promise<unknown>;
  /**
   * Waits until the board is this owner's alone, until `release()` or the signal aborts. `yields`:
   * its turn comes only when no caller waits (a process working through the board's owner asks at
   * the owner's normal priority: the share protocol does not carry it).
   */
  lease(owner: string, signal?: AbortSignal, yields?: boolean): Promise<JobLease>;
  /** Session health (connection, versions, latency, counters), and who holds the port. */
  health(): Promise<BoardHealth>;
  /** Tells when what tools saw of the board may be stale: a reset, a reconnect, another owner. */
  onStale(listener: () => void): () => void;
  /** A caller's lease on the board (boardLeases.ts), kept where the port is held. */
  boardLease(request: BoardLeaseRequest): Promise<BoardLeaseAnswer>;
}

/** The board held for one owner: jobs run through it have no other caller's job in between. */
export interface JobLease {
  run(kind: JobKind, code: string, options: BoardCallOptions): Promise<unknown>;
  /** True once released: jobs sent then are refused with `canceled`. */
  readonly released: boolean;
  release(): void;
}

/** The board as one tool call sees it (what a handler gets). */
export interface BoardClient {
  /** Evaluates one Python expression (build it with `py`) and returns its JSON value. */
  call<T = unknown>(expression: string, options?: BoardCallOptions): Promise<T>;
  /** Runs statements that end with `_jlh.out(value)`; returns that value. */
  script<T = unknown>(code: string, options?: BoardCallOptions): Promise<T>;
  /** Runs code as is (python_exec). */
  exec(code: string, options?: BoardCallOptions): Promise<ExecResult>;
  /** Names the `jumperless` module offers on this board's firmware (learned once per connection). */
  firmwareFunctions(options?: BoardCallOptions): Promise<ReadonlySet<string>>;
  readonly id: string;
  health(): Promise<BoardHealth>;
  /** Takes, renews, releases or reads the board's lease (boardLeases.ts); `busy` when another holds it. */
  boardLease(request: BoardLeaseRequest): Promise<BoardLeaseAnswer>;
  /**
   * What tools last saw of this board, shared by every caller and forgotten at any reset or
   * reconnect. Only a hint: a tool sends a checksum of what it expects and the board refuses the
   * change when its state differs (connect: one job instead of a read and a write).
   */
  readonly seen: Map<string, unknown>;
}

export interface HoldOptions {
  signal: AbortSignal;
  /** The caller, for the round-robin between callers. */
  owner: string;
  /**
   * True: the first job takes a lease kept to the end, so everything the call reads and changes
   * is seen by no other caller half done. False (tools that wait for a person for long): each job
   * takes its own turn.
   */
  atomic: boolean;
  /**
   * The call may change the board: while another caller holds the board's lease, it is refused
   * (`busy`, with who and until when) before its first job. Calls that only read are not.
   */
  mutates?: boolean;
  /** An atomic read that yields to every caller (the board view): its lease waits until none waits. */
  yields?: boolean;
  /**
   * The outside lease the caller holds this board by (a labgrid place, a Jumpstarter lease, as its
   * board is bound): every call of it takes or renews the board under that lease's name, and its
   * changes are that lease's. Absent: the caller holds leases as itself.
   */
  outside?: OutsideLease;
}

/** The name a call holds a board lease under: its outside lease's, else the caller's own. */
export function holderOf(call: Pick<HoldOptions, 'owner' | 'outside'>): string {
  return call.outside ? outsideHolder(call.outside) : leaseHolder(call.owner);
}

export interface HeldBoard {
  /** What the tool's handler gets. */
  readonly board: BoardClient;
  /** The call is over: gives the board back. A job made after it takes an ordinary turn. */
  release(): void;
}

/**
 * A board: its jobs, each its own turn (a BoardClient), and `hold` for one call. The firmware's
 * function list and what tools saw are kept here, once per board, and forgotten when stale.
 */
export class Board implements BoardClient {
  readonly seen: Map<string, unknown>;
  private readonly known: { functions?: ReadonlySet<string> };

  /** `sameAs`: another Board over the same jobs whose hints and firmware list this one shares (a test's view). */
  constructor(
    readonly jobs: JobTarget,
    options: { sameAs?: Board } = {},
  ) {
    this.seen = options.sameAs?.seen ?? new Map();
    this.known = options.sameAs?.known ?? {};
    jobs.onStale(() => {
      this.known.functions = undefined;
      this.seen.clear();
    });
  }

  get id(): string {
    return this.jobs.id;
  }

  call<T = unknown>(expression: string, options: BoardCallOptions = {}): Promise<T> {
    return this.jobs.run('call', expression, options) as Promise<T>;
  }

  script<T = unknown>(code: string, options: BoardCallOptions = {}): Promise<T> {
    return this.jobs.run('script', code, options) as Promise<T>;
  }

  exec(code: string, options: BoardCallOptions = {}): Promise<ExecResult> {
    return this.jobs.run('exec', code, options) as Promise<ExecResult>;
  }

  firmwareFunctions(options: BoardCallOptions = {}): Promise<ReadonlySet<string>> {
    return this.functionsBy((expression) => this.call<string[]>(expression, options));
  }

  health(): Promise<BoardHealth> {
    return this.jobs.health();
  }

  boardLease(request: BoardLeaseRequest): Promise<BoardLeaseAnswer> {
    return this.jobs.boardLease(request);
  }

  hold(call: HoldOptions): HeldBoard {
    let leasing: Promise<JobLease> | undefined;
    let allowed: Promise<void> | undefined;
    let ended = false;
    const outside = call.outside;
    const run = async (kind: JobKind, code: string, options: BoardCallOptions = {}) => {
      const merged = { signal: call.signal, owner: call.owner, ...options };
      if (call.mutates || outside) {
        // Asked once per call, before its first job, where the port is held: the lease in force,
        // or, for an outside lease's holder, that lease taken or renewed (even by a read).
        allowed ??= this.jobs
          .boardLease(outside ? { action: 'outside', outside } : { action: 'status' })
          .then(({ lease }) => {
            const refusal = leaseRefusal(lease, call.owner, holderOf(call));
            if (refusal) throw refusal;
          });
        // A read goes on whoever holds the board, and whatever its outside lease came to.
        if (call.mutates) await allowed;
        else await allowed.catch(() => {});
      }
      if (call.atomic && !ended) {
        leasing ??= this.jobs.lease(call.owner, call.signal, call.yields).catch((error: unknown) => {
          // Stopped before its turn came: say so, so that nobody reports a board interrupted for it.
          if (!call.signal.aborted) throw error;
          throw new DeviceError(
            'canceled',
            'the call was stopped while it waited for its turn at the board (another caller held it); nothing of it ran',
            { never_ran: true },
          );
        });
        const lease = await leasing;
        if (!lease.released) return lease.run(kind, code, merged);
      }
      return this.jobs.run(kind, code, merged);
    };
    const board: BoardClient = {
      call: (expression, options) => run('call', expression, options) as never,
      script: (code, options) => run('script', code, options) as never,
      exec: (code, options) => run('exec', code, options) as Promise<ExecResult>,
      // Fetched through the held board: a lease holder waiting on another caller's fetch queued
      // behind its own lease would wait forever, so only answers are shared, never fetches.
      firmwareFunctions: (options) =>
        this.functionsBy((expression) => run('call', expression, options) as Promise<string[]>),
      id: this.id,
      health: () => this.health(),
      boardLease: (request) => this.boardLease(request),
      seen: this.seen,
    };
    return {
      board,
      release() {
        ended = true;
        void leasing?.then(
          (lease) => lease.release(),
          () => {},
        );
      },
    };
  }

  private async functionsBy(call: (expression: string) => Promise<string[]>): Promise<ReadonlySet<string>> {
    if (this.known.functions) return this.known.functions;
    // Through the helper, not a `jumperless` global: that one is gone after any soft reset.
    const names = new Set(await call(FIRMWARE_FUNCTIONS));
    this.known.functions = names;
    return names;
  }
}

/** The expression that lists the firmware's `jumperless` functions (through the helper `_jlh`). */
export const FIRMWARE_FUNCTIONS = '_jlh.fw()';

/** A session's jobs and leases as a JobTarget; `helper` is primed on the board with `_jlh`. */
export function sessionJobs(session: DeviceSession, helper?: HelperModule): JobTarget {
  if (helper) session.addHelper(helper);
  const leases = new BoardLeases();
  return {
    id: session.link.id,
    run: (kind, code, options) => session.run(kind, code, options),
    lease: async (owner, signal, yields) => {
      const lease = await session.lease({
        owner,
        ...(signal ? { signal } : {}),
        ...(yields ? { yields } : {}),
      });
      return {
        run: (kind, code, { owner: _owner, ...options }) => lease.run(kind, code, options),
        get released() {
          return lease.released;
        },
        release: () => lease.release(),
      };
    },
    health: async () => {
      const { lease } = leases.apply({ action: 'status' });
      return { ...session.health(), ...(lease ? { lease } : {}) };
    },
    boardLease: async (request) => leases.apply(request),
    onStale: (listener) =>
      session.onEvent((event) => {
        if (event.type === 'reset' || event.type === 'state') listener();
      }),
  };
}
