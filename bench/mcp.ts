/**
 * What the MCP layer costs, on one virtual board served over TCP by a process of its own
 * (`jumperless-mcp sim`), so every path crosses the same out-of-process link:
 *
 *   npx tsx bench/mcp.ts [calls per block=300] [blocks=3]
 *
 * - `tools/call power_get` p50 over stdio and over Streamable HTTP (each server a child process
 *   running the real CLI with --device tcp://...), against a bare raw-REPL exec of the very snippet
 *   the tool sends (`_jlh.out(_jlt.power_get())`) from this process; target: at most 1.15x at p50,
 *   and stdio minus bare at most 0.15 ms (issue 12). Paths own the link in turn, in blocks, so drift
 *   hits all alike; each block first makes MCP_BENCH_WARMUP calls (300), since every stdio path is a
 *   fresh process whose hot paths V8 is still compiling after a few dozen.
 * - the floor of the stdio hop (a child that only answers), and what the SDK client adds over a
 *   raw JSON-RPC client; MCP_BENCH_BASE=a/dist/cli/main.js,b/dist/cli/main.js adds other builds,
 *   each over stdio and over HTTP (a 2025 session and 2026-07-28), in the same blocks.
 * - for reference, the dispatch pipeline alone (runTool in-process) against the board call it makes.
 * - cold start: spawn to the first `tools/list` answer, median of 5 (target < 400 ms), through tsx
 *   and, when `npm run build` has been run, from dist/.
 * - `tools/list` size in bytes and estimated tokens (bytes / 4).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CAPABILITIES } from '../src/core/capabilities.js';
import { createDispatcher } from '../src/core/dispatcher.js';
import { runTool } from '../src/core/runTool.js';
import { ToolSubsystem } from '../src/core/toolSubsystem.js';
import { Board, sessionJobs } from '../src/device/board.js';
import type { DeviceLink } from '../src/device/link.js';
import { DeviceSession } from '../src/device/session.js';
import { tcpLink } from '../src/device/tcpLink.js';
import { boardHelper, catalog } from '../src/tools/index.js';

const CALLS = Number(process.argv[2] ?? 300);
const BLOCKS = Number(process.argv[3] ?? 3);
/** Calls before each measured block: V8 is still compiling the server's hot paths after 30. */
const WARMUP = Number(process.env.MCP_BENCH_WARMUP ?? 300);
const ROOT = resolve(import.meta.dirname, '..');
const TSX = [process.execPath, '--import', 'tsx', 'src/cli/main.ts'];
const DIST = resolve(ROOT, 'dist/cli/main.js');
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
/** Other builds' CLIs (dist/cli/main.js, comma-separated) measured in the same blocks over stdio: before/after a change. */
const BASES = (process.env.MCP_BENCH_BASE ?? '').split(',').filter(Boolean);
const SNIPPET = '_jlh.out(_jlt.power_get())';

/** Writes code + Ctrl-D and waits for the end of the reply: the least a client can do. */
class BareRepl {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;

  private constructor(private readonly link: DeviceLink) {
    link.onData((chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      if (this.waiting && this.buffer.indexOf('\x04>') >= 0) {
        this.buffer = Buffer.alloc(0);
        const done = this.waiting;
        this.waiting = undefined;
        done();
      }
    });
  }

  static async open(link: DeviceLink): Promise<BareRepl> {
    await link.open();
    const bare = new BareRepl(link);
    link.write(Buffer.from('\r\x03\x03\x01'));
    await new Promise((done) => setTimeout(done, 150));
    bare.buffer = Buffer.alloc(0);
    return bare;
  }

  exec(code: string): Promise<void> {
    return new Promise((done) => {
      this.waiting = done;
      this.link.write(Buffer.from(`${code}\x04`));
    });
  }
}

const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0;
const median = p50;

async function time(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

async function measure(calls: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) samples.push(await time(run));
  return samples;
}

async function stdioClient(command: string[], args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  const [cmd = '', ...rest] = command;
  await client.connect(
    new StdioClientTransport({ command: cmd, args: [...rest, ...args], cwd: ROOT, env: ENV }),
  );
  return client;
}

async function httpServer(device: string, command = TSX): Promise<{ child: ChildProcess; url: string }> {
  const [cmd = '', ...rest] = command;
  const child = spawn(cmd, [...rest, '--device', device, '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    env: ENV,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((done, fail) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /serving (http:\/\/\S+)/.exec(text);
      if (match?.[1]) done(match[1]);
    });
    child.on('exit', () => fail(new Error(`HTTP server exited: ${text}`)));
  });
  return { child, url };
}

