/**
 * Fair turns under load, across eras (issue 23 item 5):
 *
 *   npx tsx bench/fairness.ts [clients=30,50] [seconds=20] [checkout=this one]
 *
 * For each client count: the real CLI serving the virtual board over HTTP (`--sim --http`), half
 * the clients 2025 sessions and half anonymous 2026-07-28 clients, each on a connection of its own
 * (test/support/eraClients.ts), each calling `power_get` (one board job) back to back for the run.
 * Reports calls per second, p50 / p99 latency per era, the slowest client's calls over the
 * fastest's per era and across both (goal: the fastest does under 1.5 times the slowest's calls),
 * and the server's RSS over the run (from /proc, so Linux only).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type EraClient, openLegacyClient, openModernClient } from '../test/support/eraClients.js';

const COUNTS = (process.argv[2] ?? '30,50').split(',').map(Number);
const SECONDS = Number(process.argv[3] ?? 20);
/** The checkout whose server is measured (another one: its figures beside these, e.g. before a change). */
const ROOT = resolve(process.argv[4] ?? resolve(import.meta.dirname, '..'));

function startServer(): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', '--sim', '--http', '127.0.0.1:0'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  const url = new Promise<string>((done, fail) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (match?.[1]) done(match[1]);
    });
    child.once('exit', (code) => fail(new Error(`the server exited (${code}): ${output}`)));
  });
  return { child, url };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

interface Run {
  client: EraClient;
  latencies: number[];
  errors: number;
}

async function measure(count: number): Promise<void> {
  const server = startServer();
  try {
    const url = await server.url;
    const pid = server.child.pid ?? 0;
    const clients: EraClient[] = [];
    for (let i = 0; i < count; i++)
      clients.push(i % 2 === 0 ? await openLegacyClient(url) : openModernClient(url));
    // Warm: the board open, every connection made, the JIT past its first calls.
    for (let round = 0; round < 3; round++)
      await Promise.all(clients.map((client) => client.call('power_get')));
    const runs: Run[] = clients.map((client) => ({ client, latencies: [], errors: 0 }));
    const rss: number[] = [rssMb(pid)];
    const sampler = setInterval(() => rss.push(rssMb(pid)), 1000);
    const started = performance.now();
    const until = started + SECONDS * 1000;
    await Promise.all(
      runs.map(async (run) => {
        while (performance.now() < until) {
          const t0 = performance.now();
          try {
            await run.client.call('power_get');
            run.latencies.push(performance.now() - t0);
          } catch {
            run.errors++;
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    rss.push(rssMb(pid));
    for (const client of clients) client.close();

    const all = runs.flatMap((run) => run.latencies);
    const errors = runs.reduce((sum, run) => sum + run.errors, 0);
    console.log(
      `${count} clients (${Math.ceil(count / 2)} 2025 sessions, ${Math.floor(count / 2)} anonymous 2026-07-28), power_get back to back for ${elapsed.toFixed(1)} s`,
    );
    console.log(`  ${(all.length / elapsed).toFixed(1)} calls/s, ${all.length} calls, ${errors} errors`);
    const spread = (group: Run[]) => {
      const calls = group.map((run) => run.latencies.length);
      return { least: Math.min(...calls), most: Math.max(...calls) };
    };
    for (const era of ['legacy', 'modern'] as const) {
      const group = runs.filter((run) => run.client.era === era);
      const latencies = group.flatMap((run) => run.latencies);
      const { least, most } = spread(group);
      console.log(
        `  ${era === 'legacy' ? '2025      ' : '2026-07-28'}: p50 ${quantile(latencies, 0.5).toFixed(0)} ms, p99 ${quantile(latencies, 0.99).toFixed(0)} ms; calls per client ${least}..${most}, fastest / slowest ${(most / least).toFixed(2)}`,
      );
    }
    const { least, most } = spread(runs);
    console.log(
      `  both eras: calls per client ${least}..${most}, fastest / slowest ${(most / least).toFixed(2)}`,
    );
    console.log(`  server RSS (MB, every second): ${rss.join(' ')}`);
  } finally {
    server.child.kill('SIGTERM');
  }
}

for (const count of COUNTS) await measure(count);
