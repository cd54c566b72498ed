/**
 * What one federation hop costs, measured in one run; calls alternate between the two paths one
 * by one, so load drift hits both alike:
 *
 *   npx tsx bench/federation.ts [calls per block=300] [blocks=3]
 *
 * - HTTP hop (the headline): the SDK client calls a single-board jumperless-mcp (child process,
 *   virtual board, `--http`) directly, and through a federation (another child process,
 *   `--config`, `--http`) whose one child is that same server over Streamable HTTP. Same server,
 *   same board: the difference is the hop. Target: at most 0.5 ms added at p50 on loopback (issue 12).
 * - Socket hop: the same, the federation reaching the server over its native socket (a second
 *   jumperless-mcp is best federated this way).
 * - stdio hop: client -stdio-> federation -stdio-> server, against client -stdio-> server.
 * - In-process: a board child of a federation (exact table, aggregator, the board's own
 *   dispatcher) against the single-board server, both in this process over in-memory transports.
 * Each with `power_get` (a board round trip) and `test_simple_text` (no board: the pure overhead).
 * - tools/list size of a two-board federation in full, names and discovery modes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type App, buildApp } from '../src/cli/app.js';
import { type Config, DEFAULT_CONFIG } from '../src/cli/config.js';
import { CAPABILITIES, type Capability } from '../src/core/capabilities.js';
import { conformanceExtras } from '../test/fixtures/conformance/fixtures.js';

const CALLS = Number(process.argv[2] ?? 300);
const BLOCKS = Number(process.argv[3] ?? 3);
const ROOT = resolve(import.meta.dirname, '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/** The CLI with the conformance fixtures (test_simple_text: a call with no board in it). */
const FIXTURES_CLI = ['--import', 'tsx', 'test/fixtures/conformance/cli.ts'];
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const dir = mkdtempSync(join(tmpdir(), 'bench-federation-'));
const OPERATOR = { id: 'bench', granted: new Set<Capability>(CAPABILITIES) };

const sorted = (samples: number[]) => [...samples].sort((a, b) => a - b);
const pct = (samples: number[], q: number) =>
  sorted(samples)[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;

/** A node:http server in a process of its own that answers every POST with a small JSON body. */
const FLOOR_SERVER = `
const { createServer } = await import('node:http');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;

/**
 * The floors of any HTTP hop here, in the same run: a POST round trip on loopback to another
 * process that does nothing but answer, by fetch (what the SDK client uses) and by a kept-alive
 * node:http request (what a federation uses for a 2026-07-28 child). A hop costs one such round
 * trip plus the gateway's own work.
 */
async function hopFloors(): Promise<{ fetch: number; keepAlive: number }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOR_SERVER], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((done) =>
    child.stdout?.once('data', (chunk: Buffer) => done(Number(chunk.toString().trim()))),
  );
  const url = `http://127.0.0.1:${port}/`;
  const agent = new Agent({ keepAlive: true });
  const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}';
  const keptAlive = () =>
    new Promise<void>((done, fail) => {
      const req = request(url, {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      });
      req.on('error', fail);
      req.on('response', (res) => {
        res.resume();
        res.on('end', done);
      });
      req.end(body);
    });
  const byFetch = async () => void (await (await fetch(url, { method: 'POST', body })).text());
  const samples = { fetch: [] as number[], keepAlive: [] as number[] };
  for (let i = 0; i < CALLS * BLOCKS + 30; i++) {
    let start = performance.now();
    await byFetch();
    const fetched = performance.now() - start;
    start = performance.now();
    await keptAlive();
    if (i < 30) continue;
    samples.fetch.push(fetched);
    samples.keepAlive.push(performance.now() - start);
  }
  agent.destroy();
  child.kill();
  return { fetch: pct(samples.fetch, 0.5), keepAlive: pct(samples.keepAlive, 0.5) };
}

function writeConfig(name: string, config: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/** The real CLI with `--http 127.0.0.1:0`; resolves with its URL once it serves. */
async function httpServer(args: string[], command = CLI): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...command, ...args, '--http', '127.0.0.1:0'], {
    cwd: ROOT,
    env: ENV,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((done, fail) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /serving (http:\/\/\S+)/.exec(text);
      if (match?.[1]) done(match[1]);
    });
    child.on('exit', () => fail(new Error(`server exited: ${text}`)));
  });
  return { child, url };
}

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function stdioClient(args: string[], command = CLI): Promise<Client> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [...command, ...args], cwd: ROOT, env: ENV }),
  );
  return client;
}

async function inProcessClient(
  served: App,
  experimental?: Record<string, Record<string, never>>,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await served.createServer(() => OPERATOR, { era: 'legacy' }).server.connect(serverSide);
  const client = new Client(
    { name: 'bench', version: '0' },
    { capabilities: experimental ? { experimental } : {} },
  );
  await client.connect(clientSide);
  return client;
}

