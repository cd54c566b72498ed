/**
 * `tools/call` p50 per path, two trees in one process, call by call in turn so load drift hits both
 * alike: a board call (power_get) on the virtual board, over runTool, stdio (in-memory streams) and
 * HTTP 2026-07-28 and 2025 on loopback (bench/inProcess.ts). Issue 22: the loss may be at most 0.3 ms.
 *
 *   npx tsx bench/callTime.ts <before tree> [after tree=.] [calls=500] [blocks=3]
 */
import { resolve } from 'node:path';
import { type CallPath, PATHS, serveInProcess } from './inProcess.js';

const BEFORE = resolve(process.argv[2] ?? '.');
const AFTER = resolve(process.argv[3] ?? '.');
const CALLS = Number(process.argv[4] ?? 500);
const BLOCKS = Number(process.argv[5] ?? 3);
const WARMUP = 300;

const before = await serveInProcess(BEFORE);
const after = await serveInProcess(AFTER);
const samples = new Map<string, number[]>();
const time = async (key: string, run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  const list = samples.get(key) ?? [];
  list.push(performance.now() - started);
  samples.set(key, list);
};
for (let block = 0; block < BLOCKS; block++) {
  for (const path of PATHS) {
    for (let i = 0; i < WARMUP; i++) {
      await before.call(path, 'power_get', {});
      await after.call(path, 'power_get', {});
    }
    for (let i = 0; i < CALLS; i++) {
      await time(`before ${path}`, () => before.call(path, 'power_get', {}));
      await time(`after ${path}`, () => after.call(path, 'power_get', {}));
    }
  }
}
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  `tools/call power_get p50, ${BLOCKS} blocks x ${CALLS} calls, in turn (before ${BEFORE}, after ${AFTER})`,
);
for (const path of PATHS as readonly CallPath[]) {
  const b = p50(samples.get(`before ${path}`) ?? []);
  const a = p50(samples.get(`after ${path}`) ?? []);
  console.log(
    `  ${path.padEnd(20)} before ${b.toFixed(3)} ms  after ${a.toFixed(3)} ms  change ${(a - b >= 0 ? '+' : '') + (a - b).toFixed(3)} ms`,
  );
}
await before.close();
await after.close();
process.exit(0);
