/**
 * One owner per board, in one process over a real pseudo-terminal (socat), with the serial port's
 * own lock deciding who owns: the first SharedBoard opens the port and serves it, the second
 * works through it; leases hold across the socket; the owner going away hands the board over;
 * a socket left by a crashed owner is replaced. The two-process version is test/e2e/share.test.ts.
 */

import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PTY_MISSING } from '../../../test/support/ptyAvailable.js';
import { SimBoard } from '../../sim/index.js';
import { Board, sessionJobs } from '../board.js';
import { encodeFrame, FrameDecoder } from '../frames.js';
import { streamLink } from '../link.js';
import { closeSerial, openSerial } from '../serialLink.js';
import { DeviceSession } from '../session.js';
import { SHARE_PROTOCOL } from './protocol.js';
import { type LocalBoard, SharedBoard } from './shared.js';

let sim: SimBoard;
let dir: string;
let ptyPath: string;
let boards: Shared[] = [];
let socketPath: string;

beforeAll(async () => {
  sim = await SimBoard.start();
  dir = mkdtempSync(join(tmpdir(), 'jl-share-'));
  if (!PTY_MISSING) ptyPath = (await sim.servePty(dir)).repl;
});

afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

let serial = 0;
/** The pty under a link id of its own, as another process would have it (the port lock decides, not the in-process owner map). */
const ptyLink = (id: string) => streamLink(id, { connect: () => openSerial(ptyPath), release: closeSerial });
afterEach(async () => {
  for (const board of boards) await board.close();
  boards = [];
});

/** A SharedBoard, and the Board tools would use over it. */
type Shared = SharedBoard & { board: Board };

function shared(client: string): Shared {
  socketPath ??= join(dir, 'board.sock');
  const board = new SharedBoard({
    id: `serial:${ptyPath}`,
    path: socketPath,
    device: ptyPath,
    client,
    claimMs: 3000,
    openLocal: async (): Promise<LocalBoard> => {
      // A link id of its own per open, as two processes would have: the port's lock decides.
      const session = new DeviceSession(ptyLink(`pty-${serial++}`));
      return { jobs: sessionJobs(session), session, close: () => session.close() };
    },
  }) as Shared;
  board.board = new Board(board);
  boards.push(board);
  return board;
}