/** A bench answers before its children have connected: wait until the child's tool is listed. */
async function untilListed(client: Client, name: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await client.listTools()).tools.some((tool) => tool.name === name)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} was never listed`);
}

const TOOLS = ['power_get', 'test_simple_text'] as const;
type Path = { label: string; direct: Client; hop: Client; prefix: string };

/** Samples per path and tool: direct and through the hop, call by call in turn, so load drift hits both alike. */
async function compare(
  path: Path,
  tools: readonly string[] = TOOLS,
): Promise<Record<string, { direct: number[]; hop: number[] }>> {
  const out: Record<string, { direct: number[]; hop: number[] }> = {};
  const time = async (run: () => Promise<unknown>) => {
    const start = performance.now();
    await run();
    return performance.now() - start;
  };
  for (const tool of tools) {
    await untilListed(path.hop, `${path.prefix}${tool}`);
    const direct = () => path.direct.callTool({ name: tool, arguments: {} });
    const hop = () => path.hop.callTool({ name: `${path.prefix}${tool}`, arguments: {} });
    for (let i = 0; i < 30; i++) await Promise.all([direct(), hop()]);
    const result = { direct: [] as number[], hop: [] as number[] };
    for (let i = 0; i < CALLS * BLOCKS; i++) {
      result.direct.push(await time(direct));
      result.hop.push(await time(hop));
    }
    out[tool] = result;
  }
  return out;
}

function report(label: string, results: Record<string, { direct: number[]; hop: number[] }>): void {
  const f = (ms: number) => `${ms.toFixed(3)} ms`;
  console.log(`${label}`);
  for (const [tool, { direct, hop }] of Object.entries(results)) {
    const added = pct(hop, 0.5) - pct(direct, 0.5);
    console.log(
      `  ${tool.padEnd(17)} direct p50 ${f(pct(direct, 0.5))} p90 ${f(pct(direct, 0.9))} | hop p50 ${f(pct(hop, 0.5))} p90 ${f(pct(hop, 0.9))} | added p50 ${f(added)}`,
    );
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
}

async function main(): Promise<void> {
  // One single-board server (HTTP and its native socket), reached directly over HTTP and through
  // a federation over HTTP whose one child is that server, over HTTP or over the socket.
  const socketPath = join(dir, 'server.sock');
  const server = await httpServer(['--sim', '--socket', socketPath], FIXTURES_CLI);
  const viaHttp = await httpServer([
    '--config',
    writeConfig('http.json', { name: 'bench', children: [{ name: 'lab', type: 'http', url: server.url }] }),
  ]);
  const viaSocket = await httpServer([
    '--config',
    writeConfig('socket.json', {
      name: 'bench',
      children: [{ name: 'lab', type: 'socket', path: socketPath }],
    }),
  ]);
  const direct = await httpClient(server.url);
  const overHttp = await httpClient(viaHttp.url);
  const overSocket = await httpClient(viaSocket.url);
  report(
    `tools/call over Streamable HTTP, direct vs one federation hop to the same server (HTTP child), ${BLOCKS} x ${CALLS} calls; target: added p50 <= 0.5 ms (issue 12)`,
    await compare({ label: 'http', direct, hop: overHttp, prefix: 'lab_' }),
  );
  const floors = await hopFloors();
  console.log(
    `  (floors of any HTTP hop, a POST round trip on loopback to a process that only answers, p50: fetch ${floors.fetch.toFixed(3)} ms, kept-alive node:http ${floors.keepAlive.toFixed(3)} ms)`,
  );
  report(
    'tools/call over Streamable HTTP, direct vs one federation hop to the same server (native socket child)',
    await compare({ label: 'socket', direct, hop: overSocket, prefix: 'lab_' }),
  );
  await Promise.all([direct.close(), overHttp.close(), overSocket.close()]);
  await Promise.all([stop(viaHttp.child), stop(viaSocket.child)]);
  await stop(server.child);

  // stdio hop: each path spawns its own server on its own virtual board.
  const stdioConfig = writeConfig('stdio.json', {
    name: 'bench',
    children: [
      {
        name: 'lab',
        type: 'stdio',
        command: process.execPath,
        args: [...FIXTURES_CLI, '--sim'],
        cwd: ROOT,
      },
    ],
  });
  const stdio = {
    direct: await stdioClient(['--sim'], FIXTURES_CLI),
    hop: await stdioClient(['--config', stdioConfig]),
  };
  report(
    'tools/call over stdio, direct vs one federation hop (stdio child)',
    await compare({ label: 'stdio', ...stdio, prefix: 'lab_' }),
  );
  await Promise.all([stdio.direct.close(), stdio.hop.close()]);

  // In-process: the single-board server vs a federation with one board child (pure federation overhead).
  const base: Config = { ...DEFAULT_CONFIG };
  const single = await buildApp({ ...base, device: 'sim' }, { extras: conformanceExtras });
  const boardOnly = await buildApp({
    ...base,
    federation: writeConfig('local.json', {
      name: 'bench',
      children: [{ name: 'jumperless-a', type: 'jumperless', device: 'sim' }],
    }),
  });
  const local = { direct: await inProcessClient(single), hop: await inProcessClient(boardOnly) };
  const localResults = await compare({ label: 'local', ...local, prefix: 'jumperless-a_' }, ['power_get']);
  report(
    'tools/call in process (in-memory transport), single-board server vs a federation with one board child',
    localResults,
  );
  await Promise.all([local.direct.close(), local.hop.close()]);
  await Promise.all([single.close(), boardOnly.close()]);

  // tools/list sizes of a two-board federation.
  const twoBoards = writeConfig('two.json', {
    name: 'bench',
    children: [
      { name: 'jumperless-a', type: 'jumperless', device: 'sim' },
      { name: 'jumperless-b', type: 'jumperless', device: 'sim' },
    ],
  });
  console.log('tools/list of a federation of two boards (bytes of the JSON result, ~tokens = bytes / 4)');
  const sizes: Record<string, number> = {};
  for (const mode of ['full', 'names', 'discovery'] as const) {
    const app = await buildApp({ ...base, federation: twoBoards, listMode: mode });
    const client = await inProcessClient(app);
    const result = await client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(result));
    sizes[mode] = bytes;
    console.log(
      `  ${mode.padEnd(9)} ${String(result.tools.length).padStart(3)} tools ${String(bytes).padStart(7)} bytes ~${Math.round(bytes / 4)} tokens${mode === 'full' ? '' : `  (${((bytes / (sizes.full ?? bytes)) * 100).toFixed(1)}% of full)`}`,
    );
    await client.close();
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
