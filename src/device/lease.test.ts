/**
 * Leases and turns on the real session over the virtual board: a lease's jobs see the board with
 * nobody else's job in between, owners take turns round-robin, and a lease never outlives its
 * caller's signal.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SimBoard } from '../sim/index.js';
import type { DeviceError } from './errors.js';
import { streamLink } from './link.js';
import { DeviceSession } from './session.js';

let board: SimBoard;
let session: DeviceSession;

// One board for the file, a new session for each test.
beforeAll(async () => {
  board = await SimBoard.start();
});

beforeEach(async () => {
  session = new DeviceSession(
    streamLink('lease-sim', { connect: () => board.port('repl'), release: () => {} }),
  );
  await session.exec('log = []');
});

afterEach(async () => {
  await session.close();
});

afterAll(async () => {
  await board.stop();
});

const log = () => session.call<string[]>('log');
const mark = (name: string) => `log.append(${JSON.stringify(name)})`;

async function failure(promise: Promise<unknown>): Promise<DeviceError> {
  try {
    await promise;
  } catch (error) {
    return error as DeviceError;
  }
  throw new Error('expected a failure');
}

describe('a lease', () => {
  it('runs its jobs with no other caller job in between, then lets the others go', async () => {
    const lease = await session.lease({ owner: 'holder' });
    await lease.exec(mark('h1'));
    // Others queue while the holder thinks between its jobs.
    const others = [session.exec(mark('o1'), { owner: 'a' }), session.exec(mark('o2'), { owner: 'b' })];
    await new Promise((resolve) => setTimeout(resolve, 50));
    await lease.exec(mark('h2'));
    expect(session.health().turns).toEqual({ holder: 'holder', waiting: ['a', 'b'] });
    lease.release();
    await Promise.all(others);
    expect(await log()).toEqual(['h1', 'h2', 'o1', 'o2']);
    expect(session.health().turns).toEqual({ holder: null, waiting: [] });
  });

  it('waits its turn behind a lease already held, and refuses jobs after release', async () => {
    const first = await session.lease({ owner: 'first' });
    let secondGranted = false;
    const second = session.lease({ owner: 'second' }).then((lease) => {
      secondGranted = true;
      return lease;
    });
    await first.exec(mark('f'));
    expect(secondGranted).toBe(false);
    first.release();
    const held = await second;
    await held.exec(mark('s'));
    expect(await failure(first.exec(mark('late')))).toMatchObject({ code: 'canceled' });
    held.release();
    expect(await log()).toEqual(['f', 's']);
  });

  it('gives up the wait when its signal aborts, and ends a held lease the same way', async () => {
    const holder = new AbortController();
    const held = await session.lease({ owner: 'held', signal: holder.signal });
    const waiter = new AbortController();
    const waiting = session.lease({ owner: 'waiter', signal: waiter.signal });
    waiter.abort();
    expect(await failure(waiting)).toMatchObject({ code: 'canceled' });
    holder.abort();
    expect(held.released).toBe(true);
    // The board is free again for anyone.
    await session.exec(mark('after'), { owner: 'other' });
    expect(await log()).toEqual(['after']);
  });

  it('is refused with the session closed, while it waits or after', async () => {
    const held = await session.lease({ owner: 'held' });
    const waiting = session.lease({ owner: 'waiter' });
    await session.close();
    expect(await failure(waiting)).toMatchObject({ code: 'disconnected' });
    expect(await failure(held.exec('1'))).toMatchObject({ code: 'disconnected' });
    expect(await failure(session.lease())).toMatchObject({ code: 'disconnected' });
  });
});

describe('turns between callers', () => {
  it('are round-robin: one caller with 30 jobs queued does not hold back another with 3', async () => {
    const done: string[] = [];
    const burst = Array.from({ length: 30 }, (_, i) =>
      session.exec(mark(`b${i}`), { owner: 'burst' }).then(() => done.push(`b${i}`)),
    );
    const few = Array.from({ length: 3 }, (_, i) =>
      session.exec(mark(`f${i}`), { owner: 'few' }).then(() => done.push(`f${i}`)),
    );
    await Promise.all([...burst, ...few]);
    // FIFO would finish the few after all 30; round-robin interleaves them near the front.
    expect(done.indexOf('f2')).toBeLessThan(8);
    expect(done.filter((d) => d.startsWith('b'))).toEqual(Array.from({ length: 30 }, (_, i) => `b${i}`));
    expect(await log()).toEqual(done);
  });
});

describe('garbage on the line with several callers in flight', () => {
  it('fails a job as the link (protocol, retryable), never as the caller code, and never with another job result', async () => {
    const codes = new Map<string, number>();
    let crossed = 0;
    for (let round = 0; round < 23; round++) {
      const jobs = [0, 1, 2, 3].map((i) =>
        session
          .callScript<number>(`import time\ntime.sleep_ms(15)\n_jlh.out(${round * 10 + i})`, {
            owner: `caller${i}`,
          })
          .then(
            (value) => {
              if (value !== round * 10 + i) crossed++;
            },
            (error: DeviceError) => {
              codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
            },
          ),
      );
      // Mid-job, and shaped like the raw REPL's own framing: the end of stdout, a fake error, a prompt.
      await new Promise((resolve) => setTimeout(resolve, 5 + (round % 4) * 12));
      board.faults.garbage('repl', Buffer.from(round % 2 ? '\x04Junk: \xff\x04>' : '\x04\x04>OK'));
      await Promise.all(jobs);
    }
    expect(crossed).toBe(0);
    expect(codes.get('python_error') ?? 0).toBe(0);
    for (const code of codes.keys()) expect(['protocol', 'timeout', 'disconnected']).toContain(code);
    expect(await session.call('"after"')).toBe('after');
  });
});
