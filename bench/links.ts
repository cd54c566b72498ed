/**
 * A board on another machine: what the network link costs and what a dropped exporter loses.
 *
 *   npx tsx bench/links.ts [calls per block=200] [blocks=5] [drops=10]
 *
 * Needs ser2net (Debian's package) and a pty bridge (socat or python3); says so and stops without.
 *
 * - Tool-call p50/p90 (`power_get` through runTool, the same pipeline an MCP call takes) over a
 *   virtual board reached by: TCP (the simulator's own port), a pty opened with serialport, and
 *   that pty exported by ser2net as RFC 2217 (`rfc2217://`) and raw TCP (`socket://`), with
 *   ser2net's defaults and with `chardelay: false`. One board per path, all sessions open, blocks
 *   in turn so drift hits all alike; ratios against tcp:// from the same run.
 * - Dropped exporter: a client makes calls (each increments a counter on the board under its own
 *   id, then sleeps 100 ms) and retries a retryable failure once the board is back, while ser2net
 *   is killed mid-call and started again `drops` times. Counts the calls that failed, whether each
 *   failure was retryable, the calls lost (failed for good), and the calls that ran twice (a retry
 *   of a call the board had already taken); and the time from ser2net's restart to the next answer.
 * - A slow hop (a delay proxy in front of ser2net's RFC 2217 port, 0 to 40 ms each way): connect
 *   (which primes the helpers through raw-paste), tool-call p50, a 9 kB raw-paste, an overrun's
 *   recovery: which of the session's waits assume a local port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAPABILITIES } from '../src/core/capabilities.js';
import { createDispatcher } from '../src/core/dispatcher.js';
import { runTool } from '../src/core/runTool.js';
import { ToolSubsystem } from '../src/core/toolSubsystem.js';
import { Board, sessionJobs } from '../src/device/board.js';
import { isDeviceError } from '../src/device/errors.js';
import type { DeviceLink } from '../src/device/link.js';
import { pyLiteral } from '../src/device/pyLiteral.js';
import { rfc2217Link } from '../src/device/rfc2217Link.js';
import { serialLink } from '../src/device/serialLink.js';
import { DeviceSession } from '../src/device/session.js';
import { tcpLink } from '../src/device/tcpLink.js';
import { SimBoard } from '../src/sim/index.js';
import { boardHelper, catalog } from '../src/tools/index.js';
import { startDelayProxy } from '../test/support/delayProxy.js';
import { PTY_MISSING } from '../test/support/ptyAvailable.js';
import { SER2NET_MISSING, type Ser2net, startSer2net } from '../test/support/ser2net.js';

const CALLS = Number(process.argv[2] ?? 200);
const BLOCKS = Number(process.argv[3] ?? 5);
const DROPS = Number(process.argv[4] ?? 10);
const WARMUP = 100;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const operator = { id: 'bench', granted: new Set(CAPABILITIES) };

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

interface Path {
  name: string;
  session: DeviceSession;
  call: () => Promise<unknown>;
  samples: number[];
}

/** A session and the `power_get` tool call over `link`. */
async function path(name: string, link: DeviceLink): Promise<Path> {
  const session = new DeviceSession(link);
  await session.connect();
  const dispatcher = createDispatcher({
    root: new ToolSubsystem({
      name: 'local',
      tools: catalog,
      board: new Board(sessionJobs(session, boardHelper)),
    }),
  });
  const call = async () => {
    const result = await runTool(dispatcher, { name: 'power_get', caller: operator });
    if ('isError' in result && result.isError) throw new Error(`power_get failed over ${name}`);
  };
  for (let i = 0; i < WARMUP; i++) await call();
  return { name, session, call, samples: [] };
}

