/**
 * A bench of N virtual boards, measured in one run against a single board:
 *
 *   npx tsx bench/benchScale.ts [boards=1,10,50] [calls=200]
 *
 * For each N: the real CLI is started over stdio with `--config` naming N virtual boards, and its
 * first `tools/list` answer is timed from the spawn, as raw JSON-RPC lines (the SDK client would
 * add its own validation of 3000 tools); the baseline is the same for `--sim`, one board. RSS is the server process's VmRSS right after that answer and
 * again after one call on every board (virtual boards open at their first call). Then `power_get`
 * p50 direct (`--sim` server) against the same tool through the bench (one hop: the aggregator),
 * calls alternating so load drift hits both alike. Goals for 50: first list < 1 s, RSS < 600 MB.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const SIZES = (process.argv[2] ?? '1,10,50').split(',').map(Number);
const CALLS = Number(process.argv[3] ?? 200);
const ROOT = resolve(import.meta.dirname, '..');
/** The built CLI when there is one (`npm run build`), as an installed user runs it; else through tsx. */
const BUILT = join(ROOT, 'dist', 'cli', 'main.js');
const CLI = existsSync(BUILT) ? [BUILT] : ['--import', 'tsx', 'src/cli/main.ts'];
const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));

const p50 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0;

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

interface Started {
  client: Client;
  transport: StdioClientTransport;
  firstListMs: number;
  tools: string[];
}

/** Spawn to the first `tools/list` answer, over raw stdio lines; the process is stopped after. */
async function firstList(args: string[]): Promise<{ ms: number; tools: number }> {
  const begun = performance.now();
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const tools = await new Promise<number>((done) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (message.id === 2) done(message.result?.tools?.length ?? 0);
      }
    });
  });
  const ms = performance.now() - begun;
  child.kill('SIGTERM');
  return { ms, tools };
}

async function start(args: string[]): Promise<Started> {
  const begun = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, ...args],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-scale', version: '0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return { client, transport, firstListMs: performance.now() - begun, tools: tools.map((t) => t.name) };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const begun = performance.now();
  await run();
  return performance.now() - begun;
}

async function main(): Promise<void> {
  console.log(`server: node ${CLI.join(' ')}`);
  const direct = await start(['--sim']);
  const single = await firstList(['--sim']);
  console.log(
    `baseline: one board (--sim), first tools/list ${single.ms.toFixed(0)} ms, ${single.tools} tools, RSS ${rssMb(direct.transport.pid ?? undefined)} MB`,
  );
  for (const boards of SIZES) {
    const names = Array.from({ length: boards }, (_, i) => `board-${i + 1}`);
    const file = join(dir, `bench-${boards}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        name: 'bench',
        children: names.map((name) => ({ name, type: 'jumperless', device: 'sim' })),
      }),
    );
    const first = await firstList(['--config', file]);
    const bench = await start(['--config', file]);
    const pid = bench.transport.pid ?? undefined;
    const rssAtList = rssMb(pid);
    const opened = await timed(() =>
      Promise.all(names.map((name) => bench.client.callTool({ name: `${name}_power_get`, arguments: {} }))),
    );
    const rssOpen = rssMb(pid);
    const viaBench: number[] = [];
    const viaDirect: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      viaDirect.push(await timed(() => direct.client.callTool({ name: 'power_get', arguments: {} })));
      viaBench.push(await timed(() => bench.client.callTool({ name: 'board-1_power_get', arguments: {} })));
    }
    console.log(
      `${String(boards).padStart(3)} boards: first tools/list ${first.ms.toFixed(0)} ms (${(first.ms / single.ms).toFixed(2)}x one board), ${first.tools} tools listed, ` +
        `RSS ${rssAtList} MB at the first list, ${rssOpen} MB with every board open (opening all: ${opened.toFixed(0)} ms); ` +
        `power_get p50 direct ${p50(viaDirect).toFixed(3)} ms, through the bench ${p50(viaBench).toFixed(3)} ms (+${(p50(viaBench) - p50(viaDirect)).toFixed(3)} ms)`,
    );
    await bench.client.close();
  }
  await direct.client.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
