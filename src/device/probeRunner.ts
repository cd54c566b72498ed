/**
 * Runs the firmware probes (src/board/probes.ts) against a board: exec probes through a session,
 * raw probes on a bare link. Each result says what was expected, what came back and the source line
 * that makes the expectation true, so a failing check on a real board is a bug report by itself.
 */
import type { ExecProbe, Probe, RawProbe } from '../board/probes.js';
import { DeviceError, isDeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import type { DeviceSession } from './session.js';

export interface ProbeResult {
  id: string;
  group: string;
  ok: boolean;
  /** Why the probe did not run (then `ok` is true only in the sense of "not failed"). */
  skipped?: string;
  expected: string;
  got: string;
  source: string;
  why: string;
  ms: number;
}

export interface ProbeRunOptions {
  /** Run probes that change the board (each undoes its change). Default false. */
  mutating?: boolean;
  /** The board was just powered on: run the probes about defaults before first use. Default false. */
  fresh?: boolean;
  /** Per exec probe (and per raw step). Default 10 000 ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called as each probe finishes, for progress. */
  onResult?: (result: ProbeResult) => void;
}

/** Why a probe is left out under these options, or undefined when it runs. */
export function skipReason(probe: Probe, options: ProbeRunOptions): string | undefined {
  if (probe.mutates && !options.mutating) return 'changes the board (run with --destructive)';
  if (probe.kind === 'exec' && probe.fresh && !options.fresh)
    return 'needs a board just powered on (--fresh)';
  return undefined;
}

/**
 * Probes about defaults first (nothing may have touched the board), then the read-only ones, then
 * those that change the board, each group in file order.
 */
export function runOrder<T extends Probe>(probes: readonly T[]): T[] {
  const rank = (p: Probe) => (p.kind === 'exec' && p.fresh ? 0 : p.mutates ? 2 : 1);
  return probes
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map((x) => x.p);
}

function result(
  probe: Probe,
  fields: Pick<ProbeResult, 'ok' | 'expected' | 'got' | 'ms'> & { skipped?: string },
) {
  return { id: probe.id, group: probe.group, source: probe.source, why: probe.why, ...fields };
}

/** Runs exec probes one job each, in `runOrder`. A probe that raises fails with its traceback as `got`. */
export async function runExecProbes(
  session: DeviceSession,
  probes: readonly ExecProbe[],
  options: ProbeRunOptions = {},
): Promise<ProbeResult[]> {
  const results: ProbeResult[] = [];
  for (const probe of runOrder(probes)) {
    const skipped = skipReason(probe, options);
    let outcome: ProbeResult;
    if (skipped) {
      outcome = result(probe, { ok: true, skipped, expected: probe.expect, got: '', ms: 0 });
    } else {
      const started = performance.now();
      const got = await execOutput(session, probe, options);
      outcome = result(probe, {
        ok: got === probe.expect,
        expected: probe.expect,
        got,
        ms: Math.round(performance.now() - started),
      });
    }
    results.push(outcome);
    options.onResult?.(outcome);
    if (options.signal?.aborted) break;
  }
  return results;
}

async function execOutput(
  session: DeviceSession,
  probe: ExecProbe,
  options: ProbeRunOptions,
): Promise<string> {
  try {
    const reply = await session.exec(probe.code, {
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return reply.stdout;
  } catch (error) {
    if (isDeviceError(error, 'python_error')) {
      const stdout = typeof error.details.stdout === 'string' ? error.details.stdout : '';
      const traceback = typeof error.details.traceback === 'string' ? error.details.traceback : error.message;
      return stdout + traceback;
    }
    const device = error instanceof DeviceError ? error : new DeviceError('protocol', String(error));
    return `<${device.code}: ${device.message}>`;
  }
}

/** How long a raw step's reply may take, and how long the line must stay quiet to count as done. */
const RAW_QUIET_MS = 150;
const RAW_EMPTY_QUIET_MS = 300;
const RAW_HEADER = 'raw REPL; CTRL-B to exit\r\n>';

/**
 * Runs raw probes on a link nobody else uses (close the session first). Before each probe the
 * board is brought to a clean raw prompt: a lone Ctrl-C (the firmware only notices an interrupt at
 * the head of its input), then Ctrl-A. A Ctrl-A that got no header may still wait on the board
 * ahead of anything sent after it, which would hide a Ctrl-C from a running script (the wedge,
 * lineState.ts): from then on only Ctrl-A goes out before a probe, until a header comes. Leaves the
 * link open at a raw prompt.
 */
export async function runRawProbes(
  link: DeviceLink,
  probes: readonly RawProbe[],
  options: ProbeRunOptions = {},
): Promise<ProbeResult[]> {
  const line = new LineRecorder(link);
  const results: ProbeResult[] = [];
  const parked = { now: false };
  try {
    await link.open();
    for (const probe of runOrder(probes)) {
      const skipped = skipReason(probe, options);
      const expected = probe.steps.map((s) => s.expect).join('');
      let outcome: ProbeResult;
      if (skipped) {
        outcome = result(probe, { ok: true, skipped, expected, got: '', ms: 0 });
      } else {
        const started = performance.now();
        const got = await runRawSteps(link, line, probe, options.timeoutMs ?? 10_000, parked);
        outcome = result(probe, {
          ok: got === expected,
          expected,
          got,
          ms: Math.round(performance.now() - started),
        });
      }
      results.push(outcome);
      options.onResult?.(outcome);
      if (options.signal?.aborted) break;
    }
  } finally {
    line.stop();
  }
  return results;
}

async function runRawSteps(
  link: DeviceLink,
  line: LineRecorder,
  probe: RawProbe,
  timeoutMs: number,
  parked: { now: boolean },
) {
  if (!(await cleanRawPrompt(link, line, timeoutMs, parked))) return '<no raw prompt before the probe>';
  let got = '';
  for (const step of probe.steps) {
    line.take();
    link.write(Buffer.from(step.send, 'latin1'));
    const reply = await line.until(step.expect, timeoutMs);
    got += reply;
    if (reply !== step.expect) break; // later steps assume this one's state
  }
  return got;
}

async function cleanRawPrompt(
  link: DeviceLink,
  line: LineRecorder,
  timeoutMs: number,
  parked: { now: boolean },
): Promise<boolean> {
  if (!parked.now) {
    link.write(Buffer.of(0x03));
    await line.quiet(RAW_QUIET_MS, timeoutMs);
  }
  line.take();
  link.write(Buffer.of(0x01));
  parked.now = true;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (line.peek().endsWith(RAW_HEADER)) {
      parked.now = false;
      await line.quiet(RAW_QUIET_MS, deadline - Date.now());
      if (line.take().endsWith(RAW_HEADER)) return true;
    }
    await sleep(10);
  }
  return false;
}

/** Collects a link's bytes as latin-1 text (one char per byte) and waits on them. */
class LineRecorder {
  private text = '';
  private lastByteAt = Date.now();
  private readonly off: () => void;

  constructor(link: DeviceLink) {
    this.off = link.onData((chunk) => {
      this.text += chunk.toString('latin1');
      this.lastByteAt = Date.now();
    });
  }

  /** What came since the last take(). */
  peek(): string {
    return this.text;
  }

  take(): string {
    const text = this.text;
    this.text = '';
    return text;
  }

  /** Resolves once no byte arrived for `ms`, or after `limitMs` whatever comes. */
  async quiet(ms: number, limitMs: number): Promise<void> {
    const limit = Date.now() + limitMs;
    while (Date.now() < limit && Date.now() - this.lastByteAt < ms) await sleep(10);
  }

  /**
   * Waits for `expect`: returns as soon as the text has gone past it or differs from it, and once it
   * matches, after a short quiet spell that shows nothing else follows. `''` waits for silence.
   */
  async until(expect: string, limitMs: number): Promise<string> {
    const limit = Date.now() + limitMs;
    const quietMs = expect === '' ? RAW_EMPTY_QUIET_MS : RAW_QUIET_MS;
    const started = Date.now();
    while (Date.now() < limit) {
      const seen = this.text;
      const settled = Date.now() - Math.max(this.lastByteAt, started) >= quietMs;
      if (seen.length > expect.length || !expect.startsWith(seen)) {
        if (settled) break; // diverged: let the rest of the reply in, for the report
      } else if (seen === expect && settled) break;
      await sleep(10);
    }
    return this.take();
  }

  stop(): void {
    this.off();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
