/**
 * Session behaviour that needs the in-process virtual board's fault hooks: the watchdog reset,
 * a hung board, floods, escalation, ownership, lazy connect and helper priming.
 */
import { Duplex } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SimBoard } from '../sim/index.js';
import { DeviceError } from './errors.js';
import { HELPER_VERSION } from './helper.js';
import { type DeviceLink, streamLink } from './link.js';
import { pyLiteral } from './pyLiteral.js';
import { DeviceSession, type SessionEvent } from './session.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function failure(promise: Promise<unknown>): Promise<DeviceError> {
  try {
    await promise;
  } catch (error) {
    return error as DeviceError;
  }
  throw new Error('expected the job to fail');
}

let board: SimBoard;
let sessions: DeviceSession[];

function simLink(id = 'sim'): DeviceLink {
  return streamLink(id, { connect: () => board.port('repl'), release: () => {} });
}

function open(link: DeviceLink = simLink(), options: ConstructorParameters<typeof DeviceSession>[1] = {}) {
  const session = new DeviceSession(link, { reconnectDelayMs: { initial: 50, max: 300 }, ...options });
  sessions.push(session);
  return session;
}

// One board for the file: each test gets its own sessions, and puts back any fault it set.
beforeAll(async () => {
  board = await SimBoard.start();
});

beforeEach(() => {
  sessions = [];
});

afterEach(async () => {
  for (const session of sessions) await session.close();
  board.faults.hang(false);
  board.faults.slow(0);
  if (!board.plugged) await board.faults.replug();
});

afterAll(async () => {
  await board.stop();
});

describe('session recovery', () => {
  it('gets past a pure-Python busy loop that ignores Ctrl-C (the board resets) and re-primes', async () => {
    const session = open();
    await session.exec('kept = 1');
    const error = await failure(session.exec('while True:\n    pass', { timeoutMs: 200 }));
    expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'board-reset' } });
    expect(await session.call('"kept" in globals()')).toBe(false);
    expect(await session.call('_jlh.V')).toBe(HELPER_VERSION);
    expect(session.health().recoveries['board-reset']).toBe(1);
  });

  it('escalates to reopening the port when the link goes deaf', async () => {
    const inner = simLink();
    let deaf = false;
    // A wedged endpoint that only a close/open cures: the board still answers, we stop hearing it.
    const link: DeviceLink = {
      get id() {
        return inner.id;
      },
      get address() {
        return inner.address;
      },
      get isOpen() {
        return inner.isOpen;
      },
      open: () => inner.open(),
      close: async () => {
        deaf = false;
        await inner.close();
      },
      write: (bytes) => inner.write(bytes),
      onData: (listener) => inner.onData((chunk) => deaf || listener(chunk)),
      onClose: (listener) => inner.onClose(listener),
    };
    const session = open(link, { connectTimeoutMs: 800, interruptGraceMs: 200 });
    await session.connect();
    const events: SessionEvent[] = [];
    session.onEvent((event) => events.push(event));
    const job = session.exec('import time\ntime.sleep(10)', { timeoutMs: 300 });
    await delay(100);
    deaf = true;
    expect(await failure(job)).toMatchObject({ code: 'timeout', details: { recovery: 'reopen' } });
    expect(events).toContainEqual(expect.objectContaining({ type: 'recovery', step: 'reopen' }));
    expect(await session.call('5')).toBe(5);
  });

  it('recovers when a raw paste is cut short', async () => {
    const session = open(simLink(), { interruptGraceMs: 200 });
    await session.connect();
    board.faults.slow(2); // window grants trickle in, so the paste is still going at the deadline
    const code = `x = ${pyLiteral('a'.repeat(20_000))}\nprint(len(x))`;
    const error = await failure(session.exec(code, { timeoutMs: 150 }));
    expect(error.code).toBe('timeout');
    expect(['ctrl-c', 'ctrl-c-again', 'reenter-raw']).toContain(error.details.recovery);
    board.faults.slow(0);
    expect(await session.exec(code)).toMatchObject({ stdout: '20000\n' });
  });

  it('gives up on a hung board, keeps trying, and serves a waiting call once it answers again', async () => {
    const session = open(simLink(), { connectTimeoutMs: 400, interruptGraceMs: 100 });
    await session.connect();
    board.faults.hang(true);
    const error = await failure(session.exec('print(1)', { timeoutMs: 200 }));
    expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'failed' } });
    expect(session.state).toBe('reconnecting');
    expect(await failure(session.call('1'))).toMatchObject({ code: 'disconnected' });
    const waiting = session.call('"alive"', { waitForConnectionMs: 10_000 });
    await delay(300);
    board.faults.hang(false);
    expect(await waiting).toBe('alive');
  });
});

