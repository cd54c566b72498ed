import { DeviceError } from '../device/errors.js';
import type { SessionHealth } from '../device/health.js';
import type { DeviceSession, ExecResult, HelperModule, SessionLease } from '../device/session.js';

export interface BoardCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Who the job is for, for the round-robin between callers (a lease carries its own). */
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

export type BoardHealth = SessionHealth & { sharing?: BoardSharing };

/**
 * The board as tools see it: one-line calls that come back as JSON, and the firmware's function
 * list. Built over a DeviceSession; dispatch binds each call's signal and deadline.
 */
export interface BoardClient {
  /** Evaluates one Python expression (build it with `py`) and returns its JSON value. */
  call<T = unknown>(expression: string, options?: BoardCallOptions): Promise<T>;
  /** Runs statements that end with `_jlh.out(value)`; returns that value. */
  script<T = unknown>(code: string, options?: BoardCallOptions): Promise<T>;
  /** Runs code as is (python_exec). */
  exec(code: string, options?: BoardCallOptions): Promise<ExecResult>;
  /** Names the `jumperless` module offers on this board's firmware (learned once per connection). */
  firmwareFunctions(options?: BoardCallOptions): Promise<ReadonlySet<string>>;
  /** Names the board (its port) for per-board state kept on the host. */
  readonly id: string;
  /** Session health (connection, versions, latency, counters), and who holds the port. */
  health(): Promise<BoardHealth>;
  /**
   * Waits until the board is this owner's alone: the lease's jobs run with no other caller's job
   * in between, until `release()` or the signal aborts.
   */
  lease(options: { owner: string; signal?: AbortSignal }): Promise<BoardLease>;
  /**
   * What tools last saw of this board, shared by every caller and forgotten at any reset or
   * reconnect. Only a hint: a tool sends a checksum of what it expects and the board refuses the
   * change when its state differs (connect: one job instead of a read and a write).
   */
  readonly seen: Map<string, unknown>;
}

/** The board held by one caller; calls made through it run inside the lease. */
export interface BoardLease extends Omit<BoardClient, 'lease'> {
  readonly released: boolean;
  release(): void;
}

/**
 * A piece of the board-side helper `_jlt`: Python `def`s (unindented, each a method of `_jlt`),
 * owned by the module whose code calls them. A tool group lists every part its tools call,
 * its own and the shared ones (the snapshot, the RAM state), so no group relies on another's.
 */
export interface PythonPart {
  /** Unique among all parts: the same part listed by several groups is put in once. */
  readonly name: string;
  readonly source: string;
}

/**
 * The tools' own helper namespace on the board, `_jlt`: the union of the parts the groups list,
 * each once, in the order first listed. Two different parts under one name are refused.
 */
export function toolsHelper(parts: readonly PythonPart[]): HelperModule {
  const byName = new Map<string, PythonPart>();
  for (const part of parts) {
    const known = byName.get(part.name);
    if (known && known.source !== part.source) {
      throw new Error(`Two board-side helper parts are named ${part.name}.`);
    }
    byName.set(part.name, part);
  }
  const body = [...byName.values()]
    .flatMap((part) => part.source.trim().split('\n'))
    .map((line) => (line.trim() === '' ? '' : `    ${line}`))
    .join('\n');
  return { name: '_jlt', source: `class _jlt:\n    V = 1\n${body}\n` };
}

export function createBoardClient(session: DeviceSession, helper?: HelperModule): BoardClient {
  if (helper) session.addHelper(helper);
  let functions: ReadonlySet<string> | undefined;
  const seen = new Map<string, unknown>();
  session.onEvent((event) => {
    if (event.type === 'reset' || event.type === 'state') {
      functions = undefined;
      seen.clear();
    }
  });
  const jobOptions = (options: BoardCallOptions = {}) => ({
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.owner ? { owner: options.owner } : {}),
  });
  type Runner = Pick<DeviceSession, 'call'>;
  const firmwareFunctions = async (runner: Runner, options?: BoardCallOptions) => {
    if (functions) return functions;
    // Through the helper, not a `jumperless` global: that one is gone after any soft reset. Only
    // the answer is shared, never a fetch in flight: a lease holder waiting on another caller's
    // queued fetch would wait for a job that waits for its own lease.
    const names = new Set(await runner.call<string[]>('_jlh.fw()', jobOptions(options)));
    functions = names;
    return names;
  };
  const over = (lease: SessionLease): BoardLease => ({
    call: (expression, options) => lease.call(expression, jobOptions(options)),
    script: (code, options) => lease.callScript(code, jobOptions(options)),
    exec: (code, options) => lease.exec(code, jobOptions(options)),
    firmwareFunctions: (options) => firmwareFunctions(lease, options),
    id: session.link.id,
    health: async () => session.health(),
    seen,
    get released() {
      return lease.released;
    },
    release: () => lease.release(),
  });
  return {
    call: (expression, options) => session.call(expression, jobOptions(options)),
    script: (code, options) => session.callScript(code, jobOptions(options)),
    exec: (code, options) => session.exec(code, jobOptions(options)),
    firmwareFunctions: (options) => firmwareFunctions(session, options),
    id: session.link.id,
    health: async () => session.health(),
    lease: async (options) => over(await session.lease(options)),
    seen,
  };
}

export interface CallBoard {
  /** What the tool's handler gets. */
  board: BoardClient;
  /** The call is over: gives the board back. */
  end(): void;
}

/**
 * The board as one tool call sees it: every job carries the call's signal and owner. An atomic
 * call takes a lease at its first job and keeps it to the end, so everything it reads and changes
 * is seen by no other caller half done. A call that waits for a person for long (atomic: false)
 * gives each job its own turn instead. A job the handler makes after the lease ended (cleanup
 * after a cancel, with a signal of its own) takes an ordinary turn.
 */
export function callBoard(
  client: BoardClient,
  call: { signal: AbortSignal; owner: string; atomic: boolean },
): CallBoard {
  const merge = (options: BoardCallOptions = {}): BoardCallOptions => ({
    signal: call.signal,
    owner: call.owner,
    ...options,
  });
  let leasing: Promise<BoardLease> | undefined;
  let ended = false;
  const through = async (): Promise<Omit<BoardClient, 'lease'>> => {
    if (!call.atomic || ended) return client;
    leasing ??= client.lease({ owner: call.owner, signal: call.signal }).catch((error: unknown) => {
      // Stopped before its turn came: say so, so that nobody reports a board interrupted for it.
      if (!call.signal.aborted) throw error;
      throw new DeviceError(
        'canceled',
        'the call was stopped while it waited for its turn at the board (another caller held it); nothing of it ran',
        { never_ran: true },
      );
    });
    const lease = await leasing;
    return lease.released ? client : lease;
  };
  const board: BoardClient = {
    call: async (expression, options) => (await through()).call(expression, merge(options)),
    script: async (code, options) => (await through()).script(code, merge(options)),
    exec: async (code, options) => (await through()).exec(code, merge(options)),
    firmwareFunctions: async (options) => (await through()).firmwareFunctions(merge(options)),
    get id() {
      return client.id;
    },
    health: () => client.health(),
    lease: (options) => client.lease(options),
    get seen() {
      return client.seen;
    },
  };
  return {
    board,
    end() {
      ended = true;
      void leasing?.then(
        (lease) => lease.release(),
        () => {},
      );
    },
  };
}