async function latency(ser2netPorts: Ser2net[], boards: SimBoard[], dir: string): Promise<void> {
  const paths: Path[] = [];
  const board = async () => {
    const made = await SimBoard.start();
    boards.push(made);
    return made;
  };
  const tcpBoard = await board();
  paths.push(await path('tcp://', tcpLink('127.0.0.1', (await tcpBoard.serveTcp()).repl)));
  const ptyBoard = await board();
  paths.push(await path('pty', serialLink((await ptyBoard.servePty(join(dir, 'pty'))).repl)));
  // ser2net's defaults, then what docs/lab.md configures: Nagle off (tcp(nodelay)) and no wait
  // for more bytes from the board before sending (chardelay: false).
  for (const tuned of [false, true]) {
    for (const protocol of ['rfc2217', 'raw'] as const) {
      const exported = await board();
      const device = (await exported.servePty(join(dir, `${protocol}-${tuned}`))).repl;
      const ser2net = await startSer2net([
        { protocol, device, nodelay: tuned, options: tuned ? { chardelay: false } : {} },
      ]);
      ser2netPorts.push(ser2net);
      const [port = 0] = ser2net.ports;
      const name = `${protocol === 'rfc2217' ? 'rfc2217://' : 'socket://'} ${tuned ? 'nodelay, no chardelay' : 'ser2net defaults'}`;
      paths.push(
        await path(
          name,
          protocol === 'rfc2217' ? rfc2217Link('127.0.0.1', port) : tcpLink('127.0.0.1', port),
        ),
      );
    }
  }
  for (let block = 0; block < BLOCKS; block++) {
    for (const one of paths) {
      for (let i = 0; i < CALLS; i++) {
        const started = performance.now();
        await one.call();
        one.samples.push(performance.now() - started);
      }
    }
  }
  const base = quantile(paths[0]?.samples ?? [], 0.5);
  process.stdout.write(`\ntool call power_get, ${BLOCKS} blocks x ${CALLS} calls per path, same run:\n`);
  for (const one of paths) {
    const p50 = quantile(one.samples, 0.5);
    const rtt = one.session.link.roundTripMs;
    process.stdout.write(
      `  ${one.name.padEnd(28)} p50 ${ms(p50).padStart(9)}  p90 ${ms(quantile(one.samples, 0.9)).padStart(9)}  ${(p50 / base).toFixed(2)}x tcp://${rtt === undefined ? '' : `  (link round trip at open ${ms(rtt)})`}\n`,
    );
  }
  for (const one of paths) await one.session.close();
}

async function drops(
  scheme: 'rfc2217' | 'socket',
  dir: string,
  boards: SimBoard[],
  exporters: Ser2net[],
): Promise<void> {
  const board = await SimBoard.start();
  boards.push(board);
  const device = (await board.servePty(join(dir, `drops-${scheme}`))).repl;
  const ser2net = await startSer2net([
    {
      protocol: scheme === 'rfc2217' ? 'rfc2217' : 'raw',
      device,
      nodelay: true,
      options: { chardelay: false },
    },
  ]);
  exporters.push(ser2net);
  const [port = 0] = ser2net.ports;
  const link = scheme === 'rfc2217' ? rfc2217Link('127.0.0.1', port) : tcpLink('127.0.0.1', port);
  const session = new DeviceSession(link, { reconnectDelayMs: { initial: 50, max: 500 } });
  await session.connect();
  await session.exec('_bench_runs = {}');
  let failed = 0;
  let notRetryable = 0;
  /** Failed saying the board may have run them; of those, how many had (read back). */
  let mayHaveRun = 0;
  let hadRun = 0;
  let lost = 0;
  let calls = 0;
  const messages = new Set<string>();
  const backAfter: number[] = [];
  let restartedAt: number | undefined;
  let stop = false;
  /** When the call in flight was handed to the session, if one is. */
  let callStarted: number | undefined;
  let answered = 0;

  const client = (async () => {
    for (let id = 0; !stop; id++) {
      calls++;
      const code = `_bench_runs[${id}] = _bench_runs.get(${id}, 0) + 1\nimport time\ntime.sleep(0.1)`;
      for (let attempt = 0; ; attempt++) {
        try {
          callStarted = performance.now();
          await session.exec(code, { waitForConnectionMs: 20_000 });
          callStarted = undefined;
          answered++;
          if (restartedAt !== undefined) {
            backAfter.push(performance.now() - restartedAt);
            restartedAt = undefined;
          }
          break;
        } catch (error) {
          callStarted = undefined;
          if (attempt === 0) failed++;
          messages.add(
            error instanceof Error
              ? error.message.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/, '<time>')
              : String(error),
          );
          if (isDeviceError(error) && error.details.mayHaveRun === true) {
            // What the error asks of a client: read back whether it ran before sending it again.
            mayHaveRun++;
            const ran = await session
              .call<number>(`_bench_runs.get(${id}, 0)`, { waitForConnectionMs: 20_000 })
              .catch(() => undefined);
            if (ran === undefined) {
              lost++;
              break;
            }
            if (ran > 0) {
              hadRun++;
              answered++;
              if (restartedAt !== undefined) {
                backAfter.push(performance.now() - restartedAt);
                restartedAt = undefined;
              }
              break;
            }
            continue;
          }
          if (!isDeviceError(error) || !error.retryable) {
            notRetryable++;
            lost++;
            break;
          }
          if (attempt >= 5) {
            lost++;
            break;
          }
        }
      }
    }
  })();

  for (let drop = 0; drop < DROPS; drop++) {
    // Kill it inside a call: 30-80 ms into one (the board sleeps 100 ms in each).
    const target = 30 + Math.floor(Math.random() * 50);
    while (callStarted === undefined || performance.now() - callStarted < target) await delay(2);
    await ser2net.kill();
    await delay(200);
    await ser2net.start();
    restartedAt = performance.now();
    const before = answered;
    while (answered === before) await delay(10);
  }
  stop = true;
  await client;
  const runs = (await session.call('list(_bench_runs.values())')) as number[];
  const twice = runs.filter((n) => n > 1).length;
  const never = calls - runs.length;
  process.stdout.write(
    `\n${scheme}://, ser2net killed in the middle of a call and restarted, ${DROPS} times: ${calls} calls, ${failed} failed (${mayHaveRun} saying the board may have run them, of which ${hadRun} had when read back; ${notRetryable} other failures not retryable), ${lost} lost after retrying, ${twice} ran twice because the client retried a call the board had already run, ${never} never ran; first answer ${ms(quantile(backAfter, 0.5))} p50 after the restart (max ${ms(Math.max(...backAfter))})\n`,
  );
  for (const message of messages) process.stdout.write(`  failure: ${message}\n`);
  await session.close();
  await ser2net.stop();
}

