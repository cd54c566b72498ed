/**
 * Virtual board figures (issue: foundation and the virtual V5): raw-REPL execs per second in-process
 * and over a real pty, sim start time, and the memory one sim adds. Run: `npm run bench:sim`
 * (add `--dist` to measure the compiled build, after `npm run build`).
 */
import type { Duplex } from 'node:stream';
import { SerialPort } from 'serialport';

type SimModule = typeof import('../src/sim/index.js');
const fromDist = process.argv.includes('--dist');
const distPath = '../dist/sim/index.js';
const { SimBoard }: SimModule = fromDist ? await import(distPath) : await import('../src/sim/index.js');

/** Runs `count` trivial raw-REPL execs back to back on a stream; returns execs per second. */
async function execRate(stream: Duplex, count: number): Promise<number> {
  let pending = '';
  let wake: (() => void) | undefined;
  stream.on('data', (data: Buffer) => {
    pending += data.toString('latin1');
    wake?.();
  });
  const until = async (suffix: string) => {
    while (!pending.endsWith(suffix)) await new Promise<void>((r) => (wake = r));
    pending = '';
  };
  stream.write('\r\x03\x03\x01');
  await until('raw REPL; CTRL-B to exit\r\n>');
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    stream.write('pass\x04');
    await until('\x04\x04>');
  }
  return count / ((performance.now() - started) / 1000);
}

const starts: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const board = await SimBoard.start();
  starts.push(performance.now() - t0);
  await board.stop();
}
starts.sort((a, b) => a - b);

const rssBefore = process.memoryUsage().rss;
const board = await SimBoard.start();
const rssOne = process.memoryUsage().rss - rssBefore;

const inProcess = await execRate(board.port('repl'), 2000);
const paths = await board.servePty(`/tmp/jl-bench-${process.pid}`);
const serial = new SerialPort({ path: paths.repl, baudRate: 115200 });
await new Promise((resolve) => serial.once('open', resolve));
const overPty = await execRate(serial as unknown as Duplex, 1000);
await new Promise((resolve) => serial.close(resolve));
const rssAfter = process.memoryUsage().rss;
await board.stop();

console.log(`build measured:           ${fromDist ? 'dist (compiled)' : 'src through tsx'}`);
console.log(`sim start, median of 5:   ${starts[2]?.toFixed(1)} ms (min ${starts[0]?.toFixed(1)} ms)`);
console.log(
  `RSS added by one sim:     ${(rssOne / 1e6).toFixed(1)} MB (process RSS after runs ${(rssAfter / 1e6).toFixed(1)} MB)`,
);
console.log(`raw execs/s in-process:   ${inProcess.toFixed(0)}`);
console.log(`raw execs/s over pty:     ${overPty.toFixed(0)}`);
process.exit(0);
