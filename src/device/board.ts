/**
 * The board as tools use it (DESIGN.md §2 device, §4 Device): one-line calls that come back as
 * JSON, scripts, raw execs and the firmware's function list, over wherever the board's jobs run,
 * this process's session or the process that holds the port (share/remote.ts). The two ways a
 * caller has the board:
 *
 * - `hold`, for one call: every job carries the call's signal and owner, and an atomic call holds
 *   a lease from its first job to its end, so no other caller's job runs in between;
 * - a board lease (`BoardLeases`, issue 26), for minutes: while one caller holds it, `hold`
 *   refuses every other caller's calls that change the board, with who holds it and until when;
 *   calls that only read still work.
 */
import { DeviceError } from './errors.js';
import type { SessionHealth } from './health.js';
import type { DeviceSession, ExecResult, HelperModule, JobKind } from './session.js';

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

/** `lease`: the caller's lease on the board in force now (below), if any. */
export type BoardHealth = SessionHealth & { sharing?: BoardSharing; lease?: BoardLease };

/**
 * Where one board's jobs run: a session in this process (`sessionJobs`), or the process that
 * holds the port (share/remote.ts), or whichever of the two this process has now (share/shared.ts).
 */
export interface JobTarget {
  /** Names the board (its port) for per-board state kept on the host. */
  readonly id: string;
  run(kind: JobKind, code: string, options: BoardCallOptions): Promise<unknown>;
  /** Waits until the board is this owner's alone, until `release()` or the signal aborts. */
  lease(owner: string, signal?: AbortSignal): Promise<JobLease>;
  /** Session health (connection, versions, latency, counters), and who holds the port. */
  health(): Promise<BoardHealth>;
  /** Tells when what tools saw of the board may be stale: a reset, a reconnect, another owner. */
  onStale(listener: () => void): () => void;
  /** A caller's lease on the board (below), kept where the port is held. */
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
  /** Takes, renews, releases or reads the board's lease (below); `busy` when another holds it. */
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
    const run = async (kind: JobKind, code: string, options: BoardCallOptions = {}) => {
      const merged = { signal: call.signal, owner: call.owner, ...options };
      if (call.mutates) {
        // Asked once per call, before its first job: the lease in force where the port is held.
        allowed ??= this.jobs.boardLease({ action: 'status' }).then(({ lease }) => {
          const refusal = leaseRefusal(lease, call.owner);
          if (refusal) throw refusal;
        });
        await allowed;
      }
      if (call.atomic && !ended) {
        leasing ??= this.jobs.lease(call.owner, call.signal).catch((error: unknown) => {
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
    lease: (owner, signal) => session.lease({ owner, ...(signal ? { signal } : {}) }),
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

// ---- a caller's lease on the board, for minutes ------------------------------------------------

/*
 * Not a turn (turns.ts: one call's jobs with no other caller's in between): a lease spans many
 * calls and minutes, held for a bounded time, renewed, released, or expired. Leases live where the
 * board's port is held (the owner process, share/owner.ts), so any process that works through it,
 * a gateway replica among them, sees the same lease, and the death of one of them neither drops the
 * lease nor keeps it past its time. An owner that stops forgets them: leases are bounded, and a
 * holder renews.
 */

export interface BoardLease {
  /** Who holds it: a caller id (`http:tok_1a2b`, `stdio:1234`), or an outside lease's name. */
  holder: string;
  since: string;
  until: string;
  /** What the holder said it is for, shown to those refused. */
  note?: string;
}

export type BoardLeaseRequest =
  /** By its holder: renews it from now, keeping when it began and its note. */
  | { action: 'take'; holder: string; ttlMs: number; note?: string }
  | { action: 'release'; holder: string }
  | { action: 'status' };

/** The lease in force once the request was applied (none: the board is free). */
export interface BoardLeaseAnswer {
  lease?: BoardLease;
}

/** How long one take or renew may hold the board. */
export const LEASE_TTL_MS = { min: 1000, max: 24 * 3600 * 1000 } as const;

/**
 * The holder name of a caller. A stdio caller is `stdio` in every process, and several processes
 * reach one board through its owner, so the process id tells them apart.
 */
export function leaseHolder(caller: string): string {
  return caller === 'stdio' ? `stdio:${process.pid}` : caller;
}

/** One board's lease, kept by the process that holds the board. */
export class BoardLeases {
  private held: { holder: string; since: number; until: number; note?: string } | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Applies a request; throws `busy` (with the holder and until when) when another holds the board. */
  apply(request: BoardLeaseRequest): BoardLeaseAnswer {
    const held = this.current();
    if (request.action === 'status') return this.answer();
    if (held && held.holder !== request.holder) {
      throw leasedError(this.view(held), 'only its holder can renew or release it; take it once it ends');
    }
    const now = this.now();
    switch (request.action) {
      case 'take': {
        const ttl = Math.min(LEASE_TTL_MS.max, Math.max(LEASE_TTL_MS.min, Math.round(request.ttlMs)));
        const note = request.note ?? held?.note;
        this.held = {
          holder: request.holder,
          since: held?.since ?? now,
          until: now + ttl,
          ...(note ? { note } : {}),
        };
        return this.answer();
      }
      case 'release':
        this.held = undefined;
        return {};
    }
  }

  private current() {
    if (this.held && this.held.until <= this.now()) this.held = undefined;
    return this.held;
  }

  private answer(): BoardLeaseAnswer {
    const held = this.current();
    return held ? { lease: this.view(held) } : {};
  }

  private view(held: NonNullable<BoardLeases['held']>): BoardLease {
    return {
      holder: held.holder,
      since: new Date(held.since).toISOString(),
      until: new Date(held.until).toISOString(),
      ...(held.note ? { note: held.note } : {}),
    };
  }
}

/** Why `caller` may not change the board under `lease` (the one in force), or undefined when it may. */
export function leaseRefusal(lease: BoardLease | undefined, caller: string): DeviceError | undefined {
  if (!lease || lease.holder === leaseHolder(caller)) return undefined;
  return leasedError(
    lease,
    'calls that change the board are refused to other callers until then; reads still work',
  );
}

/** Who holds the board, until when, and what that means for the one refused. */
function leasedError(lease: BoardLease, what: string): DeviceError {
  const note = lease.note ? ` (${lease.note})` : '';
  return new DeviceError(
    'busy',
    `the board is leased to ${lease.holder}${note} until ${lease.until}; ${what}`,
    { leasedTo: lease.holder, until: lease.until, ...(lease.note ? { note: lease.note } : {}) },
  );
}
