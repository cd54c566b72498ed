/**
 * The board in view (issue 25): how long a change takes from a tool call's end to an open page's
 * event stream (p50, p99), what 10 open pages add to a tool call (same-run ratio against none),
 * and the bytes of the page, the app and one look. The virtual board over its ptys, as a real
 * board's serial ports are opened: once with its telemetry port (CDC3) for the view, once without
 * (the view then reads at the REPL, yielding to every caller). Over HTTP.
 *
 *   npx tsx bench/view.ts [calls]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { buildApp } from '../src/cli/app.js';
import { DEFAULT_CONFIG } from '../src/cli/config.js';
import { ANONYMOUS_CAPABILITIES } from '../src/core/capabilities.js';
import { viewPageDocument } from '../src/core/view.js';
import { startHttpServer } from '../src/http/app.js';
import { SimBoard } from '../src/sim/index.js';
import { viewDocument } from '../src/tools/viewPage.js';

const CALLS = Number(process.argv[2] ?? 40);
const granted = new Set(ANONYMOUS_CAPABILITIES);
const dir = mkdtempSync(join(tmpdir(), 'jl-bench-view-'));
const sim = await SimBoard.start();
const ptys = await sim.servePty(join(dir, 'pty'));

for (const [name, telemetry] of [
  ['with CDC3', ptys.backchannel],
  ['without CDC3', 'off'],
] as const) {
  await measure(name, telemetry);
}
console.log(
  `bytes: page ${Buffer.byteLength(viewPageDocument())}, app ${Buffer.byteLength(viewDocument('app'))}`,
);
await sim.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);

async function measure(name: string, telemetry: string): Promise<void> {
  const app = await buildApp({ ...DEFAULT_CONFIG, device: ptys.repl, telemetry });
  const http = await startHttpServer({
    port: 0,
    dispatcher: app.dispatcher,
    createServer: (_, era) =>
      app.createServer((id) => ({ id: `http:${id ?? 'stateless'}`, granted }), {
        era,
        perRequest: era === 'modern',
      }),
  });
  const base = http.url.replace(/\/mcp$/, '');
  const client = new Client({ name: 'bench-view', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  const call = (volts: number) => client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts } });
  await call(1);

  /** An open page's stream: resolves `next()` with the time each `board` event arrives. */
  async function openStream() {
    const controller = new AbortController();
    const reply = await fetch(`${base}/events`, { signal: controller.signal });
    const reader = (reply.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let buffer = '';
    const waiters: Array<(at: number, bytes: number) => void> = [];
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith('event: board'))
            waiters.shift()?.(performance.now(), Buffer.byteLength(block));
          end = buffer.indexOf('\n\n');
        }
      }
    })();
    const next = () =>
      new Promise<[number, number]>((resolve) => waiters.push((at, bytes) => resolve([at, bytes])));
    const first = next();
    await first;
    return { next, close: () => controller.abort() };
  }

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
  const latency: number[] = [];
  let lookBytes = 0;
  // More, shorter rounds follow a shared machine's changing load more closely.
  const ROUNDS = 5;
  const perRound = Math.max(1, Math.round(CALLS / ROUNDS));
  for (let round = 0; round < ROUNDS; round++) {
    alone.push(...(await timeCalls(perRound)));
    const pages = await Promise.all(Array.from({ length: 10 }, () => openStream()));
    watched.push(...(await timeCalls(perRound)));
    for (let i = 0; i < perRound; i++) {
      const arrived = pages[0]?.next() as Promise<[number, number]>;
      await call(3 + (i % 2));
      const ended = performance.now();
      const [at, bytes] = await arrived;
      latency.push(at - ended);
      lookBytes = bytes;
      await new Promise((r) => setTimeout(r, 150));
    }
    for (const page of pages) page.close();
  }

  const p50 = (xs: number[]) => pct(xs, 50).toFixed(1);
  console.log(`${name} (the view reads ${telemetry === 'off' ? 'at the REPL, yielding' : telemetry}):`);
  console.log(
    `  tool call (dac_set) p50: no page ${p50(alone)} ms, 10 pages ${p50(watched)} ms, ratio ${(pct(watched, 50) / pct(alone, 50)).toFixed(3)}; p99 ${pct(alone, 99).toFixed(1)} / ${pct(watched, 99).toFixed(1)} ms`,
  );
  console.log(
    `  update latency, call end -> page stream: p50 ${p50(latency)} ms, p99 ${pct(latency, 99).toFixed(1)} ms (n=${latency.length}); one look event ${lookBytes} bytes`,
  );
  await client.close();
  await http.close();
  await app.close();
}
