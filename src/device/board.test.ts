/**
 * The board as a call holds it, on the real session over the virtual board: an atomic hold keeps
 * every other caller's job out from its first job to its release, a non-atomic one takes a turn
 * per job, the firmware list is fetched inside the hold that asks for it, and what tools saw is
 * forgotten at a reset.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimBoard } from '../sim/index.js';
import { Board, sessionJobs } from './board.js';
import { streamLink } from './link.js';
import { DeviceSession } from './session.js';

let sim: SimBoard;
let session: DeviceSession;
let board: Board;

beforeEach(async () => {
  sim = await SimBoard.start();
  session = new DeviceSession(
    streamLink('board-sim', { connect: () => sim.port('repl'), release: () => {} }),
  );
  board = new Board(sessionJobs(session));
  await board.exec('log = []');
});

afterEach(async () => {
  await session.close();
  await sim.stop();
});

const mark = (name: string) => `log.append(${JSON.stringify(name)})`;
const signal = () => new AbortController().signal;

describe('a held board', () => {
  it('atomic: no other caller runs between its jobs, from the first to the release', async () => {
    const held = board.hold({ signal: signal(), owner: 'holder', atomic: true });
    await held.board.exec(mark('h1'));
    const other = board.exec(mark('o1'), { owner: 'other' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await held.board.exec(mark('h2'));
    held.release();
    await other;
    expect(await board.call('log')).toEqual(['h1', 'h2', 'o1']);
  });

  it('not atomic: each job takes its own turn, so another caller gets in between', async () => {
    const held = board.hold({ signal: signal(), owner: 'waiter', atomic: false });
    await held.board.exec(mark('w1'));
    await board.exec(mark('o1'), { owner: 'other' });
    await held.board.exec(mark('w2'));
    held.release();
    expect(await board.call('log')).toEqual(['w1', 'o1', 'w2']);
  });

  it("carries the call's signal to every job: aborting stops the running one", async () => {
    const controller = new AbortController();
    const held = board.hold({ signal: controller.signal, owner: 'holder', atomic: true });
    const running = held.board.exec('import time\ntime.sleep(20)', { timeoutMs: 30_000 });
    setTimeout(() => controller.abort(), 200);
    await expect(running).rejects.toMatchObject({ code: 'canceled' });
    held.release();
    expect(await board.call('"free"')).toBe('free');
  });

  it('takes an ordinary turn for a job made after the release (clean-up after a cancel)', async () => {
    const held = board.hold({ signal: signal(), owner: 'holder', atomic: true });
    await held.board.exec(mark('h1'));
    held.release();
    await held.board.exec(mark('after'));
    expect(await board.call('log')).toEqual(['h1', 'after']);
  });

  it('fetches the firmware list inside its lease even while another caller fetches it behind that lease', async () => {
    const held = board.hold({ signal: signal(), owner: 'holder', atomic: true });
    await held.board.call('0'); // the lease is held from here
    const outside = board.firmwareFunctions({ owner: 'other' });
    const inside = await Promise.race([
      held.board.firmwareFunctions(),
      new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 3000)),
    ]);
    expect(inside).not.toBe('stuck');
    expect((inside as ReadonlySet<string>).has('connect')).toBe(true);
    held.release();
    expect((await outside).has('connect')).toBe(true);
  });
});

describe('what tools saw of the board', () => {
  it('is shared by every hold and forgotten at a reset', async () => {
    const held = board.hold({ signal: signal(), owner: 'holder', atomic: true });
    held.board.seen.set('bridges', [[1, 2]]);
    held.release();
    expect(board.seen.get('bridges')).toEqual([[1, 2]]);
    const functions = await board.firmwareFunctions();
    await board.exec('import sys\nsys.exit()');
    expect(board.seen.size).toBe(0);
    expect(await board.firmwareFunctions()).not.toBe(functions);
  });
});
