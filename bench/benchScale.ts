/**
 * A bench of N virtual boards, measured in one run against a single board:
 *
 *   npx tsx bench/benchScale.ts [boards=1,10,50] [calls=200]
 *
 * For each N: the real CLI is started over stdio with `--config` naming N virtual boards, and the
 * SDK client's first `tools/list` answer is timed from the spawn (the baseline: the same for
 * `--sim`, one board, no bench). RSS is the server process's VmRSS right after that answer and
 * again after one call on every board (virtual boards open at their first call). Then `power_get`
 * p50 direct (`--sim` server) against the same tool through the bench (one hop: the aggregator),
 * calls alternating so load drift hits both alike. Goals for 50: first list < 1 s, RSS < 600 MB.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const SIZES = (process.argv[2] ?? '1,10,50').split(',').map(Number);
const CALLS = Number(process.argv[3] ?? 200);
const ROOT = resolve(import.meta.dirname, '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
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
  const direct = await start(['--sim']);
  console.log(
    `baseline: one board (--sim), first tools/list ${direct.firstListMs.toFixed(0)} ms, ${direct.tools.length} tools, RSS ${rssMb(direct.transport.pid ?? undefined)} MB`,
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
      `${String(boards).padStart(3)} boards: first tools/list ${bench.firstListMs.toFixed(0)} ms (${(bench.firstListMs / direct.firstListMs).toFixed(2)}x one board), ${bench.tools.length} tools listed, ` +
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
