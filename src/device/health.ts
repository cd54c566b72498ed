/** What the session reports about itself: counters plus a window of recent round trips. */

export type SessionState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'closed';

/** How a stuck job was cleared (DESIGN.md §4): the first step that brought back a clean prompt. */
export type RecoveryStep = 'ctrl-c' | 'ctrl-c-again' | 'board-reset' | 'reenter-raw' | 'reopen';

export interface SessionHealth {
  state: SessionState;
  connected: boolean;
  port: string;
  /** Firmware version, e.g. `5.7.0.13`, when the board told us. */
  firmware?: string;
  /** MicroPython version, e.g. `1.28.0`. */
  micropython?: string;
  /** `sys.implementation._machine`, e.g. `jumperless-v5 v5.7.0.13 with rp2350b`. */
  machine?: string;
  /** ISO time of the last job that completed a round trip (Python errors count: the link worked). */
  lastGoodAt?: string;
  lastRoundTripMs?: number;
  /** Over the last LATENCY_WINDOW round trips. */
  latencyMs: { p50: number; p99: number; samples: number };
  jobs: { done: number; failed: number; canceled: number; queued: number; running: boolean };
  /** Whose lease holds the board (a tool's several jobs), and the owners waiting, next first. */
  turns: { holder: string | null; waiting: string[] };
  reconnects: number;
  interrupts: number;
  resets: number;
  recoveries: Partial<Record<RecoveryStep, number>>;
  lastRecovery?: { step: RecoveryStep; ms: number; at: string };
  lastError?: { code: string; message: string; at: string };
}

export const LATENCY_WINDOW = 512;

/** A ring of the last N durations with percentiles on demand. */
export class LatencyWindow {
  private readonly values: number[] = [];
  private next = 0;

  constructor(private readonly size = LATENCY_WINDOW) {}

  add(ms: number): void {
    if (this.values.length < this.size) this.values.push(ms);
    else this.values[this.next] = ms;
    this.next = (this.next + 1) % this.size;
  }

  summary(): { p50: number; p99: number; samples: number } {
    const sorted = [...this.values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), samples: sorted.length };
  }
}

/** Nearest-rank percentile of sorted values; 0 when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round((sorted[rank] ?? 0) * 1000) / 1000;
}

/** What the board told us it runs: the banner first, then the helper's `info()` fills the gaps. */
export interface BoardInfo {
  firmware?: string;
  micropython?: string;
  machine?: string;
}

/** What `health()` shows that the counters do not hold: the session's state, queue and turns now. */
export interface LiveStatus {
  state: SessionState;
  port: string;
  queued: number;
  running: boolean;
  turns: SessionHealth['turns'];
}

/** The session's counters and last events; `report` turns them into a SessionHealth. */
export class SessionStats {
  done = 0;
  failed = 0;
  canceled = 0;
  reconnects = 0;
  interrupts = 0;
  resets = 0;
  readonly recoveries: Partial<Record<RecoveryStep, number>> = {};
  readonly latency = new LatencyWindow();
  info: BoardInfo = {};
  lastGood: { at: number; ms: number } | undefined;
  lastRecovery: SessionHealth['lastRecovery'];
  lastError: SessionHealth['lastError'];

  noteError(error: { code: string; message: string }): void {
    this.lastError = { code: error.code, message: error.message, at: new Date().toISOString() };
  }

  /** A job made a round trip (a Python error counts: the link worked). */
  roundTrip(durationMs: number): void {
    this.latency.add(durationMs);
    this.lastGood = { at: Date.now(), ms: durationMs };
  }

  recovered(step: RecoveryStep, ms: number): void {
    this.recoveries[step] = (this.recoveries[step] ?? 0) + 1;
    this.lastRecovery = { step, ms: Math.round(ms), at: new Date().toISOString() };
  }

  report(live: LiveStatus): SessionHealth {
    return {
      state: live.state,
      connected: live.state === 'ready',
      port: live.port,
      ...this.info,
      ...(this.lastGood
        ? { lastGoodAt: new Date(this.lastGood.at).toISOString(), lastRoundTripMs: this.lastGood.ms }
        : {}),
      latencyMs: this.latency.summary(),
      jobs: {
        done: this.done,
        failed: this.failed,
        canceled: this.canceled,
        queued: live.queued,
        running: live.running,
      },
      turns: live.turns,
      reconnects: this.reconnects,
      interrupts: this.interrupts,
      resets: this.resets,
      recoveries: { ...this.recoveries },
      ...(this.lastRecovery ? { lastRecovery: this.lastRecovery } : {}),
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }
}
