/**
 * How much code one warm `dac_set` runs, per path: the source files and functions of `src/` that V8's
 * precise coverage sees execute for one call, after 20 warm-up calls, against the virtual board (its
 * MicroPython runs in a worker, which coverage does not see: the main thread's side of the board is
 * counted, the firmware is not). Issue 22's goal: 15 files or fewer.
 *
 *   npx tsx bench/callPath.ts [tree=.]       # e.g. a checkout of another commit, after npm ci
 *
 * Each path (bench/inProcess.ts) is measured in a process of its own that serves only that path.
 * `CALL_PATH_FILES=1` lists the files.
 */
import { execFileSync } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CallPath, PATHS, serveInProcess } from './inProcess.js';

const TREE = resolve(process.argv[2] ?? '.');
const ONLY = process.argv[3] as CallPath | undefined;
const WARMUP = 20;
const ARGS = { channel: 'DAC1', volts: 1.5 };

if (ONLY === undefined) {
  console.log(`source files and functions of ${TREE}${sep}src that run for one warm dac_set`);
  for (const path of PATHS) {
    process.stdout.write(
      execFileSync(process.execPath, [...process.execArgv, process.argv[1] as string, TREE, path], {
        encoding: 'utf8',
        env: process.env,
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
  }
  process.exit(0);
}

interface Coverage {
  result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
}

const SRC = `${pathToFileURL(resolve(TREE, 'src')).href}/`;
const server = await serveInProcess(TREE, [ONLY]);
const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
for (let i = 0; i < WARMUP; i++) await server.call(ONLY, 'dac_set', ARGS);
await inspector.post('Profiler.takePreciseCoverage'); // resets the counters
await server.call(ONLY, 'dac_set', ARGS);
const { result } = (await inspector.post('Profiler.takePreciseCoverage')) as Coverage;
await inspector.post('Profiler.stopPreciseCoverage');
inspector.disconnect();

const files = new Map<string, number>();
for (const script of result) {
  if (!script.url.startsWith(SRC)) continue;
  const ran = script.functions.filter((fn) => (fn.ranges[0]?.count ?? 0) > 0).length;
  if (ran > 0) files.set(script.url.slice(SRC.length), ran);
}
const functions = [...files.values()].reduce((a, b) => a + b, 0);
const folders = new Map<string, number>();
for (const file of files.keys()) {
  const folder = file.split('/')[0] ?? '';
  folders.set(folder, (folders.get(folder) ?? 0) + 1);
}
const byFolder = [...folders].map(([folder, n]) => `${folder} ${n}`).join(', ');
console.log(
  `  ${ONLY.padEnd(20)} ${String(files.size).padStart(3)} files, ${functions} functions (${byFolder})`,
);
if (process.env.CALL_PATH_FILES) for (const file of [...files.keys()].sort()) console.log(`      ${file}`);
await server.close();
process.exit(0);
