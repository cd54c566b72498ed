/**
 * The session against the virtual board over each transport a user can have: the in-process
 * stream, TCP, a real pseudo-terminal opened with `serialport` (socat), and that pty exported by
 * Debian's ser2net as a lab would, over RFC 2217 (`rfc2217://`) and raw TCP (`socket://`).
 * Same suite on each, so a transport cannot quietly behave differently. Run from two files
 * (src/device/sessionTransports*.test.ts) so that the suite's two workers share the transports.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceError } from '../../src/device/errors.js';
import { type DeviceLink, streamLink } from '../../src/device/link.js';
import { pyLiteral } from '../../src/device/pyLiteral.js';
import { rfc2217Link } from '../../src/device/rfc2217Link.js';
import { serialLink } from '../../src/device/serialLink.js';
import { DeviceSession } from '../../src/device/session.js';
import { tcpLink } from '../../src/device/tcpLink.js';
import { SimBoard } from '../../src/sim/index.js';
import { PTY_MISSING } from './ptyAvailable.js';
import { SER2NET_MISSING, type Ser2net, startSer2net } from './ser2net.js';

export type Transport = 'in-process' | 'tcp' | 'pty' | 'rfc2217' | 'socket';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wraps a link to count what the session writes (e.g. raw-paste requests). */
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
    open: () => inner.open(),
    close: () => inner.close(),
    onData: (listener) => inner.onData(listener),
    onClose: (listener) => inner.onClose(listener),
    write(bytes) {
      chunks.push(Buffer.from(bytes));
      inner.write(bytes);
    },
    written: () => Buffer.concat(chunks),
  };
}

async function failure(promise: Promise<unknown>): Promise<DeviceError> {
  try {
    await promise;
  } catch (error) {
    return error as DeviceError;
  }
  throw new Error('expected the job to fail');
}

/** ser2net exports the board's pty, so it needs both (each says why it is missing, on stderr). */
export const OVER_SER2NET: Transport[] =
  PTY_MISSING === undefined && SER2NET_MISSING === undefined ? ['rfc2217', 'socket'] : [];

