/**
 * Cold start: spawn to the first `tools/list` answer over stdio, and on to the first tool result
 * (power_get, right after the list) with the virtual board and with a board on a pseudo-terminal
 * (the virtual board served over a pty, as a real board's serial port is opened), against spawning
 * `node -e 0` to its exit, in the same run (issue 12: goal <= 3x for `--sim`). Runs are interleaved
 * so drift hits every command alike; each figure is a median. A 2025 client says `initialize`
 * first; a 2026-07-28 one `server/discover` (then lists with the `_meta` envelope), or, as the v2
 * SDK's stdio client does on the process it keeps (it discovers on a sibling), lists at once.
 *
 *   npx tsx bench/coldStart.ts [runs=9]
 *
 * The client is a few lines of JSON-RPC, not the SDK client, so only the server's start is timed.
 * The built CLI (dist/) is measured when `npm run build` is newer than src/cli/main.ts. To compare
 * with other builds in the same run, name them: COLD_START_BUILDS=before=/tmp/before/dist/cli/main.js.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SimBoard } from '../src/sim/index.js';
import { PTY_MISSING } from '../test/support/ptyAvailable.js';

const RUNS = Number(process.argv[2] ?? 9);
const ROOT = resolve(import.meta.dirname, '..');
const DIST = resolve(ROOT, 'dist/cli/main.js');
/** Other builds measured in the same run: `name=path/to/main.js,...` (before/after a change). */
const OTHERS = (process.env.COLD_START_BUILDS ?? '')
  .split(',')
  .filter(Boolean)
  .map((item) => item.split('=') as [string, string]);
/** The board sockets of the servers on the pty go here, not into the user's runtime folder. */
const RUNTIME = mkdtempSync(join(tmpdir(), 'jl-cold-start-'));
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', XDG_RUNTIME_DIR: RUNTIME };
/** The virtual board on a pseudo-terminal, opened by each server as a real board's port is. */
const ptySim = PTY_MISSING ? undefined : await SimBoard.start();
const PTY = ptySim ? (await ptySim.servePty(RUNTIME)).repl : undefined;

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
};
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const CALL = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'power_get', arguments: {} } };
const ENVELOPE = {
  _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  },
};
const DISCOVER = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: ENVELOPE };
const MODERN_LIST = { ...LIST, params: ENVELOPE };

/**
 * How a client opens: what it sends first, and what once that is answered (id 1); `list` alone is
 * a list sent at once.
 */
type Opening = 'initialize' | 'discover' | 'list';
const FIRST: Record<Opening, string> = {
  initialize: `${JSON.stringify(INIT)}\n`,
  discover: `${JSON.stringify(DISCOVER)}\n`,
  list: `${JSON.stringify(MODERN_LIST)}\n`,
};
const THEN: Record<Opening, string> = {
  initialize: `${JSON.stringify(INITIALIZED)}\n${JSON.stringify(LIST)}\n`,
  discover: `${JSON.stringify(MODERN_LIST)}\n`,
  list: '',
};

/** Spawn to exit. */
function bare(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { env: ENV, stdio: 'ignore' });
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('exit', () => done(performance.now() - started));
  });
}

/**
 * Spawn to the `tools/list` answer (sent right after `initialize`'s, as a client does), or with
 * `call`, on to the answer of a `power_get` sent right after the list's: when the board is usable.
 */
function toList(
  args: string[],
  env: NodeJS.ProcessEnv = ENV,
  call = false,
  opening: Opening = 'initialize',
): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'ignore'] });
  child.stdin.write(FIRST[opening]);
  return new Promise((done, fail) => {
    let text = '';
    let listed = false;
    let asked = opening === 'list';
    let finished = false;
    // The figure is taken at the answer; the next run starts once this server has let go of its board.
    const finish = () => {
      finished = true;
      const ms = performance.now() - started;
      child.once('exit', () => done(ms));
      child.stdin.end();
      child.kill('SIGTERM');
    };
    child.once('error', fail);
    child.once('exit', () => (finished ? undefined : fail(new Error(`exited before answering: ${text}`))));
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (!asked && text.includes('"id":1')) {
        asked = true;
        child.stdin.write(THEN[opening]);
      }
      if (!listed && /"id":2[,}]/.test(text) && text.includes('{"result":{"tools"')) {
        listed = true;
        if (!call) return finish();
        child.stdin.write(
          `${JSON.stringify(opening === 'initialize' ? CALL : { ...CALL, params: { ...CALL.params, ...ENVELOPE } })}\n`,
        );
      }
      if (listed && call && !finished && /"id":3[,}]/.test(text)) finish();
    });
  });
}

const median = (samples: number[]) =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? Number.NaN;

const built = existsSync(DIST) && statSync(DIST).mtimeMs > statSync(resolve(ROOT, 'src/cli/main.ts')).mtimeMs;
/** Each build: to the list, and to the first result on the virtual board and on the pty. */
const perBuild = (name: string, main: string): Array<[string, () => Promise<number>]> => [
  [`${name} --sim`, () => toList([main, '--sim'])],
  [`${name} first call, sim`, () => toList([main, '--sim'], ENV, true)],
  ...(PTY
    ? ([[`${name} first call, pty`, () => toList([main, '--device', PTY], ENV, true)]] as Array<
        [string, () => Promise<number>]
      >)
    : []),
];
const commands: Array<[string, () => Promise<number>]> = [
  ['node -e 0', bare],
  ...(built
    ? ([
        ...perBuild('dist', DIST),
        // A 2026-07-28 client: discover, then the list; and the list first (the v2 SDK's kept process).
        ['dist 2026, discover', () => toList([DIST, '--sim'], ENV, false, 'discover')],
        ['dist 2026, list first', () => toList([DIST, '--sim'], ENV, false, 'list')],
      ] as Array<[string, () => Promise<number>]>)
    : []),
  ...OTHERS.flatMap(([name, main]) => perBuild(name, main)),
  ['tsx --sim', () => toList(['--import', 'tsx', 'src/cli/main.ts', '--sim'])],
];
const samples = new Map<string, number[]>(commands.map(([name]) => [name, []]));
for (const [, run] of commands) await run(); // warm the file cache
for (let i = 0; i < RUNS; i++) {
  for (const [name, run] of commands) samples.get(name)?.push(await run());
}
const base = median(samples.get('node -e 0') ?? []);
console.log(
  `cold start to the first tools/list answer (first call: to power_get's), median of ${RUNS} (interleaved)`,
);
for (const [name] of commands) {
  const all = samples.get(name) ?? [];
  const m = median(all);
  const range = `${Math.min(...all).toFixed(0)}-${Math.max(...all).toFixed(0)}`;
  console.log(
    `  ${name.padEnd(22)} ${m.toFixed(1).padStart(7)} ms  ${(m / base).toFixed(2)}x  (${range} ms)`,
  );
  if (process.env.COLD_START_SAMPLES) console.log(`    ${all.map((ms) => ms.toFixed(0)).join(' ')}`);
}
if (!built) console.log('  dist: not built or stale (npm run build)');
if (!PTY) console.log(`  pty: ${PTY_MISSING}`);
await ptySim?.stop();
rmSync(RUNTIME, { recursive: true, force: true });
process.exit(0);
