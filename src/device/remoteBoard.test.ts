/**
 * A board on another machine, end to end: the session, our link, Debian's ser2net exporting the
 * virtual board's pty (RFC 2217 or raw TCP), and a tap just in front of the board that records
 * every byte the board receives. So the tests can say what the board got, not only what we sent:
 * byte for byte what the session wrote (no telnet byte, no escape left over), and, when the
 * exporter dies in the middle of a call, nothing sent twice and the next call back on its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelayProxy } from '../../test/support/delayProxy.js';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { type PtyToPort, ptyToPort } from '../../test/support/ptyToPort.js';
import { SER2NET_MISSING, type Ser2net, startSer2net } from '../../test/support/ser2net.js';
import { SimBoard } from '../sim/index.js';
import type { DeviceError } from './errors.js';
import type { DeviceLink } from './link.js';
import { pyLiteral } from './pyLiteral.js';
import { rfc2217Link } from './rfc2217Link.js';
import { DeviceSession } from './session.js';
import { tcpLink } from './tcpLink.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function failure(promise: Promise<unknown>): Promise<DeviceError> {
  try {
    await promise;
  } catch (error) {
    return error as DeviceError;
  }
  throw new Error('expected the call to fail');
}

/**
 * The board's REPL on a pty, with a tap recording every byte on its way to the board. The pty
 * bridge connects to the tap while ser2net has the pty open; the tap holds the board's TCP port
 * (one host at a time) exactly as long.
 */
class TappedBoard {
  toBoard: Buffer = Buffer.alloc(0);
  private tap: Server | undefined;
  private pty: PtyToPort | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly board: SimBoard,
    readonly path: string,
  ) {}

  static async start(dir: string): Promise<TappedBoard> {
    const board = await SimBoard.start();
    const { repl } = await board.serveTcp();
    const tapped = new TappedBoard(board, join(dir, 'ttyJL-repl'));
    tapped.tap = createServer((host) => {
      const toRepl = connect(repl, '127.0.0.1');
      host.on('data', (chunk: Buffer) => {
        tapped.toBoard = Buffer.concat([tapped.toBoard, chunk]);
        toRepl.write(chunk);
      });
      toRepl.on('data', (chunk: Buffer) => host.write(chunk));
      for (const [one, other] of [
        [host, toRepl],
        [toRepl, host],
      ] as const) {
        tapped.sockets.add(one);
        one.on('error', () => {});
        one.on('close', () => {
          tapped.sockets.delete(one);
          other.destroy();
        });
      }
    });
    await new Promise<void>((listening) => tapped.tap?.listen(0, '127.0.0.1', listening));
    const { port } = tapped.tap.address() as AddressInfo;
    tapped.pty = await ptyToPort(tapped.path, port);
    return tapped;
  }

  async stop(): Promise<void> {
    this.pty?.stop();
    for (const socket of this.sockets) socket.destroy();
    await new Promise((closed) => this.tap?.close(closed));
    await this.board.stop();
  }
}

/** Wraps a link to keep what the session writes. */
function recording(inner: DeviceLink): DeviceLink & { written: () => Buffer } {
  const chunks: Buffer[] = [];
  return {
    get id() {
      return inner.id;
    },
    get address() {
      return inner.address;
    },
    get isOpen() {
      return inner.isOpen;
    },
    get roundTripMs() {
      return inner.roundTripMs;
    },
    open: () => inner.open(),
    close: () => inner.close(),
    onData: (listener) => inner.onData(listener),
    onClose: (listener) => inner.onClose(listener),
    write(bytes) {
      inner.write(bytes);
      chunks.push(Buffer.from(bytes));
    },
    written: () => Buffer.concat(chunks),
  };
}

/** Whether `got` is `sent` with at most one stretch missing (the bytes in flight when a link died). */
function isWrittenWithAGap(got: Buffer, sent: Buffer): boolean {
  let common = 0;
  while (common < got.length && common < sent.length && got[common] === sent[common]) common++;
  const rest = got.subarray(common);
  const resumeAt = sent.length - rest.length;
  return resumeAt >= common && sent.subarray(resumeAt).equals(rest);
}

function count(haystack: Buffer, needle: string): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