/** The session suite over each of `transports`, one virtual board each. */
export function describeSessionOver(transports: Transport[]): void {
  describe.each<Transport>(transports)('session over %s', (transport) => {
    let board: SimBoard;
    let ptyDir: string;
    let ser2net: Ser2net | undefined;
    let makeLink: () => DeviceLink;
    let session: DeviceSession;
    let link: ReturnType<typeof recording>;

    beforeAll(async () => {
      board = await SimBoard.start();
      if (transport === 'in-process') {
        makeLink = () => streamLink('sim', { connect: () => board.port('repl'), release: () => {} });
      } else if (transport === 'tcp') {
        const ports = await board.serveTcp();
        makeLink = () => tcpLink('127.0.0.1', ports.repl);
      } else {
        ptyDir = mkdtempSync(join(tmpdir(), 'jl-pty-'));
        const paths = await board.servePty(ptyDir);
        if (transport === 'pty') {
          makeLink = () => serialLink(paths.repl);
        } else {
          const exporter = await startSer2net([
            { protocol: transport === 'rfc2217' ? 'rfc2217' : 'raw', device: paths.repl },
          ]);
          ser2net = exporter;
          const [port = 0] = exporter.ports;
          makeLink = () =>
            transport === 'rfc2217' ? rfc2217Link('127.0.0.1', port) : tcpLink('127.0.0.1', port);
        }
      }
      link = recording(makeLink());
      session = new DeviceSession(link, { reconnectDelayMs: { initial: 50, max: 500 } });
      await session.connect();
    });

    afterEach(async () => {
      if (!board.plugged) await board.faults.replug();
    });

    afterAll(async () => {
      await session.close();
      await ser2net?.stop();
      await board.stop();
      if (ptyDir) rmSync(ptyDir, { recursive: true, force: true });
    });

    it('runs code and returns stdout, LF-only', async () => {
      const result = await session.exec('for i in range(3):\n    print(i)');
      expect(result).toMatchObject({ stdout: '0\n1\n2\n', stderr: '', truncated: false });
    });

    it('returns values as JSON through the helper', async () => {
      expect(await session.call('{"a": [1, 2.5, None, True], "b": "µ"}')).toEqual({
        a: [1, 2.5, null, true],
        b: 'µ',
      });
    });

    it('reports Python exceptions with type, message and traceback, and carries on', async () => {
      const error = await failure(session.exec('print("before")\n1/0'));
      expect(error.code).toBe('python_error');
      expect(error.details).toMatchObject({
        type: 'ZeroDivisionError',
        pythonMessage: 'divide by zero',
        stdout: 'before\n',
      });
      expect(error.details.traceback).toContain('Traceback (most recent call last)');
      expect(await session.call('1 + 1')).toBe(2);
    });

    it('interrupts a loop that overruns its deadline and runs the next job', async () => {
      const error = await failure(
        session.exec('import time\nwhile True:\n    time.sleep(0.01)', { timeoutMs: 200 }),
      );
      expect(error.code).toBe('timeout');
      expect(error.details).toMatchObject({
        recovery: 'ctrl-c',
        started: true,
        interrupted: 'import time (+2 lines)',
      });
      expect(error.details.traceback).toContain('KeyboardInterrupt');
      expect(await session.call('"still here"')).toBe('still here');
    });

    it('interrupts a blocking probe wait', async () => {
      const error = await failure(session.exec('probe_read()', { timeoutMs: 200 }));
      expect(error).toMatchObject({ code: 'timeout', details: { recovery: 'ctrl-c' } });
      expect(await session.call('2 * 21')).toBe(42);
    });

    it('sends big code through raw-paste', async () => {
      const before = link.written().length;
      const values = Array.from({ length: 2000 }, (_, i) => i);
      const code = `data = ${pyLiteral(values)}\n_jlh.out(sum(data))`;
      expect(code.length).toBeGreaterThan(8000);
      expect(await session.callScript(code)).toBe((1999 * 2000) / 2);
      expect(link.written().subarray(before).includes(Buffer.from('\x05A\x01'))).toBe(true);
    });

    it('survives garbage on the line between and during jobs', async () => {
      board.faults.garbage('repl');
      // Even bytes shaped like a whole reply, once they have arrived, are not taken for one.
      board.faults.garbage('repl', Buffer.from('\x04>OK\x04\x04>raw REPL; CTRL-B to exit\r\n>\x00\xff'));
      await delay(50);
      expect(await session.call('6 * 7')).toBe(42);
      const during = session.exec('import time\ntime.sleep(0.2)\nprint("done")');
      await delay(50);
      board.faults.garbage('repl', Buffer.from('garbage \x01\x02 OK \x04 more'));
      await during.catch(() => {}); // this one may see the garbage; the next must not
      expect(await session.call('"clean"')).toBe('clean');
    });

    it('keeps 1000 jobs from 10 concurrent callers apart', async () => {
      const caller = async (c: number) => {
        for (let j = 0; j < 100; j++) {
          const payload = { c, j, text: `caller ${c} job ${j} ${'é'.repeat(j % 4)}` };
          expect(await session.call(pyLiteral(payload))).toEqual(payload);
        }
      };
      await Promise.all(Array.from({ length: 10 }, (_, c) => caller(c)));
    });

    it('cancels a queued job without running it', async () => {
      await session.exec('ran = 0');
      const first = session.exec('import time\ntime.sleep(0.3)');
      const controller = new AbortController();
      const second = session.exec('ran = 1', { signal: controller.signal });
      controller.abort();
      expect(await failure(second)).toMatchObject({ code: 'canceled' });
      await first;
      expect(await session.call('ran')).toBe(0);
    });

    it('interrupts a running job on cancel', async () => {
      const controller = new AbortController();
      const job = session.exec('import time\ntime.sleep(10)', { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      expect(await failure(job)).toMatchObject({ code: 'canceled', details: { recovery: 'ctrl-c' } });
      expect(await session.call('3')).toBe(3);
    });

    it('fails the running job on unplug, fails fast while away, and comes back on replug', async () => {
      const failed = failure(session.exec('import time\ntime.sleep(5)'));
      await delay(100);
      await board.faults.unplug();
      expect(await failed).toMatchObject({ code: 'disconnected' });
      expect(await failure(session.call('1'))).toMatchObject({
        code: 'disconnected',
        message: expect.stringContaining('waitForConnectionMs'),
      });
      const waiting = session.call('"back"', { waitForConnectionMs: 15_000 });
      await delay(200);
      await board.faults.replug();
      expect(await waiting).toBe('back');
      expect(session.health()).toMatchObject({ connected: true, reconnects: 1 });
    });

    it('recovers from a reboot in the middle of a job', async () => {
      await session.exec('marker = 1');
      // Observe the failure before rebooting: with the banner, the job fails during the reboot.
      const failed = failure(session.exec('import time\ntime.sleep(3)', { timeoutMs: 1500 }));
      await delay(100);
      await board.faults.reboot();
      const error = await failed;
      // A board that prints its banner is caught at once; one that does not, at the deadline.
      if (error.code === 'timeout') expect(error.details.recovery).toBe('board-reset');
      else expect(error).toMatchObject({ code: 'disconnected', details: { reset: true } });
      expect(await session.call('"marker" in globals()')).toBe(false);
      expect(await session.call('1 + 2')).toBe(3);
    });

    it('reports health', () => {
      const health = session.health();
      expect(health).toMatchObject({ state: 'ready', connected: true, firmware: '5.7.11.0' });
      expect(health.micropython).toMatch(/^1\.\d+/);
      expect(health.jobs.done).toBeGreaterThan(1000);
      expect(health.jobs.failed).toBeGreaterThan(0);
      expect(health.interrupts).toBeGreaterThan(2);
      expect(health.latencyMs.samples).toBeGreaterThan(100);
      expect(health.latencyMs.p99).toBeGreaterThanOrEqual(health.latencyMs.p50);
      expect(health.lastGoodAt).toBeDefined();
    });
  });
}