describe('session input and output limits', () => {
  it('caps a huge output and says so', async () => {
    const session = open(simLink(), { maxOutputBytes: 10_000 });
    const result = await session.exec('print("x" * 50000)');
    expect(result.truncated).toBe(true);
    expect(result.stdout).toMatch(
      /^x{10000}\n\[output truncated: 40001 more bytes dropped after the first 10000\]\n$/,
    );
  });

  it('shrugs off a flood of bytes from the board', async () => {
    const session = open();
    await session.connect();
    const block = Buffer.alloc(256 * 1024);
    for (let i = 0; i < block.length; i++) block[i] = (i * 7919) & 0xff;
    for (let i = 0; i < 20; i++) board.faults.garbage('repl', block); // 5 MB
    await delay(50);
    expect(await session.call('"after the flood"')).toBe('after the flood');
  });

  it('refuses code with raw-REPL control bytes before anything is sent', async () => {
    const session = open();
    await session.exec('x = 1');
    const error = await failure(session.exec("x = 2\nprint('\x03')"));
    expect(error).toMatchObject({ code: 'invalid_code', details: { offset: 13, byte: 3 } });
    expect(await session.call('x')).toBe(1);
  });

  it('passes any text through pyLiteral and back unchanged (fuzz against MicroPython)', async () => {
    const session = open();
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const alphabet = [0, 1, 3, 4, 9, 10, 13, 17, 27, 34, 39, 92, 127, 0xe9, 0x2192, 0xd800, 0xdc00, 0xfffd];
    for (let i = 0; i < 200; i++) {
      const chars = Array.from({ length: random() % 12 }, () =>
        random() % 3 === 0 ? (alphabet[random() % alphabet.length] ?? 0) : 32 + (random() % 95),
      );
      let text = String.fromCharCode(...chars);
      if (random() % 5 === 0) text += '😀';
      expect(await session.call(pyLiteral(text))).toBe(wellFormed(text));
    }
  });
});

/**
 * The virtual board as firmware without raw-paste: the request `\x05A\x01` is answered `R\x00`
 * (refused), or, like firmware that does not know it at all, only its `\x01` reaches the REPL,
 * which re-sends the raw header. Everything else goes to the real VM unchanged.
 */
function withoutRawPaste(reply: 'refuse' | 'unknown'): DeviceLink & { requests: () => number } {
  let requests = 0;
  const inner = board.port('repl');
  const front = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      if (chunk.equals(Buffer.from('\x05A\x01'))) {
        requests++;
        if (reply === 'refuse') front.push(Buffer.from('R\x00'));
        else inner.write(Buffer.from('\x01'));
      } else {
        inner.write(chunk);
      }
      callback();
    },
  });
  inner.on('data', (chunk: Buffer) => front.push(chunk));
  const link = streamLink('sim:no-paste', { connect: () => front, release: () => {} });
  return Object.assign(link, { requests: () => requests });
}

describe('raw-paste fallback', () => {
  it.each(['refuse', 'unknown'] as const)(
    'sends big code the plain way when the board answers "%s"',
    async (reply) => {
      const link = withoutRawPaste(reply);
      const session = open(link);
      const code = `x = ${pyLiteral('b'.repeat(5000))}\nprint(len(x))`;
      expect(await session.exec(code)).toMatchObject({ stdout: '5000\n' });
      expect(await session.exec(code)).toMatchObject({ stdout: '5000\n' });
      expect(link.requests()).toBe(1); // asked once per connection, then remembered
      expect(await session.call('"after"')).toBe('after');
    },
  );
});