async function slowHop(dir: string, boards: SimBoard[], exporters: Ser2net[]): Promise<void> {
  const board = await SimBoard.start();
  boards.push(board);
  const device = (await board.servePty(join(dir, 'slow'))).repl;
  const ser2net = await startSer2net([
    { protocol: 'rfc2217', device, nodelay: true, options: { chardelay: false } },
  ]);
  exporters.push(ser2net);
  const [port = 0] = ser2net.ports;
  process.stdout.write('\nrfc2217:// (nodelay, no chardelay) behind a delay proxy:\n');
  for (const oneWay of [0, 5, 10, 20, 40]) {
    const hop = await startDelayProxy(port, oneWay);
    const link = rfc2217Link('127.0.0.1', hop.port);
    const session = new DeviceSession(link);
    const said: string[] = [];
    const step = async (what: string, run: () => Promise<string | undefined>) => {
      const started = performance.now();
      try {
        const note = await run();
        said.push(`${what} ${ms(performance.now() - started)}${note ? ` ${note}` : ''}`);
        return true;
      } catch (error) {
        said.push(
          `${what} FAILED after ${ms(performance.now() - started)}: ${error instanceof Error ? error.message : String(error)}`,
        );
        return false;
      }
    };
    try {
      const dispatcher = createDispatcher({
        root: new ToolSubsystem({
          name: 'local',
          tools: catalog,
          board: new Board(sessionJobs(session, boardHelper)),
        }),
      });
      const toolCall = async () => {
        const result = await runTool(dispatcher, { name: 'power_get', caller: operator });
        if ('isError' in result && result.isError) throw new Error(JSON.stringify(result.structuredContent));
      };
      // The board client is made first, so connecting also primes the tools' 16.5 kB helper.
      (await step('connect and prime the helpers', async () => {
        await session.connect();
        return `(link round trip ${ms(link.roundTripMs ?? Number.NaN)})`;
      })) &&
        (await step('30 tool calls:', async () => {
          const samples: number[] = [];
          for (let i = 0; i < 30; i++) {
            const started = performance.now();
            await toolCall();
            samples.push(performance.now() - started);
          }
          return `p50 ${ms(quantile(samples, 0.5))}`;
        })) &&
        (await step('9 kB raw-paste', async () => {
          const values = Array.from({ length: 2000 }, (_, i) => i);
          await session.callScript(`data = ${pyLiteral(values)}\n_jlh.out(sum(data))`, { timeoutMs: 60_000 });
          return undefined;
        })) &&
        (await step('overrun (300 ms deadline) and the next call', async () => {
          let recovery = '';
          try {
            await session.exec('import time\ntime.sleep(5)', { timeoutMs: 300 });
          } catch (error) {
            const details = isDeviceError(error) ? error.details : {};
            recovery = `recovered by ${String(details.recovery)} in ${String(details.recoveryMs)} ms`;
          }
          await session.call('1');
          return recovery;
        }));
    } finally {
      process.stdout.write(`  ${String(oneWay).padStart(3)} ms each way: ${said.join('; ')}\n`);
      await session.close();
      await hop.close();
      await delay(100);
    }
  }
  await ser2net.stop();
}

async function main(): Promise<void> {
  const missing = SER2NET_MISSING ?? PTY_MISSING;
  if (missing) {
    process.stdout.write(`bench/links.ts cannot run here: ${missing}\n`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'jl-bench-links-'));
  const boards: SimBoard[] = [];
  const exporters: Ser2net[] = [];
  try {
    await latency(exporters, boards, dir);
    for (const exporter of exporters.splice(0)) await exporter.stop();
    await drops('rfc2217', dir, boards, exporters);
    await drops('socket', dir, boards, exporters);
    await slowHop(dir, boards, exporters);
  } finally {
    for (const exporter of exporters) await exporter.stop();
    for (const board of boards) await board.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