/** The virtual board in a process of its own, as a board is to the server: its REPL port's TCP port. */
async function simProcess(): Promise<{ child: ChildProcess; repl: number }> {
  const [cmd = '', ...rest] = TSX;
  const child = spawn(cmd, [...rest, 'sim', '--tcp', '0'], {
    cwd: ROOT,
    env: ENV,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const repl = await new Promise<number>((done, fail) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /REPL\s+tcp:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (match?.[1]) done(Number(match[1]));
    });
    child.on('exit', () => fail(new Error(`the virtual board exited: ${text}`)));
  });
  return { child, repl };
}

/** A stdio client of a few lines (no SDK): what the server itself adds, without the SDK client's share. */
class RawStdio {
  private buffer = '';
  private waiting: (() => void) | undefined;
  private id = 0;

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      for (let at = this.buffer.indexOf('\n'); at >= 0; at = this.buffer.indexOf('\n')) {
        const message = JSON.parse(this.buffer.slice(0, at)) as { id?: number };
        this.buffer = this.buffer.slice(at + 1);
        if (message.id === this.id) this.waiting?.();
      }
    });
  }

  static async start(command: string[]): Promise<RawStdio> {
    const [cmd = '', ...rest] = command;
    const child = spawn(cmd, rest, { cwd: ROOT, env: ENV, stdio: ['pipe', 'pipe', 'ignore'] });
    const line = new RawStdio(child);
    await line.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '0' },
    });
    child.stdin?.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    return line;
  }

  request(method: string, params: unknown): Promise<void> {
    const id = ++this.id;
    return new Promise((done) => {
      this.waiting = done;
      this.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  call(name: string): Promise<void> {
    return this.request('tools/call', { name, arguments: {} });
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    await new Promise((done) => this.child.once('exit', done));
  }
}

/**
 * The floor of the stdio hop: a child process that answers each JSON-RPC line at once with a line
 * the size of power_get's answer, no MCP and no board, driven as RawStdio drives the server.
 */
const ECHO = `
let pending = '';
const answer = JSON.stringify({ result: { content: [{ type: 'text', text: '{"dac0_volts":3.33,"dac1_volts":0,"top_rail_volts":0,"bottom_rail_volts":0}' }], structuredContent: { dac0_volts: 3.33, dac1_volts: 0, top_rail_volts: 0, bottom_rail_volts: 0 } }, jsonrpc: '2.0' }).slice(0, -1);
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let at = pending.indexOf('\\n'); at >= 0; at = pending.indexOf('\\n')) {
    const { id } = JSON.parse(pending.slice(0, at));
    pending = pending.slice(at + 1);
    if (id !== undefined) process.stdout.write(answer + ',"id":' + JSON.stringify(id) + '}\\n');
  }
});`;

const call = (client: Client) => () => client.callTool({ name: 'power_get', arguments: {} });

async function main(): Promise<void> {
  const board = await simProcess();
  const { repl } = board;
  const device = `tcp://127.0.0.1:${repl}`;
  // Prime the tools' helper once, so the bare loop can run the same snippet.
  const primer = new DeviceSession(tcpLink('127.0.0.1', repl));
  await new Board(sessionJobs(primer, boardHelper)).call('_jlt.power_get()');
  await primer.close();

  // runTool in-process vs the bare board call, on one session (what dispatch itself adds).
  const inProcess = new DeviceSession(tcpLink('127.0.0.1', repl));
  const boardClient = new Board(sessionJobs(inProcess, boardHelper));
  const dispatcher = createDispatcher({
    root: new ToolSubsystem({ name: 'local', tools: catalog, board: boardClient }),
  });
  const operator = { id: 'bench', granted: new Set(CAPABILITIES) };
  const direct: number[] = [];
  const dispatched: number[] = [];
  for (let block = 0; block < BLOCKS; block++) {
    direct.push(...(await measure(CALLS, () => boardClient.call('_jlt.power_get()'))));
    dispatched.push(
      ...(await measure(CALLS, () => runTool(dispatcher, { name: 'power_get', caller: operator }))),
    );
  }
  await inProcess.close();

  const bare: number[] = [];
  const stdio: number[] = [];
  const raw: number[] = [];
  const echo: number[] = [];
  const based: number[][] = [];
  const basedHttp: Array<{ legacy: number[]; modern: number[] }> = [];
  const http: number[] = [];
  let listBytes = 0;
  for (let block = 0; block < BLOCKS; block++) {
    const link = tcpLink('127.0.0.1', repl);
    const repl0 = await BareRepl.open(link);
    bare.push(...(await measure(CALLS, () => repl0.exec(SNIPPET))));
    await link.close();

    const client = await stdioClient(TSX, ['--device', device]);
    listBytes = Buffer.byteLength(JSON.stringify(await client.listTools()));
    stdio.push(...(await measure(CALLS, call(client))));
    await client.close();

    const line = await RawStdio.start([...TSX, '--device', device]);
    raw.push(...(await measure(CALLS, () => line.call('power_get'))));
    await line.close();

    const echoLine = await RawStdio.start([process.execPath, '-e', ECHO]);
    echo.push(...(await measure(CALLS, () => echoLine.call('power_get'))));
    await echoLine.close();

    for (const [at, cli] of BASES.entries()) {
      const other = await stdioClient([process.execPath, cli], ['--device', device]);
      const samples = based[at] ?? [];
      samples.push(...(await measure(CALLS, call(other))));
      based[at] = samples;
      await other.close();
      const server = await httpServer(device, [process.execPath, cli]);
      const both = basedHttp[at] ?? { legacy: [], modern: [] };
      for (const era of ['legacy', 'modern'] as const) {
        const remote = new Client(
          { name: 'bench', version: '0' },
          era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
        );
        await remote.connect(new StreamableHTTPClientTransport(new URL(server.url)));
        both[era].push(...(await measure(CALLS, call(remote))));
        await remote.close();
      }
      basedHttp[at] = both;
      server.child.kill('SIGTERM');
      await new Promise((done) => server.child.once('exit', done));
    }

    const server = await httpServer(device);
    const remote = new Client({ name: 'bench', version: '0' });
    await remote.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    http.push(...(await measure(CALLS, call(remote))));
    await remote.close();
    server.child.kill('SIGTERM');
    await new Promise((done) => server.child.once('exit', done));
  }

  const cold = async (command: string[], args: string[]) => {
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      // Spawn to the answer; closing (the server drains, then shuts its board down) is not timed.
      let client: Client | undefined;
      runs.push(
        await time(async () => {
          client = await stdioClient(command, args);
          await client.listTools();
        }),
      );
      await client?.close();
    }
    return median(runs);
  };
  const coldTsx = await cold(TSX, ['--device', device]);
  const coldSimTsx = await cold(TSX, ['--sim']);
  const built =
    existsSync(DIST) && statSync(DIST).mtimeMs > statSync(resolve(ROOT, 'src/cli/serve.ts')).mtimeMs;
  const coldDist = built ? await cold([process.execPath, DIST], ['--device', device]) : undefined;
  board.child.kill('SIGTERM');

  const f = (ms: number) => `${ms.toFixed(3)} ms`;
  const base = p50(bare);
  console.log(
    `tools/call power_get vs bare raw-REPL exec of ${SNIPPET} (${BLOCKS} blocks x ${CALLS} calls, sim in its own process, over TCP)`,
  );
  console.log(`  bare exec p50   ${f(base)}`);
  console.log(
    `  MCP stdio p50   ${f(p50(stdio))}  ratio ${(p50(stdio) / base).toFixed(2)}x (target <= 1.15x), minus bare ${f(p50(stdio) - base)} (target <= 0.15 ms)`,
  );
  console.log(
    `  stdio, raw JSON-RPC client (no SDK client) p50 ${f(p50(raw))}, minus bare ${f(p50(raw) - base)}`,
  );
  console.log(
    `  floor of the stdio hop: a child that answers each line at once (no MCP, no board), p50 ${f(p50(echo))}; ` +
      `so the server's own share, raw client: ${f(p50(raw) - base - p50(echo))}; the SDK client's: ${f(p50(stdio) - p50(raw))}`,
  );
  for (const [at, cli] of BASES.entries()) {
    const samples = based[at] ?? [];
    console.log(`  stdio, ${cli} p50 ${f(p50(samples))}, minus bare ${f(p50(samples) - base)}`);
    const both = basedHttp[at] ?? { legacy: [], modern: [] };
    console.log(
      `  HTTP 2025 session, ${cli} p50 ${f(p50(both.legacy))}; 2026-07-28 p50 ${f(p50(both.modern))}`,
    );
  }
  console.log(`  MCP HTTP  p50   ${f(p50(http))}  ratio ${(p50(http) / base).toFixed(2)}x`);
  console.log(
    `  dispatch only   ${f(p50(dispatched))} vs board call ${f(p50(direct))}: ratio ${(p50(dispatched) / p50(direct)).toFixed(2)}x`,
  );
  console.log('cold start to the first tools/list answer (median of 5; target < 400 ms)');
  console.log(`  tsx, --device tcp   ${f(coldTsx)}`);
  console.log(`  tsx, --sim          ${f(coldSimTsx)}`);
  console.log(
    `  dist, --device tcp  ${coldDist === undefined ? 'not built or stale (npm run build)' : f(coldDist)}`,
  );
  console.log(`tools/list: ${listBytes} bytes, about ${Math.round(listBytes / 4)} tokens`);
}

await main();
