/**
 * A lease held over the board socket by a process that stops answering (a CLI stopped with
 * Ctrl-Z mid-tool: its socket stays open, silent) ends within a bounded time, the owner's other
 * callers then get the board, and the stopped process, once it runs again, is told what happened.
 * The owner serves a virtual board from this process; the client is a real second process that
 * gets SIGSTOP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimBoard } from '../../sim/index.js';
import { Board, sessionJobs } from '../board.js';
import { streamLink } from '../link.js';
import { DeviceSession } from '../session.js';
import { type BoardShareServer, serveBoard } from './owner.js';
import { RemoteBoard } from './remote.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

let sim: SimBoard;
let session: DeviceSession;
let board: Board;
let server: BoardShareServer;
let dir: string;
const logged: string[] = [];

beforeAll(async () => {
  sim = await SimBoard.start();
  session = new DeviceSession(
    streamLink('lease-owner', { connect: () => sim.port('repl'), release: () => {} }),
  );
  board = new Board(sessionJobs(session));
  await session.connect();
  dir = mkdtempSync(join(tmpdir(), 'jl-lease-'));
  server = await serveBoard(board.jobs, {
    path: join(dir, 'board.sock'),
    device: 'sim',
    log: (line) => logged.push(line),
    aliveMs: 200,
    silenceMs: 1500,
  });
});

afterAll(async () => {
  await server.close();
  await session.close();
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A second process that takes a lease through the socket, runs a job in it, says LEASED, then waits for a line on stdin. */
function leaseHolder(): { child: ChildProcess; lines: string[]; next(pattern: RegExp): Promise<string> } {
  const code = `
const { RemoteBoard } = await import(${JSON.stringify(join(ROOT, 'src/device/share/remote.ts'))});
const remote = await RemoteBoard.connect('sim', { path: ${JSON.stringify(join(dir, 'board.sock'))}, client: 'stopped-cli', onLost: (e) => console.log('LOST ' + e.message) });
const lease = await remote.lease('cli');
await lease.run('exec', 'held = 1', {});
console.log('LEASED');
process.stdin.once('data', async () => {
  try {
    await lease.run('exec', 'held = 2', {});
    console.log('RAN');
  } catch (error) {
    console.log('FAILED ' + error.code + ': ' + error.message);
  }
  lease.release();
  remote.close();
  process.exit(0);
});
`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: Array<{ pattern: RegExp; resolve(line: string): void }> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of waiting.splice(0)) {
        if (w.pattern.test(line)) w.resolve(line);
        else waiting.push(w);
      }
    }
  });
  return {
    child,
    lines,
    next: (pattern) =>
      new Promise((done) => {
        const seen = lines.find((line) => pattern.test(line));
        if (seen) done(seen);
        else waiting.push({ pattern, resolve: done });
      }),
  };
}

describe('a lease whose process stops answering', () => {
  it('ends within the silence limit; the others proceed; the process is told when it runs again', async () => {
    const holder = leaseHolder();
    try {
      await holder.next(/^LEASED$/);
      holder.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      // The owner's own caller waits behind the lease, then gets the board.
      expect(await board.call('2 + 2', { owner: 'local', signal: AbortSignal.timeout(10_000) })).toBe(4);
      const waited = Date.now() - stoppedAt;
      expect(waited).toBeGreaterThanOrEqual(1000);
      expect(waited).toBeLessThan(6000);
      expect(logged.join('\n')).toMatch(/stopped-cli.*no sign of life for 1\.5 s.*lease ended/);
      holder.child.kill('SIGCONT');
      holder.child.stdin?.write('go\n');
      const said = await holder.next(/^(RAN|FAILED|LOST)/);
      expect(said).toMatch(/^FAILED canceled: .*no sign of life.*lease was ended/);
      // Nothing of the stopped call ran after its lease ended.
      expect(await board.call('held')).toBe(1);
    } finally {
      holder.child.kill('SIGCONT');
      holder.child.kill('SIGKILL');
    }
  }, 60_000);

  it('is kept as long as its process runs, however long it holds the board', async () => {
    const remote = await RemoteBoard.connect('sim', {
      path: join(dir, 'board.sock'),
      client: 'live-cli',
      onLost: () => undefined,
    });
    try {
      const lease = await remote.lease('live');
      await lease.run('exec', 'kept = 1', {});
      let localDone = false;
      const local = board.call('kept', { owner: 'local' }).then((value) => {
        localDone = true;
        return value;
      });
      // Three times the silence limit, quiet but alive: the lease holds, the local caller waits.
      await new Promise((resolve) => setTimeout(resolve, 4500));
      expect(localDone).toBe(false);
      await lease.run('exec', 'kept = 2', {});
      lease.release();
      expect(await local).toBe(2);
    } finally {
      remote.close();
    }
  }, 30_000);
});