describe.skipIf(SER2NET_MISSING !== undefined || PTY_MISSING !== undefined)('a board behind ser2net', () => {
  let dir: string;
  let board: TappedBoard;
  let ser2net: Ser2net;
  let rfcPort: number;
  let rawPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jl-remote-'));
    board = await TappedBoard.start(dir);
    ser2net = await startSer2net([
      { protocol: 'rfc2217', device: board.path },
      { protocol: 'raw', device: board.path },
    ]);
    [rfcPort = 0, rawPort = 0] = ser2net.ports;
  });

  afterAll(async () => {
    await ser2net?.stop();
    await board?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the board receives exactly the bytes the session wrote over RFC 2217, and 0xFF comes back whole', async () => {
    const link = recording(rfc2217Link('127.0.0.1', rfcPort));
    const session = new DeviceSession(link);
    try {
      board.toBoard = Buffer.alloc(0);
      await session.connect();
      expect(await session.call('[1, "two", 3.5]')).toEqual([1, 'two', 3.5]);
      // Raw-paste with the board's flow control, through the exporter's 64-byte buffers.
      const values = Array.from({ length: 2000 }, (_, i) => i);
      expect(await session.callScript(`data = ${pyLiteral(values)}\n_jlh.out(sum(data))`)).toBe(
        (1999 * 2000) / 2,
      );
      // An overrun: Ctrl-C, the traceback, the resync.
      const overrun = await failure(session.exec('import time\ntime.sleep(5)', { timeoutMs: 200 }));
      expect(overrun).toMatchObject({ code: 'timeout', details: { recovery: 'ctrl-c' } });
      // 0xFF from the board (ser2net doubles it on the wire; the link halves it again).
      board.board.faults.garbage('repl', Buffer.from([0xff, 0xff, 0x41, 0xff]));
      await delay(50);
      expect(await session.call('"after 0xff"')).toBe('after 0xff');
      expect(await session.call(pyLiteral('µ → ∞'))).toBe('µ → ∞');
      await delay(100);
      expect(board.toBoard.length).toBeGreaterThan(10_000);
      expect(board.toBoard.equals(link.written())).toBe(true);
    } finally {
      await session.close();
    }
  });

  it('keeps its waits over a slow hop (50 ms each way): connect, paste, an overrun and its recovery', async () => {
    await delay(100);
    const hop = await startDelayProxy(rfcPort, 50);
    const link = rfc2217Link('127.0.0.1', hop.port);
    const session = new DeviceSession(link);
    try {
      await session.connect();
      expect(link.roundTripMs).toBeGreaterThanOrEqual(100);
      expect(await session.call('6 * 7')).toBe(42);
      const values = Array.from({ length: 600 }, (_, i) => i);
      expect(await session.callScript(`data = ${pyLiteral(values)}\n_jlh.out(sum(data))`)).toBe(
        (599 * 600) / 2,
      );
      const overrun = await failure(session.exec('import time\ntime.sleep(5)', { timeoutMs: 300 }));
      expect(overrun).toMatchObject({ code: 'timeout', details: { recovery: 'ctrl-c' } });
      expect(await session.call('"still here"')).toBe('still here');
    } finally {
      await session.close();
      await hop.close();
    }
  });

  it('sizes its waits by the hop it measured: a 12 kB helper and a 12 kB job at 20 ms each way, where the bounds alone are 1 s', async () => {
    await delay(100);
    const hop = await startDelayProxy(rfcPort, 20);
    const link = rfc2217Link('127.0.0.1', hop.port);
    // A bound of 1 s would fail both without the hop's share: a 12 kB paste over a 40 ms round trip
    // takes about 2 s (a round trip per window or two of 128 bytes).
    const session = new DeviceSession(link, { connectTimeoutMs: 1000, ackTimeoutMs: 1000 });
    const entries = Array.from(
      { length: 400 },
      (_, i) => `_jlbig[${i}] = ${pyLiteral(`entry ${i} `.padEnd(20, '.'))}`,
    );
    session.addHelper({ name: '_jlbig', source: `_jlbig = {}\n${entries.join('\n')}\n` });
    try {
      await session.connect();
      expect(link.roundTripMs).toBeGreaterThanOrEqual(40);
      expect(await session.call('len(_jlbig)')).toBe(400);
      const script = `text = ${pyLiteral('jumperless '.repeat(1100))}\n_jlh.out(len(text))`;
      expect(script.length).toBeGreaterThan(12_000);
      expect(await session.callScript(script, { timeoutMs: 1000 })).toBe(12_100);
    } finally {
      await session.close();
      await hop.close();
    }
  });

  it.each([
    ['rfc2217', 'killed'],
    ['rfc2217', 'restarted'],
    ['socket', 'killed'],
  ] as const)(
    'over %s, ser2net %s in the middle of a call: the call says it may have run (not retryable), runs once, and the next call reconnects',
    async (scheme, how) => {
      await delay(100); // ser2net frees the pty a few milliseconds after the last client left
      const link = recording(
        scheme === 'rfc2217' ? rfc2217Link('127.0.0.1', rfcPort) : tcpLink('127.0.0.1', rawPort),
      );
      const session = new DeviceSession(link, { reconnectDelayMs: { initial: 50, max: 400 } });
      try {
        await session.connect();
        await session.exec('hits = 0');
        board.toBoard = Buffer.alloc(0);
        const writtenBefore = link.written().length;
        const marker = `hits += 1  # ${scheme} ${how}`;
        const running = failure(session.exec(`${marker}\nimport time\ntime.sleep(3)`, { timeoutMs: 10_000 }));
        await delay(300);
        await ser2net.kill();
        if (how === 'restarted') await ser2net.start();
        const error = await running;
        // The board had the code: a blind retry would run it twice.
        expect(error).toMatchObject({
          code: 'disconnected',
          retryable: false,
          details: { mayHaveRun: true },
        });
        expect(error.message).toContain(`${link.id} disconnected`);
        expect(error.message).toContain('may have run');
        if (how === 'killed') {
          // While the exporter is away, calls fail fast and say how to wait.
          expect(await failure(session.call('1'))).toMatchObject({
            code: 'disconnected',
            retryable: true,
            message: expect.stringContaining('waitForConnectionMs'),
          });
          await ser2net.start();
        }
        expect(await session.call('hits', { waitForConnectionMs: 15_000 })).toBe(1);
        expect(session.health()).toMatchObject({ connected: true, reconnects: 1 });
        const written = link.written().subarray(writtenBefore);
        expect(count(written, marker)).toBe(1);
        expect(count(board.toBoard, marker)).toBe(1);
        // What reached the board is what the session wrote, in order: the bytes in flight when
        // ser2net died may be lost, none is made up.
        expect(
          isWrittenWithAGap(board.toBoard, written),
          `board got ${JSON.stringify(board.toBoard.toString('latin1'))}`,
        ).toBe(true);
      } finally {
        await session.close();
      }
    },
  );
});
