/**
 * `jumperless-mcp exec` as a user runs it, through the process that holds the board (an owner,
 * `jumperless-mcp serve`) against owning the port itself, all in one run: two virtual boards over
 * TCP, one with an owner process and one without, measured in alternation so both see the same
 * machine. Two levels: the whole command (a new node process per exec, what a shell sees) and
 * runExec in this process (the board part alone: open or find the owner, run, close).
 * Run: `npx tsx bench/cliExec.ts` (uses dist/cli/main.js when built, else the sources via tsx).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExec } from '../src/cli/execCommand.js';
import { SimBoard } from '../src/sim/index.js';

const ROUNDS_SPAWNED = Number(process.env.ROUNDS_SPAWNED ?? 12);
const ROUNDS_IN_PROCESS = Number(process.env.ROUNDS_IN_PROCESS ?? 40);

const runtime = mkdtempSync(join(tmpdir(), 'jl-bench-cli-'));
process.env.XDG_RUNTIME_DIR = runtime; // the owners' sockets, away from any real ones
const repo = join(import.meta.dirname, '..');
const built = join(repo, 'dist', 'cli', 'main.js');
const entry = existsSync(built)
  ? { how: 'dist/cli/main.js', args: [built] }
  : {
      how: 'src via tsx (npm run build for the shipped entry)',
      args: ['--import', 'tsx', join(repo, 'src', 'cli', 'main.ts')],
    };

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const p90 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)] as number;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry.args, ...args], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function startOwner(device: string): Promise<ChildProcess> {
  const owner = spawn(process.execPath, [...entry.args, 'serve', '--device', device], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    owner.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('holds')) resolve(owner);
    });
    owner.on('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
  });
}

const [served, alone] = await Promise.all([SimBoard.start(), SimBoard.start()]);
const servedDevice = `tcp://127.0.0.1:${(await served.serveTcp()).repl}`;
const aloneDevice = `tcp://127.0.0.1:${(await alone.serveTcp()).repl}`;
const owner = await startOwner(servedDevice);

const sink = { write: () => true } as unknown as NodeJS.WritableStream;
const CODE = 'print(sum(range(100)))';

async function spawned(device: string): Promise<number> {
  const started = performance.now();
  const result = await cli(['exec', '--device', device, CODE]);
  const ms = performance.now() - started;
  if (result.code !== 0 || result.stdout !== '4950\n') throw new Error(`exec failed: ${result.stderr}`);
  return ms;
}

async function inProcess(device: string): Promise<number> {
  const started = performance.now();
  const code = await runExec(CODE, { device, timeout: '10' }, { stdout: sink, stderr: sink });
  if (code !== 0) throw new Error(`exec failed on ${device}`);
  return performance.now() - started;
}

try {
  // Warm both paths once (the first boot of each board's helpers, the OS file cache).
  await spawned(servedDevice);
  await spawned(aloneDevice);
  const through: number[] = [];
  const own: number[] = [];
  for (let i = 0; i < ROUNDS_SPAWNED; i++) {
    through.push(await spawned(servedDevice));
    own.push(await spawned(aloneDevice));
  }
  const throughIn: number[] = [];
  const ownIn: number[] = [];
  for (let i = 0; i < ROUNDS_IN_PROCESS; i++) {
    throughIn.push(await inProcess(servedDevice));
    ownIn.push(await inProcess(aloneDevice));
  }
  const row = (name: string, a: number[], b: number[]) =>
    `${name.padEnd(34)} through owner p50 ${median(a).toFixed(1).padStart(7)} ms (p90 ${p90(a).toFixed(1)})   own port p50 ${median(b).toFixed(1).padStart(7)} ms (p90 ${p90(b).toFixed(1)})   ratio ${(median(a) / median(b)).toFixed(2)}`;
  process.stdout.write(`jumperless-mcp exec (${entry.how}), virtual board over TCP, "${CODE}"\n`);
  process.stdout.write(`${row(`whole command x${ROUNDS_SPAWNED}`, through, own)}\n`);
  process.stdout.write(`${row(`runExec in process x${ROUNDS_IN_PROCESS}`, throughIn, ownIn)}\n`);
} finally {
  owner.kill('SIGTERM');
  await Promise.all([served.stop(), alone.stop()]);
  rmSync(runtime, { recursive: true, force: true });
}