describe('session ownership and lifecycle', () => {
  it('connects lazily on the first job', async () => {
    const session = open();
    expect(session.state).toBe('idle');
    expect(await session.call('40 + 2')).toBe(42);
    expect(session.state).toBe('ready');
  });

  it('runs a job and a lease asked for while connect() is under way, once it is connected', async () => {
    const session = open();
    const connecting = session.connect();
    const job = session.call('1 + 1');
    const lease = session.lease({ owner: 'early' });
    await connecting;
    expect(await job).toBe(2);
    const held = await lease;
    expect(await held.call('2 + 2')).toBe(4);
    held.release();
  });

  it('allows one owner per board in a process', async () => {
    const first = open(simLink('sim:shared'));
    await first.connect();
    const second = open(simLink('sim:shared'));
    const error = await failure(second.connect());
    expect(error).toMatchObject({
      code: 'busy',
      message: expect.stringContaining('another session in this process'),
    });
    await first.close();
    await second.connect();
    expect(await second.call('1')).toBe(1);
  });

  it('reports a board that is not there, and connects once it is', async () => {
    await board.faults.unplug();
    const session = open();
    expect(await failure(session.exec('print(1)'))).toMatchObject({ code: 'not_found' });
    const waiting = session.call('"found"', { waitForConnectionMs: 10_000 });
    await delay(100);
    await board.faults.replug();
    expect(await waiting).toBe('found');
  });

  it('fails queued and running jobs on close and leaves the board idle', async () => {
    const session = open();
    await session.connect();
    const running = session.exec('import time\ntime.sleep(10)');
    const queued = session.exec('print(2)');
    await delay(50);
    await session.close();
    expect(await failure(running)).toMatchObject({ code: 'disconnected' });
    expect(await failure(queued)).toMatchObject({ code: 'disconnected', details: { closed: true } });
    expect(await failure(session.exec('print(3)'))).toMatchObject({ code: 'disconnected' });
    const next = open();
    expect(await next.call('"free"', { timeoutMs: 2000 })).toBe('free');
  });

  it('keeps registered helpers across a reset', async () => {
    const session = open();
    session.addHelper({ name: '_jlt', source: 'class _jlt:\n    def double(x):\n        return 2 * x\n' });
    expect(await session.call('_jlt.double(21)')).toBe(42);
    await board.faults.reboot();
    await delay(100);
    expect(await session.call('_jlt.double(4)')).toBe(8);
  });

  it.each(['import sys\nsys.exit()', 'raise SystemExit(3)', 'import machine\nmachine.soft_reset()'])(
    'completes a job that soft-resets the board (%s), says so, and primes the helpers again',
    async (code) => {
      const session = open();
      session.addHelper({ name: '_jlt', source: 'class _jlt:\n    def double(x):\n        return 2 * x\n' });
      await session.exec('kept = 1');
      const events: SessionEvent[] = [];
      session.onEvent((event) => events.push(event));
      const result = await session.exec(`print('bye')\n${code}`);
      expect(result).toMatchObject({ stdout: 'bye\n', softReset: { helpersReprimed: true } });
      expect(events).toContainEqual({ type: 'reset', kind: 'softReboot' });
      expect(await session.call('"kept" in globals()')).toBe(false);
      expect(await session.call('_jlt.double(4)')).toBe(8);
      expect(await session.call("['jumperless' in globals(), len(_jlh.fw()) > 100]")).toEqual([false, true]);
      expect(session.health().resets).toBe(1);
    },
  );

  it('puts back a firmware name or a helper global that user code deleted, and retries the call', async () => {
    const session = open();
    session.addHelper({
      name: '_jlt',
      source: 'class _jlt:\n    def nodes():\n        return get_num_bridges() >= 0\n',
    });
    expect(await session.call('_jlt.nodes()')).toBe(true);
    await session.exec('del get_num_bridges\ndel _jlj');
    expect(await session.call('_jlt.nodes()')).toBe(true);
    await session.exec('del _jlt');
    expect(await session.call('_jlt.nodes()')).toBe(true);
    // A NameError that re-priming cannot cure is reported, after one retry.
    expect(await failure(session.call('_jl_no_such_name'))).toMatchObject({
      code: 'python_error',
      details: { type: 'NameError' },
    });
  });

  it('refuses a helper with control bytes', () => {
    const session = open();
    expect(() => session.addHelper({ name: '_bad', source: 'x = "\x04"' })).toThrow(DeviceError);
  });
});

/** Lone surrogates become U+FFFD, as pyLiteral writes them (String#toWellFormed is ES2024). */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
