/**
 * What the device session costs and how fast it recovers, against the virtual board.
 *
 *   npx tsx bench/session.ts [rounds=4000] [block=100]
 *
 * For each transport (in-process stream, a real pty through `serialport`):
 * - exec round trip p50/p99 of `print(1)` through the session and through a bare raw-REPL loop
 *   on the same link (write code + Ctrl-D, wait for `\x04>`), each owning the link in turn,
 *   alternating in blocks so drift hits both alike; the session may add at most 10% at p50;
 * - throughput: the bare loop (one caller; the protocol cannot pipeline) and the session with
 *   one and with 10 concurrent callers;
 * - recovery: from the deadline of a hung script to the end of the next successful job, for a
 *   sleeping loop, a blocking probe wait and a pure-Python busy loop (which the virtual board
 *   can only end by resetting itself, like a watchdog).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeviceLink, streamLink } from '../src/device/link.js';
import { serialLink } from '../src/device/serialLink.js';
import { DeviceSession } from '../src/device/session.js';
import { SimBoard } from '../src/sim/index.js';

const ROUNDS = Number(process.argv[2] ?? 4000);
const BLOCK = Number(process.argv[3] ?? 100);

/** The least a client can do: no queue, no deadline, no parsing beyond finding the end. */
class BareRepl {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((reply: Buffer) => void) | undefined;

  constructor(private readonly link: DeviceLink) {
    link.onData((chunk) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      const end = this.buffer.indexOf('\x04>');
      if (end >= 0 && this.waiting) {
        const reply = this.buffer.subarray(0, end);
        this.buffer = Buffer.alloc(0);
        const done = this.waiting;
        this.waiting = undefined;
        done(reply);
      }
    });
  }

  static async open(link: DeviceLink): Promise<BareRepl> {
    await link.open();
    const bare = new BareRepl(link);
    link.write(Buffer.from('\r\x03\x03\x01'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    bare.buffer = Buffer.alloc(0);
    return bare;
  }

  exec(code: string): Promise<Buffer> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.link.write(Buffer.from(`${code}\x04`));
    });
  }
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

function summary(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

const ms = (value: number) => `${value.toFixed(3)} ms`;

async function timeIt(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

async function benchTransport(name: string, makeLink: () => DeviceLink): Promise<void> {
  // Each path gets the link to itself in turn (a shared link would show each one the other's
  // replies), alternating in blocks so drift hits both alike.
  const sessionTimes: number[] = [];
  const bareTimes: number[] = [];
  /** p50(session block) / p50(bare block) for each pair of neighbouring blocks. */
  const pairRatios: number[] = [];
  let bareRate = 0;
  let oneRate = 0;
  let tenRate = 0;
  const jobs = 2000;
  for (let done = 0; done < ROUNDS; done += BLOCK) {
    const bareLink = makeLink();
    const bare = await BareRepl.open(bareLink);
    for (let i = 0; i < 50; i++) await bare.exec('print(1)');
    for (let i = 0; i < BLOCK; i++) bareTimes.push(await timeIt(() => bare.exec('print(1)')));
    if (done === 0) {
      bareRate =
        jobs /
        ((await timeIt(async () => {
          for (let i = 0; i < jobs; i++) await bare.exec('print(1)');
        })) /
          1000);
    }
    await bareLink.close();

    const session = new DeviceSession(makeLink());
    await session.connect();
    for (let i = 0; i < 50; i++) await session.exec('print(1)');
    for (let i = 0; i < BLOCK; i++) sessionTimes.push(await timeIt(() => session.exec('print(1)')));
    pairRatios.push(summary(sessionTimes.slice(-BLOCK)).p50 / summary(bareTimes.slice(-BLOCK)).p50);
    if (done === 0) {
      oneRate =
        jobs /
        ((await timeIt(async () => {
          for (let i = 0; i < jobs; i++) await session.exec('print(1)');
        })) /
          1000);
      tenRate =
        jobs /
        ((await timeIt(() =>
          Promise.all(
            Array.from({ length: 10 }, async () => {
              for (let i = 0; i < jobs / 10; i++) await session.exec('print(1)');
            }),
          ),
        )) /
          1000);
    }
    await session.close();
  }
  const s = summary(sessionTimes);
  const b = summary(bareTimes);

  const session = new DeviceSession(makeLink());
  await session.connect();
  const recovery = async (code: string, timeoutMs: number) => {
    const start = performance.now();
    let step = '?';
    await session.exec(code, { timeoutMs }).catch((error: { details?: { recovery?: string } }) => {
      step = error.details?.recovery ?? '?';
    });
    await session.exec('print(1)');
    return { ms: performance.now() - start - timeoutMs, step };
  };
  const sleeping = await recovery('import time\nwhile True:\n    time.sleep(0.01)', 200);
  const probe = await recovery('probe_read()', 200);
  const busy = await recovery('while True:\n    pass', 200);

  console.log(`\n## ${name} (${ROUNDS} round trips each, interleaved in blocks of ${BLOCK})`);
  console.log('| print(1) round trip | p50 | p99 |');
  console.log('|---|---|---|');
  console.log(`| bare raw REPL | ${ms(b.p50)} | ${ms(b.p99)} |`);
  console.log(`| session.exec | ${ms(s.p50)} | ${ms(s.p99)} |`);
  console.log(`| session / bare | ${(s.p50 / b.p50).toFixed(3)} | ${(s.p99 / b.p99).toFixed(3)} |`);
  console.log(
    `\nthroughput (${jobs} jobs): bare ${bareRate.toFixed(0)}/s, ` +
      `session 1 caller ${oneRate.toFixed(0)}/s, session 10 callers ${tenRate.toFixed(0)}/s`,
  );
  console.log('\n| hung script (200 ms deadline) | deadline -> next good job | recovered by |');
  console.log('|---|---|---|');
  console.log(`| time.sleep loop | ${ms(sleeping.ms)} | ${sleeping.step} |`);
  console.log(`| blocking probe_read() | ${ms(probe.ms)} | ${probe.step} |`);
  console.log(`| pure-Python busy loop | ${ms(busy.ms)} | ${busy.step} |`);
  // Neighbouring blocks share the machine's load of the moment; their ratios' median is the
  // steadiest figure on a busy machine.
  const pairs = summary(pairRatios).p50;
  const verdict = s.p50 <= b.p50 * 1.1 ? 'within' : 'OVER';
  console.log(
    `\nsession overhead at p50: ${((s.p50 / b.p50 - 1) * 100).toFixed(1)}% (${verdict} the 10% budget); ` +
      `median of the ${pairRatios.length} block-pair ratios: ${((pairs - 1) * 100).toFixed(1)}%`,
  );
  await session.close();
}

const board = await SimBoard.start();
const dir = mkdtempSync(join(tmpdir(), 'jl-bench-'));
try {
  await benchTransport('in-process virtual board', () =>
    streamLink('sim', { connect: () => board.port('repl'), release: () => {} }),
  );
  const paths = await board.servePty(dir);
  await benchTransport('pty + serialport (socat)', () => serialLink(paths.repl));
} finally {
  await board.stop();
  rmSync(dir, { recursive: true, force: true });
}
