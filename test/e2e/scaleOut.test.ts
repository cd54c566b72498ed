/**
 * Stateless scale-out: nginx (Debian's, started here on loopback) round-robin in front of two
 * bench gateway replicas, each federating the same two board servers over HTTP. A client pinned
 * to MCP 2026-07-28 needs no session, so its calls land on both replicas and see one state; when a
 * replica dies between calls, every later call is served by the other.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttpCli } from '../support/cliHttp.js';
import { type Balancer, NGINX_MISSING, startBalancer } from '../support/nginx.js';

const _ROOT = resolve(import.meta.dirname, '..', '..');
const MODERN = '2026-07-28';
const dir = mkdtempSync(join(tmpdir(), 'scale-out-'));
const processes: ChildProcess[] = [];
// What replicas share so that any of them can take a question's answer (README: replicas).
const STATE_KEY = randomBytes(32).toString('hex');

/** Starts `jumperless-mcp ARGS --http 127.0.0.1:0` and resolves with the URL it serves. */
async function serve(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const served = await serveHttpCli(args, {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    JUMPERLESS_MCP_STATE_KEY: STATE_KEY,
  });
  processes.push(served.child);
  return served;
}

const upstreamOf = (url: string) => new URL(url).host;

let balancer: Balancer;
let replicas: { url: string; child: ChildProcess }[];
const served: string[] = [];

async function modernClient(): Promise<Client> {
  const client = new Client(
    { name: 'scale-out', version: '0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    served.push(response.headers.get('x-upstream') ?? '?');
    return response;
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(new URL(replicas[0]?.url ?? '').pathname, balancer.url), {
      fetch: recording,
    }),
  );
  return client;
}

const text = (result: unknown) =>
  ((result as { content: { type: string; text?: string }[] }).content[0]?.text ?? '') as string;

describe.skipIf(NGINX_MISSING !== undefined)('two gateway replicas behind nginx', () => {
  beforeAll(async () => {
    const [boardA, boardB] = await Promise.all([serve(['--sim']), serve(['--sim'])]);
    const config = join(dir, 'bench.json');
    writeFileSync(
      config,
      JSON.stringify({
        name: 'bench',
        children: [
          { name: 'board-a', type: 'http', url: boardA.url },
          { name: 'board-b', type: 'http', url: boardB.url },
        ],
      }),
    );
    replicas = await Promise.all([serve(['--config', config]), serve(['--config', config])]);
    balancer = await startBalancer(replicas.map((replica) => upstreamOf(replica.url)));
  }, 120_000);

  afterAll(async () => {
    await balancer?.stop();
    for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('alternates replicas with one consistent state', async () => {
    const client = await modernClient();
    served.length = 0;
    for (let step = 1; step <= 6; step++) {
      const volts = step / 4;
      const set = await client.callTool({ name: 'board-a_dac_set', arguments: { channel: 'DAC1', volts } });
      expect(set.isError).toBeFalsy();
      const read = await client.callTool({ name: 'board-a_power_get', arguments: {} });
      expect(read.structuredContent).toMatchObject({ dac1_volts: volts });
      const other = await client.callTool({ name: 'board-b_power_get', arguments: {} });
      expect(other.structuredContent).toMatchObject({ dac1_volts: 0 });
    }
    const upstreams = new Set(served);
    expect(upstreams).toEqual(new Set(replicas.map((replica) => upstreamOf(replica.url))));
    await client.close();
  }, 120_000);

  it('loses no call when a replica dies between calls', async () => {
    const client = await modernClient();
    const [doomed, survivor] = replicas as [
      { url: string; child: ChildProcess },
      { url: string; child: ChildProcess },
    ];
    const results: string[] = [];
    for (let call = 0; call < 20; call++) {
      if (call === 8) {
        const exited = new Promise((r) => doomed.child.once('exit', r));
        doomed.child.kill('SIGKILL');
        await exited;
        served.length = 0;
      }
      const result = await client.callTool({
        name: 'board-b_dac_set',
        arguments: { channel: 'DAC0', volts: call / 10 },
      });
      expect(result.isError, text(result)).toBeFalsy();
      results.push(text(result));
    }
    expect(results).toHaveLength(20);
    // nginx names every upstream it tried: the dead one (refused, so the call was never sent
    // there) and then the survivor, which answered each call after the kill.
    const answeredBy = served.map((upstreams) => upstreams.split(', ').at(-1));
    expect(new Set(answeredBy)).toEqual(new Set([upstreamOf(survivor.url)]));
    expect(served.some((upstreams) => upstreams.startsWith(upstreamOf(doomed.url)))).toBe(true);
    await client.close();
  }, 120_000);
});
