/**
 * Reboot faults in a loop, as the outside campaign ran them (issue 23: the virtual board's
 * process exited once in about 440): reboots that overlap each other, a reset the board asks for
 * itself (machine.reset()), and a session working all along. The board must end with one VM, not
 * one per reboot (each left running is a thread pool and a MicroPython heap; they piled up until
 * the process died), nothing may reject unhandled, and the board must answer afterwards.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamLink } from '../device/link.js';
import { DeviceSession } from '../device/session.js';
import { SimBoard } from './index.js';

/** Threads of this process (Linux): each VM worker brings several. */
function threads(): number | undefined {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

let board: SimBoard;
let session: DeviceSession;
beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  board = await SimBoard.start();
  session = new DeviceSession(
    streamLink('reboot-loop', { connect: () => board.port('repl'), release: () => {} }),
    {
      reconnectDelayMs: { initial: 20, max: 100 },
    },
  );
  await session.connect();
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await session.close();
  await board.stop();
});

describe('reboot faults in a loop', () => {
  it.skipIf(threads() === undefined)(
    'leave one VM running, reject nothing unhandled, and the board answers (threads from /proc: Linux only)',
    async () => {
      // Settle the thread count of one running VM first.
      await board.faults.reboot();
      await sleep(200);
      const before = threads() as number;
      let stop = false;
      const work = (async () => {
        while (!stop) {
          await session.call('1 + 1', { timeoutMs: 2000 }).catch(() => sleep(10));
        }
      })();
      for (let round = 0; round < 8; round++) {
        // Two faults at once, a third while they run, and the board asking for a reset itself.
        const overlapping = [board.faults.reboot(), board.faults.reboot()];
        await sleep(round * 15);
        overlapping.push(board.faults.reboot());
        void session.call('__import__("machine").reset()', { timeoutMs: 1000 }).catch(() => undefined);
        await Promise.all(overlapping);
      }
      stop = true;
      await work;
      await sleep(500);
      const after = threads() as number;
      // One VM's threads, give or take a few the runtime starts and ends on its own.
      expect(after - before).toBeLessThan(6);
      expect(unhandled).toEqual([]);
      for (let i = 0; i < 50 && session.health().state !== 'ready'; i++) await sleep(100);
      expect(await session.call('6 * 7', { timeoutMs: 5000 })).toBe(42);
    },
    180_000,
  );
});
