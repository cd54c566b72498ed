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
