/**
 * The session's timing and the bytes it sends when a board misbehaves, on a fake clock against a
 * scripted raw REPL (a few lines of it below: enough for the session's own requests): how long a
 * call waits for a board that stays away, how the reconnects back off, and that after a Ctrl-A
 * nobody answered, or code nobody acknowledged, no Ctrl-C goes out behind it (the wedge, issue 21).
 * The same behaviour against the virtual board is in wedge.test.ts; this is its clockwork.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import { DeviceSession } from './session.js';

const HEADER = '\r\nraw REPL; CTRL-B to exit\r\n>';
const BANNER =
  '\r\nMicroPython v1.28.0-dirty on 2026-06-01; jumperless-v5 v5.7.0.13 with rp2350b\r\nType "help()" for more information.\r\n>>> ';

/**
 * A raw REPL that answers the session's requests. `next` says what the next job does: answer,
 * stay silent (no OK: busy, or deaf), run and stop at a Ctrl-C, or run and swallow every Ctrl-C.
 */
class ScriptedBoard implements DeviceLink {
  readonly id = 'scripted';
  readonly address = 'scripted';
  isOpen = false;
  /** open() finds the board. */
  present = true;
  /** A script runs: Ctrl-A and code wait unread. */
  busy: 'no' | 'heeds' | 'swallows' = 'no';
  next: 'answer' | 'silent' | 'heeds' | 'swallows' = 'answer';
  /** Delay before the `OK` of a job, on the (fake) clock. */
  okDelayMs = 0;
  readonly writes: Array<{ at: number; text: string }> = [];
  readonly opens: number[] = [];
  private readonly data = new Set<(chunk: Buffer) => void>();
  private readonly closes = new Set<(reason: DeviceError) => void>();

  async open(): Promise<void> {
    this.opens.push(Date.now());
    if (!this.present) throw new DeviceError('not_found', 'no board');
    this.isOpen = true;
  }

  async close(): Promise<void> {
    this.isOpen = false;
  }

  /** The cable is pulled. */
  drop(): void {
    this.present = false;
    this.isOpen = false;
    for (const listener of this.closes) listener(new DeviceError('disconnected', 'unplugged'));
  }

  onData(listener: (chunk: Buffer) => void): () => void {
    this.data.add(listener);
    return () => this.data.delete(listener);
  }

  onClose(listener: (reason: DeviceError) => void): () => void {
    this.closes.add(listener);
    return () => this.closes.delete(listener);
  }

  /** What went out since `from` (an index into `writes`). */
  sent(from = 0): string {
    return this.writes
      .slice(from)
      .map((w) => w.text)
      .join('');
  }

  write(bytes: Uint8Array): void {
    const text = Buffer.from(bytes).toString('latin1');
    this.writes.push({ at: Date.now(), text });
    if (this.busy !== 'no') {
      if (text === '\x03' && this.busy === 'heeds') {
        this.busy = 'no';
        this.say('\x04Traceback (most recent call last):\nKeyboardInterrupt: \n\x04>');
      }
      return;
    }
    if (text.includes('\x01')) {
      this.say(text.includes('\x02') ? `${BANNER}${HEADER}` : HEADER);
      return;
    }
    if (!text.endsWith('\x04')) return;
    const sync = /^print\('(jl-sync-[^']+)'\)/.exec(text);
    if (sync) return this.say(`OK${sync[1]}\n\x04\x04>`);
    if (text.startsWith('print(1 if getattr')) return this.say('OK1\n\x04\x04>');
    const next = this.next;
    this.next = 'answer';
    if (next === 'silent') {
      this.busy = 'swallows';
      return;
    }
    const ok = () => {
      if (next === 'answer') this.say('OK\x1ejlh:7\n\x04\x04>');
      else {
        this.busy = next;
        this.say('OK');
      }
    };
    if (this.okDelayMs > 0) setTimeout(ok, this.okDelayMs);
    else ok();
  }

  private say(text: string): void {
    queueMicrotask(() => {
      if (!this.isOpen) return;
      for (const listener of this.data) listener(Buffer.from(text, 'latin1'));
    });
  }
}

async function failure(promise: Promise<unknown>): Promise<DeviceError> {
  try {
    await promise;
  } catch (error) {
    return error as DeviceError;
  }
  throw new Error('expected a failure');
}

let board: ScriptedBoard;
let session: DeviceSession;

