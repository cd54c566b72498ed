/**
 * One board, many clients (issue 10), all figures from one run on the virtual board over a real
 * pty: an `exec` through the owner's board socket against the owner's own (p50 added), fairness
 * between 10 callers each sending a burst (slowest / fastest completion, round-robin against the
 * same load in FIFO order), and 20 pairs in one connect against 20 single connects (board jobs and
 * time). Run: `npx tsx bench/share.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Board, sessionJobs } from '../src/device/board.js';
import { streamLink } from '../src/device/link.js';
import { closeSerial, openSerial } from '../src/device/serialLink.js';
import { DeviceSession } from '../src/device/session.js';
import { SharedBoard } from '../src/device/share/shared.js';
import { SimBoard } from '../src/sim/index.js';
import { connect } from '../src/tools/connections.js';
import { startToolHarness } from '../test/support/toolHarness.js';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const sim = await SimBoard.start();
const dir = mkdtempSync(join(tmpdir(), 'jl-bench-share-'));
const pty = (await sim.servePty(dir)).repl;
let links = 0;
const shared = (client: string) => {
  const board = new SharedBoard({
    id: `serial:${pty}`,
    path: join(dir, 'board.sock'),
    device: pty,
    client,
    openLocal: async () => {
      const session = new DeviceSession(
        streamLink(`bench-${links++}`, { connect: () => openSerial(pty), release: closeSerial }),
      );
      return { jobs: sessionJobs(session), session, close: () => session.close() };
    },
  });
  return Object.assign(board, { board: new Board(board) });
};

// 1. exec through the owner against owning the port, alternating so both see the same machine.
const owner = shared('owner');
await owner.ready();
const client = shared('client');
await client.ready();
for (let i = 0; i < 200; i++) {
  await owner.board.exec('pass');
  await client.board.exec('pass');
}
const own: number[] = [];
const through: number[] = [];
for (let i = 0; i < 2000; i++) {
  let t = performance.now();
  await owner.board.exec('pass');
  own.push(performance.now() - t);
  t = performance.now();
  await client.board.exec('pass');
  through.push(performance.now() - t);
}
const added = median(through) - median(own);

// 2. Fairness: 10 callers each send a burst of 40 jobs, one caller after the other.
async function completions(fair: boolean): Promise<number[]> {
  const started = performance.now();
  const done: number[] = new Array(10).fill(0);
  const jobs: Promise<void>[] = [];
  for (let caller = 0; caller < 10; caller++) {
    for (let j = 0; j < 40; j++) {
      jobs.push(
        owner.board.exec('pass', { owner: fair ? `caller${caller}` : 'everyone' }).then(() => {
          done[caller] = performance.now() - started;
        }),
      );
    }
  }
  await Promise.all(jobs);
  return done;
}
const ratio = (times: number[]) => Math.max(...times) / Math.min(...times);
const fifo = await completions(false);
const roundRobin = await completions(true);
await client.close();
await owner.close();

// 3. 20 pairs in one connect against 20 single connects (the tools' own board jobs counted).
const h = await startToolHarness();
await h.run(connect, { pairs: [[1, 2]] });
const jobsDone = () => h.session.health().jobs.done;
let jobs0 = jobsDone();
let t0 = performance.now();
await h.run(connect, { pairs: Array.from({ length: 20 }, (_, i) => [i + 3, i + 33]) });
const batchMs = performance.now() - t0;
const batchJobs = jobsDone() - jobs0;
jobs0 = jobsDone();
t0 = performance.now();
for (let i = 0; i < 20; i++) await h.run(connect, { pairs: [[i + 3, i + 34]] });
const singleMs = performance.now() - t0;
const singleJobs = jobsDone() - jobs0;
await h.close();
await sim.stop();
rmSync(dir, { recursive: true, force: true });

const ms = (v: number) => `${v.toFixed(3)} ms`;
console.log(`exec p50, owning the port:        ${ms(median(own))}`);
console.log(`exec p50, through the owner:      ${ms(median(through))}`);
console.log(`  added by the owner hop (p50):   ${ms(added)}   (goal <= 0.3 ms)`);
console.log(`10 callers x 40 jobs, slowest/fastest completion:`);
console.log(`  round-robin:                    ${ratio(roundRobin).toFixed(3)}   (goal <= 1.1)`);
console.log(`  same load in FIFO order:        ${ratio(fifo).toFixed(3)}`);
console.log(`connect, 20 pairs in one call:    ${batchJobs} board job(s), ${batchMs.toFixed(1)} ms`);
console.log(`connect, 20 single calls:         ${singleJobs} board jobs, ${singleMs.toFixed(1)} ms`);
console.log(`  time ratio single/batch:        ${(singleMs / batchMs).toFixed(2)}`);