describe.skipIf(PTY_MISSING)('one owner per board', () => {
  it('serves the board to a second process, whose jobs run on the owner session', async () => {
    const owner = shared('first');
    await owner.ready();
    expect(owner.role).toBe('owner');
    const client = shared('second');
    expect(await client.board.call('1 + 1')).toBe(2);
    expect(client.role).toBe('client');
    const before = owner.session?.health().jobs.done ?? 0;
    await client.board.exec('x = 41');
    expect(await client.board.call('x + 1')).toBe(42);
    expect((owner.session?.health().jobs.done ?? 0) - before).toBe(2);
    const health = await client.board.health();
    expect(health.sharing).toMatchObject({
      role: 'client',
      owner: { pid: process.pid, socket: socketPath },
      clients: [{ client: 'second', pid: process.pid }],
    });
    expect((await owner.board.health()).sharing?.role).toBe('owner');
  });

  it('holds a lease across the socket: the owner own jobs wait until it is released', async () => {
    const owner = shared('first');
    await owner.ready();
    const client = shared('second');
    await client.board.exec('log = []');
    const lease = await client.lease('remote-caller');
    await lease.run('exec', 'log.append("r1")', {});
    const local = owner.board.exec('log.append("o1")', { owner: 'local-caller' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await lease.run('exec', 'log.append("r2")', {});
    lease.release();
    await local;
    expect(await owner.board.call('log')).toEqual(['r1', 'r2', 'o1']);
  });

  it("keeps a caller's board lease at the owner: taken through one process, in force for all after that process is gone", async () => {
    const owner = shared('first');
    await owner.ready();
    const replica = shared('replica');
    expect(await replica.board.call('1')).toBe(1);
    expect(replica.role).toBe('client');
    const { lease } = await replica.board.boardLease({ action: 'take', holder: 'http:tok_a', ttlMs: 60_000 });
    expect(lease?.holder).toBe('http:tok_a');
    await replica.close(); // a gateway replica dies: the lease lives on with the owner
    const other = shared('other');
    const call = (owner: string, mutates: boolean) =>
      other.board.hold({ signal: new AbortController().signal, owner, atomic: true, mutates });
    const refused = call('http:tok_b', true);
    await expect(refused.board.exec('lease_test = 1')).rejects.toMatchObject({
      code: 'busy',
      details: { leasedTo: 'http:tok_a', until: lease?.until },
    });
    refused.release();
    const reader = call('http:tok_b', false);
    expect(await reader.board.call('"lease_test" in globals()')).toBe(false);
    reader.release();
    const holder = call('http:tok_a', true);
    await holder.board.exec('lease_test = 1');
    holder.release();
    expect((await other.board.health()).lease).toMatchObject({ holder: 'http:tok_a', until: lease?.until });
    expect(await owner.board.boardLease({ action: 'release', holder: 'http:tok_a' })).toEqual({});
  });

  it("keeps an outside lease's hold at the owner: presented through a replica, a newer lease of the name ends it for every process", async () => {
    const owner = shared('first');
    await owner.ready();
    const replica = shared('replica');
    expect(await replica.board.call('1')).toBe(1);
    expect(replica.role).toBe('client');
    const lease = (id: string) => ({
      key: 'jumpstarter_lease',
      name: 'bench-3',
      lease: id,
      until: '2099-01-01T00:00:00.000Z',
    });
    const call = (on: Shared, owner: string, mutates: boolean, outside?: ReturnType<typeof lease>) =>
      on.board.hold({
        signal: new AbortController().signal,
        owner,
        atomic: true,
        mutates,
        ...(outside ? { outside } : {}),
      });
    // Lease A's holder reads through the replica: that is enough to hold the board.
    const a = call(replica, 'http:token:tok_a', false, lease('a'));
    expect(await a.board.call('2')).toBe(2);
    a.release();
    await replica.close();
    const other = shared('other');
    const refused = call(other, 'http:token:tok_b', true);
    await expect(refused.board.exec('outside_test = 1')).rejects.toMatchObject({
      code: 'busy',
      details: { leasedTo: 'jumpstarter_lease=bench-3/a', until: '2099-01-01T00:00:00.000Z' },
    });
    refused.release();
    // Lease B of the same exporter takes the board; A is refused from then on, in every process.
    const b = call(other, 'http:token:tok_c', true, lease('b'));
    await b.board.exec('outside_test = 2');
    b.release();
    const late = call(owner, 'http:token:tok_a', true, lease('a'));
    await expect(late.board.exec('outside_test = 3')).rejects.toMatchObject({
      code: 'busy',
      details: { leasedTo: 'jumpstarter_lease=bench-3/b', ended: 'jumpstarter_lease=bench-3/a' },
    });
    late.release();
    expect(await owner.board.call('outside_test')).toBe(2);
    expect(
      await owner.board.boardLease({ action: 'release', holder: 'jumpstarter_lease=bench-3/b' }),
    ).toEqual({});
  });

  it('stops a job when its caller cancels through the socket, and the board is free again', async () => {
    const owner = shared('first');
    await owner.ready();
    const client = shared('second');
    await client.board.call('0');
    const controller = new AbortController();
    const running = client.board.exec('import time\ntime.sleep(20)', {
      signal: controller.signal,
      timeoutMs: 30_000,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(running).rejects.toMatchObject({ code: 'canceled' });
    expect(await client.board.call('"free"')).toBe('free');
    expect(owner.session?.health().interrupts).toBeGreaterThan(0);
  });

  it('hands the board to the process working through it within 2 s when the owner goes', async () => {
    const owner = shared('first');
    await owner.ready();
    const client = shared('second');
    await client.board.call('0');
    const gone = Date.now();
    await owner.close();
    for (let i = 0; client.role !== 'owner' && i < 100; i++) await new Promise((r) => setTimeout(r, 20));
    const tookMs = Date.now() - gone;
    expect(client.role).toBe('owner');
    expect(tookMs).toBeLessThan(2000);
    expect(await client.board.call('"mine"')).toBe('mine');
    // The next process finds the new owner.
    const third = shared('third');
    expect(await third.board.call('2 * 3')).toBe(6);
    expect(third.role).toBe('client');
  });

  it('replaces a socket a crashed owner left behind', async () => {
    const path = join(dir, 'board.sock');
    rmSync(path, { force: true });
    // A process that listens and dies without cleaning up leaves a socket file nobody serves.
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(path)).toBe(true);
    const board = shared('after-crash');
    expect(await board.board.call('3')).toBe(3);
    expect(board.role).toBe('owner');
    // And it serves there now.
    const client = shared('client');
    expect(await client.board.call('4')).toBe(4);
    expect(client.role).toBe('client');
  });
});

describe.skipIf(PTY_MISSING)('the port lock', () => {
  it('is what decides: a second session on the pty is refused as busy', async () => {
    const a = new DeviceSession(ptyLink('lock-a'));
    const b = new DeviceSession(ptyLink('lock-b'));
    try {
      await a.connect();
      await expect(b.connect()).rejects.toMatchObject({ code: 'busy' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

/**
 * Another user's process listening at the board's socket name, answering every job as the board
 * would (with a value of its choosing): what issue 23 found when the socket folder was not checked.
 */
async function squatter(path: string): Promise<Server> {
  const server = createServer((socket) => {
    const decoder = new FrameDecoder();
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      for (const message of decoder.push(chunk).messages as Array<{ type: string }>) {
        const answer =
          message.type === 'hello'
            ? {
                type: 'welcome',
                protocol: SHARE_PROTOCOL,
                owner: { pid: 1, device: 'fake', socket: path, since: new Date().toISOString() },
              }
            : { type: 'done', value: 666 };
        socket.write(encodeFrame(answer));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

describe('a board socket another user could have planted', () => {
  const victim = (path: string) =>
    new SharedBoard({
      id: 'serial:/dev/victim',
      path,
      device: '/dev/victim',
      client: 'victim',
      claimMs: 500,
      openLocal: async () => {
        throw new Error('the victim must not get this far');
      },
    });

  it('is refused in a folder other users can write, and no job reaches it', async () => {
    const folder = join(dir, 'open-folder');
    mkdirSync(folder, { mode: 0o700 });
    const path = join(folder, 'jumperless-board-x.sock');
    const fake = await squatter(path);
    chmodSync(folder, 0o777);
    const board = victim(path);
    try {
      await expect(board.run('call', '1 + 1', {})).rejects.toThrow(/can be written by other users/);
    } finally {
      await board.close();
      await new Promise((resolve) => fake.close(resolve));
    }
  });

  it.skipIf(process.getuid?.() !== 0)(
    'is refused when the socket belongs to another uid (needs root for chown)',
    async () => {
      const path = join(dir, 'jumperless-board-y.sock');
      const fake = await squatter(path);
      chownSync(path, 4242, 4242);
      const board = victim(path);
      try {
        await expect(board.run('call', '1 + 1', {})).rejects.toThrow(/belongs to uid 4242, not to you/);
      } finally {
        await board.close();
        await new Promise((resolve) => fake.close(resolve));
      }
    },
  );
});
