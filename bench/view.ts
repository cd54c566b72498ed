/**
 * The board in view (issue 25): how long a change takes from a tool call's end to an open page's
 * event stream (p50, p99), what 10 open pages add to a tool call (same-run ratio against none),
 * and the bytes of the page, the app and one look. The virtual board over its ptys, as a real
 * board's serial ports are opened: once with its telemetry port (CDC3) for the view, once without
 * (the view then reads at the REPL, yielding to every caller). Over HTTP.
 *
 * Each part runs in a process of its own, as at a real bench: the virtual board
 * (`jumperless-mcp sim --pty`; a real board answers its telemetry port on its own MCU), the server
 * (bench/viewServer.ts), the 10 pages (bench/viewPages.ts, as a browser's tabs) and the MCP client
 * (this process, which times the calls). They shared one process until 2026-12: measured call by
 * call, with the view's work deferred until the call has answered, the server's time from request
 * to response no longer changed with 10 pages, but the time from the response written to the
 * client having it rose 0.5 ms p50 (1.6 ms with the board and the pages already out): the work a
 * look starts ran on the event loop the measuring client reads on, which a real client's is not.
 * What is left is what the parts cost and a shared machine's cores: each run prints the load and
 * the CPU each process spends a call (/proc), and `VIEW_PROF=<dir>` keeps CPU profiles of them.
 *
 *   npx tsx bench/view.ts [calls]
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { viewPageDocument } from '../src/core/view.js';
import { viewDocument } from '../src/tools/viewPage.js';

const CALLS = Number(process.argv[2] ?? 40);
const ROOT = resolve(import.meta.dirname, '..');
// VIEW_PROF=<dir>: CPU profiles of the board, the server and the pages (node --cpu-prof).
const TSX = [
  '--import',
  'tsx',
  ...(process.env.VIEW_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.VIEW_PROF}`] : []),
];
const dir = mkdtempSync(join(tmpdir(), 'jl-bench-view-'));
const children: ChildProcess[] = [];

/** Starts a process of the bench and resolves its stdout once `ready` matches it. */
async function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; text: string }> {
  const child = spawn(process.execPath, [...TSX, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let text = '';
  await new Promise<void>((done, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (ready.test(text)) done();
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited ${code}: ${text}`)));
  });
  return { child, text };
}

/**
 * CPU time (user + system, ms) a process and its descendants have used, from /proc (Linux; 10 ms
 * ticks, fine summed over a phase): what each part spends on a call, whatever the machine's load.
 */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return 0;
  let ms = 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    ms = ((Number(fields[11]) || 0) + (Number(fields[12]) || 0)) * 10;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const kids = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const kid of kids ? kids.split(' ') : []) ms += cpuMs(Number(kid));
    }
  } catch {
    // The process ended meanwhile.
  }
  return ms;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (1, 5, 15 min)`,
);
const board = await start(['src/cli/main.ts', 'sim', '--pty', join(dir, 'pty')], /Try:/);
const port = (role: string) =>
  board.text
    .split('\n')
    .find((line) => line.includes(role))
    ?.trim()
    .split(/\s+/)
    .at(-1) ?? '';
const ptys = { repl: port('CDC2'), backchannel: port('CDC3') };

try {
  for (const [name, telemetry] of [
    ['with CDC3', ptys.backchannel],
    ['without CDC3', 'off'],
  ] as const) {
    await measure(name, telemetry);
  }
  console.log(
    `bytes: page ${Buffer.byteLength(viewPageDocument())}, app ${Buffer.byteLength(viewDocument('app'))}`,
  );
} finally {
  for (const child of children) await stop(child);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

/** 10 open pages in their own process; `next()` resolves with the time the next look reaches one. */
async function openPages(events: string) {
  const pages = fork(join(ROOT, 'bench/viewPages.ts'), [events, '10'], {
    cwd: ROOT,
    execArgv: TSX,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiters: Array<(arrival: [number, number]) => void> = [];
  await new Promise<void>((ready, fail) => {
    pages.on('message', (message: { t: string; at?: number; bytes?: number }) => {
      if (message.t === 'ready') ready();
      else waiters.shift()?.([message.at as number, message.bytes as number]);
    });
    pages.once('exit', (code) => fail(new Error(`the pages exited ${code}`)));
  });
  return {
    pid: pages.pid,
    next: () => new Promise<[number, number]>((arrived) => waiters.push(arrived)),
    close: async () => {
      const exited = once(pages, 'exit');
      pages.send('close');
      await exited;
    },
  };
}

async function measure(name: string, telemetry: string): Promise<void> {
  const server = await start(['bench/viewServer.ts', ptys.repl, telemetry], /^url \S+\n/m);
  const url = /^url (\S+)$/m.exec(server.text)?.[1] as string;
  const base = url.replace(/\/mcp$/, '');
  const client = new Client({ name: 'bench-view', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = (volts: number) => client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts } });
  await call(1);

  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
  };

  async function timeCalls(n: number): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await call(1 + (i % 2));
      times.push(performance.now() - t);
      // A person does not call back to back: let a page's read of the change end first.
      await new Promise((r) => setTimeout(r, 150));
    }
    return times;
  }

  // Tool calls with no page open, then with 10, interleaved in rounds so the machine's load is shared.
  const alone: number[] = [];
  const watched: number[] = [];
  // CPU ms spent while the calls ran, per part: [no page, 10 pages].
  const cpu: Record<'server' | 'board' | 'pages' | 'client', [number, number]> = {
    server: [0, 0],
    board: [0, 0],
    pages: [0, 0],
    client: [0, 0],
  };
  const parts = (pagesPid?: number) => ({
    server: cpuMs(server.child.pid),
    board: cpuMs(board.child.pid),
    pages: cpuMs(pagesPid),
    client: (({ user, system }) => (user + system) / 1000)(process.cpuUsage()),
  });
  async function timed(phase: 0 | 1, n: number, into: number[], pagesPid?: number): Promise<void> {
    const before = parts(pagesPid);
    into.push(...(await timeCalls(n)));
    const after = parts(pagesPid);
    for (const key of Object.keys(cpu) as Array<keyof typeof cpu>)
      cpu[key][phase] += after[key] - before[key];
  }
  const latency: number[] = [];
  let lookBytes = 0;
  // More, shorter rounds follow a shared machine's changing load more closely.
  const ROUNDS = 5;
  const perRound = Math.max(1, Math.round(CALLS / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    await timed(0, perRound, alone);
    const pages = await openPages(`${base}/events`);
    await timed(1, perRound, watched, pages.pid);
    for (let i = 0; i < perRound; i++) {
      const arrived = pages.next();
      await call(3 + (i % 2));
      const ended = performance.timeOrigin + performance.now();
      const [at, bytes] = await arrived;
      latency.push(at - ended);
      lookBytes = bytes;
      await new Promise((r) => setTimeout(r, 150));
    }
    await pages.close();
  }

  const p50 = (xs: number[]) => pct(xs, 50).toFixed(1);
  console.log(`${name} (the view reads ${telemetry === 'off' ? 'at the REPL, yielding' : telemetry}):`);
  console.log(
    `  tool call (dac_set) p50: no page ${p50(alone)} ms, 10 pages ${p50(watched)} ms, ratio ${(pct(watched, 50) / pct(alone, 50)).toFixed(3)}; p99 ${pct(alone, 99).toFixed(1)} / ${pct(watched, 99).toFixed(1)} ms`,
  );
  console.log(
    `  update latency, call end -> page stream: p50 ${p50(latency)} ms, p99 ${pct(latency, 99).toFixed(1)} ms (n=${latency.length}); one look event ${lookBytes} bytes`,
  );
  const each = (ms: number, n: number) => (ms / n).toFixed(1);
  console.log(
    `  CPU a call (ms, /proc, user+system), no page -> 10 pages: ${(
      Object.keys(cpu) as Array<keyof typeof cpu>
    )
      .map(
        (key) =>
          `${key} ${each(cpu[key][0] as number, alone.length)} -> ${each(cpu[key][1] as number, watched.length)}`,
      )
      .join(', ')}`,
  );
  await client.close();
  await stop(server.child);
}