beforeEach(async () => {
  vi.useFakeTimers();
  board = new ScriptedBoard();
  session = new DeviceSession(board, {
    connectTimeoutMs: 1000,
    interruptGraceMs: 200,
    ackTimeoutMs: 500,
    reconnectDelayMs: { initial: 100, max: 800 },
  });
  const connected = session.connect();
  await vi.advanceTimersByTimeAsync(500);
  await connected;
});

afterEach(async () => {
  await session.close();
  vi.useRealTimers();
});

describe('a board that stays away', () => {
  it('fails a call when its wait runs out, reconnects with doubling delays, and serves a call once back', async () => {
    board.drop();
    const opensBefore = board.opens.length;
    const lost = Date.now();
    const waiting = failure(session.call('1', { waitForConnectionMs: 2000 }));
    await vi.advanceTimersByTimeAsync(1999);
    let settled = false;
    void waiting.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(await waiting).toMatchObject({
      code: 'disconnected',
      message: expect.stringContaining('did not come back within 2000 ms'),
    });
    await vi.advanceTimersByTimeAsync(3000);
    const gaps = board.opens
      .slice(opensBefore)
      .map((at, i, all) => at - (i === 0 ? lost : (all[i - 1] ?? 0)));
    expect(gaps.slice(0, 6)).toEqual([100, 200, 400, 800, 800, 800]);
    board.present = true;
    const back = session.call('1', { waitForConnectionMs: 5000 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await back).toBe(7);
  });
});

describe('what goes out when a job goes wrong', () => {
  it('stops a script that overruns with one lone Ctrl-C', async () => {
    board.next = 'heeds';
    const from = board.writes.length;
    const job = failure(session.exec('while True: pass', { timeoutMs: 300 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(await job).toMatchObject({ code: 'timeout', details: { recovery: 'ctrl-c' } });
    expect(board.sent(from)).toBe('while True: pass\x04\x03');
  });

  it('never sends a Ctrl-C behind code the board did not acknowledge, only Ctrl-A, until it answers', async () => {
    board.next = 'silent';
    const from = board.writes.length;
    const job = failure(session.exec('print(2)', { timeoutMs: 5000 }));
    await vi.advanceTimersByTimeAsync(3000);
    expect(await job).toMatchObject({
      code: 'timeout',
      details: { started: false, unread: true, recovery: 'failed' },
    });
    expect(session.state).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(10_000);
    const after = board.sent(from);
    expect(after.startsWith('print(2)\x04')).toBe(true);
    expect(after.slice('print(2)\x04'.length)).toMatch(/^\x01+$/);
    // The board finishes what it ran: the parked Ctrl-A is read, the session is back.
    board.busy = 'no';
    const next = session.call('1', { waitForConnectionMs: 5000 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await next).toBe(7);
  });

  it('to a script that swallows Ctrl-C: two Ctrl-Cs a grace apart, one more before one Ctrl-A, then only Ctrl-A', async () => {
    board.next = 'swallows';
    const from = board.writes.length;
    const started = Date.now();
    const job = failure(session.exec('loop()', { timeoutMs: 300 }));
    await vi.advanceTimersByTimeAsync(5000);
    expect(await job).toMatchObject({ code: 'timeout', details: { started: true, recovery: 'failed' } });
    const writes = board.writes.slice(from + 1);
    const texts = writes.map((w) => w.text);
    const firstCtrlA = texts.findIndex((t) => t.includes('\x01'));
    expect(texts.slice(0, firstCtrlA + 1)).toEqual(['\x03', '\x03', '\x03', '\x03\x01']);
    expect(writes.slice(0, 3).map((w) => w.at - started)).toEqual([300, 500, 700]);
    expect(texts.slice(firstCtrlA + 1).every((t) => t === '\x01')).toBe(true);
    expect(texts.length).toBeGreaterThan(firstCtrlA + 5);
  });

  it('waits for the OK of a job canceled before it came, then stops it with a Ctrl-C', async () => {
    board.next = 'heeds';
    board.okDelayMs = 50;
    const from = board.writes.length;
    const controller = new AbortController();
    const job = failure(session.exec('long()', { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(1);
    const canceledAt = Date.now();
    controller.abort();
    await vi.advanceTimersByTimeAsync(400);
    expect(await job).toMatchObject({ code: 'canceled', details: { recovery: 'ctrl-c' } });
    const ctrlC = board.writes.slice(from).find((w) => w.text === '\x03');
    expect((ctrlC?.at ?? 0) - canceledAt).toBeGreaterThanOrEqual(49);
  });
});
