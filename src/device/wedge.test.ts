/**
 * The link never wedges a board (issue 21): the real session against the virtual board, which
 * records any Ctrl-C that reached it behind another byte while a script ran (the firmware never
 * sees such a Ctrl-C: `SimBoard.wedged`, proven live in simBoard.test.ts). Every way a job can go
 * wrong is driven here, and after each the board must never have been wedged and must answer.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimBoard } from '../sim/index.js';
import type { DeviceError } from './errors.js';
import { type DeviceLink, streamLink } from './link.js';
import { pyLiteral } from './pyLiteral.js';
import { DeviceSession } from './session.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const OPTIONS = {
  connectTimeoutMs: 600,
  interruptGraceMs: 150,
  reconnectDelayMs: { initial: 30, max: 200 },
} as const;

async function failure(promise: Promise<unknown>): Promise<DeviceError> {
  try {
    await promise;
  } catch (error) {
    return error as DeviceError;
  }
  throw new Error('expected the job to fail');
}

/** A loop that takes `heeded - 1` Ctrl-Cs in its stride and stops at the next one (never, at 0). */
const stubborn = (heeded: number) =>
  [
    'import time',
    'n = 0',
    'while True:',
    '    try:',
    '        time.sleep(0.01)',
    '    except KeyboardInterrupt:',
    '        n += 1',
    `        if ${heeded} and n >= ${heeded}:`,
    '            raise',
  ].join('\n');

let board: SimBoard;
let session: DeviceSession;
let ids = 0;

function simLink(): DeviceLink {
  return streamLink(`sim:wedge-${++ids}`, { connect: () => board.port('repl'), release: () => {} });
}

beforeAll(async () => {
  board = await SimBoard.start();
  session = new DeviceSession(simLink(), OPTIONS);
  await session.connect();
});

afterEach(async () => {
  expect(board.wedged).toBeUndefined();
  expect(await session.call('"alive"', { waitForConnectionMs: 10_000 })).toBe('alive');
  expect(board.wedged).toBeUndefined();
});

afterAll(async () => {
  await session.close();
  await board.stop();
});

describe('the session never hides a Ctrl-C from the board', () => {
  it('when a script overruns and stops at the first Ctrl-C', async () => {
    const error = await failure(session.exec(stubborn(1), { timeoutMs: 150 }));
    expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'ctrl-c' } });
  });

  it('when it takes one Ctrl-C in its stride', async () => {
    const error = await failure(session.exec(stubborn(2), { timeoutMs: 150 }));
    expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'ctrl-c-again' } });
  });

  it.each([3, 4])('when it takes %i - 1 Ctrl-Cs (the ladder asks for raw mode again)', async (heeded) => {
    const error = await failure(session.exec(stubborn(heeded), { timeoutMs: 150 }));
    expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'reenter-raw' } });
  });

  it('when a job is canceled before the board said OK, and while it runs', async () => {
    const early = new AbortController();
    const job = session.exec(stubborn(1), { signal: early.signal });
    queueMicrotask(() => early.abort());
    expect(await failure(job)).toMatchObject({ code: 'canceled' });
    const late = new AbortController();
    setTimeout(() => late.abort(), 80);
    expect(await failure(session.exec(stubborn(1), { signal: late.signal }))).toMatchObject({
      code: 'canceled',
      details: { recovery: 'ctrl-c' },
    });
  });

  it('when garbage shaped like replies arrives during a job and the line is resynced', async () => {
    const during = session.exec('import time\ntime.sleep(0.3)\nprint("done")', { timeoutMs: 2000 });
    await delay(50);
    board.faults.garbage('repl', Buffer.from('OK\x04\x04>raw REPL; CTRL-B to exit\r\n>OK junk\x04'));
    await during.catch(() => {});
    const job = session.exec(stubborn(1), { timeoutMs: 150 });
    await delay(20);
    board.faults.garbage('repl', Buffer.from('\x04>OK\x04\x04>'));
    await job.catch(() => {});
  });

  it('when a raw paste is cut short by its deadline', async () => {
    board.faults.slow(2);
    try {
      const code = `x = ${pyLiteral('a'.repeat(20_000))}\nprint(len(x))`;
      expect(await failure(session.exec(code, { timeoutMs: 150 }))).toMatchObject({ code: 'timeout' });
    } finally {
      board.faults.slow(0);
    }
  });

  it('when many callers overrun, cancel and time out at once', async () => {
    let seed = 5;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const jobs = Array.from({ length: 24 }, (_, i) => {
      const controller = new AbortController();
      const kind = Math.floor(random() * 4);
      if (kind === 1) setTimeout(() => controller.abort(), Math.floor(random() * 200));
      const code = kind === 0 ? `_jlh.out(${i})` : kind === 3 ? stubborn(2) : 'import time\ntime.sleep(0.05)';
      return session
        .exec(code, {
          timeoutMs: 100 + Math.floor(random() * 200),
          signal: controller.signal,
          owner: `c${i % 4}`,
        })
        .catch(() => {});
    });
    await Promise.all(jobs);
  });
});

describe('the session never hides a Ctrl-C from the board when the board or the link fails', () => {
  it('when the board reboots in the middle of a job', async () => {
    const failed = failure(session.exec('import time\ntime.sleep(3)', { timeoutMs: 1000 }));
    await delay(80);
    await board.faults.reboot();
    expect((await failed).code).toMatch(/disconnected|timeout/);
  });

  it('when the cable is pulled in the middle of a job and put back', async () => {
    const failed = failure(session.exec(stubborn(0)));
    await delay(80);
    await board.faults.unplug();
    expect(await failed).toMatchObject({ code: 'disconnected' });
    await delay(100);
    await board.faults.replug();
  });

  it('when the board stops answering altogether, then answers again', async () => {
    board.faults.hang(true);
    const error = await failure(session.exec('print(1)', { timeoutMs: 200 }));
    expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'failed' } });
    await delay(300);
    board.faults.hang(false);
  });

  it('when a pure-Python loop ignores Ctrl-C and the board resets', async () => {
    const error = await failure(session.exec('while True:\n    pass', { timeoutMs: 150 }));
    expect(error.code).toBe('timeout');
    // The simulated watchdog takes a second, then a reboot: with these short timeouts the ladder
    // may give up first and the reconnect finds the board back (session.test.ts has the long way).
    expect(['board-reset', 'failed']).toContain(error.details.recovery);
  });

  it('when a script swallows every Ctrl-C: the board stays busy, never wedged, until a power cycle', async () => {
    const error = await failure(session.exec(stubborn(0), { timeoutMs: 150 }));
    expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'failed' } });
    expect(session.state).toBe('reconnecting');
    // The session keeps trying (asking for raw mode, never Ctrl-C behind that request).
    await delay(1500);
    expect(board.wedged).toBeUndefined();
    await board.faults.reboot();
  });
});
