/**
 * What bearer auth costs on HTTP, and how our HTTP edge compares with the SDK's reference server:
 *
 *   npx tsx bench/httpAuth.ts [seconds per slice=0.5] [rounds=36] [clients=16]
 *
 * 16 concurrent clients, each with its own session, call a tool that needs no board
 * (`test_simple_text`, the conformance fixture) as fast as they can. Three paths, run in short
 * round-robin slices so drift and the machine's other load hit all alike:
 *   - ours, anonymous: the real CLI with the conformance fixtures (test/fixtures/conformance/cli.ts,
 *     `--sim --http`), no Authorization;
 *   - ours, bearer:    the same process, every request with a bearer from the real token store;
 *   - ours, 2026-07-28: the same process, stateless (no session; the `_meta` envelope and the
 *                      Mcp-Method / Mcp-Name headers; plain JSON replies), anonymous;
 *   - SDK reference:   bench/sdkReferenceServer.ts (McpServer + NodeStreamableHTTPServerTransport).
 * Reports, per path, calls/s and the server process's CPU time per call (from /proc, so Linux
 * only), and the ratios bearer / anonymous (target: auth costs at most 5%) and ours / reference.
 * CPU per call is the steady figure on a shared machine; throughput is reported beside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FileTokenStore } from '../src/auth/index.js';

const SECONDS = Number(process.argv[2] ?? 0.5);
const ROUNDS = Number(process.argv[3] ?? 36);
const CLIENTS = Number(process.argv[4] ?? 16);
const ROOT = resolve(import.meta.dirname, '..');
const TSX = [process.execPath, '--import', 'tsx'];
const PROTOCOL = '2025-06-18';
const MODERN = '2026-07-28';
const EXPECT = 'This is a simple text response for testing.';
/** USER_HZ: the unit of /proc/<pid>/stat times (100 on every Linux we run on). */
const TICKS = 100;
const SETTLE_MS = 250;

/** Starts a child and resolves with the first URL it prints on `stream`. */
function startChild(args: string[], env: NodeJS.ProcessEnv, stream: 'stdout' | 'stderr') {
  const [cmd = '', ...rest] = [...TSX, ...args];
  const child = spawn(cmd, rest, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise<string>((done, fail) => {
    child[stream].on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (match?.[1]) done(match[1]);
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited (${code}): ${output}`)));
  });
  return { child, url };
}

interface Client {
  call(): Promise<void>;
}

async function openClient(url: string, auth: Record<string, string>): Promise<Client> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !session) throw new Error(`initialize: ${init.status}`);
  const headers = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL };
  await (
    await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  return caller(url, headers, {}, 'call');
}

/** Calls test_simple_text in a loop on `url`: `meta` rides in its params (a 2026-07-28 envelope). */
function caller(
  url: string,
  headers: Record<string, string>,
  meta: Record<string, unknown>,
  what: string,
): Client {
  let id = 1;
  const params = {
    name: 'test_simple_text',
    arguments: {},
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
  return {
    async call() {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params }),
      });
      const text = await res.text();
      if (res.status !== 200 || !text.includes(EXPECT))
        throw new Error(`${what}: ${res.status} ${text.slice(0, 200)}`);
    },
  };
}

/** A 2026-07-28 client: no session, every request carries its envelope and headers. */
function openModernClient(url: string): Client {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'test_simple_text',
  };
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
  };
  return caller(url, headers, _meta, 'modern call');
}

interface Slice {
  calls: number;
  seconds: number;
  /** CPU time the server process used meanwhile (user + system). */
  cpuSeconds: number;
}

/** Every client calls in a loop for `seconds`, while the server's CPU time is read around it. */
async function slice(clients: Client[], seconds: number, serverPid: number): Promise<Slice> {
  const cpuBefore = cpuOf(serverPid);
  const started = performance.now();
  const end = started + seconds * 1000;
  let calls = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        await client.call();
        calls++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  // Let the server finish the slice's own garbage collection before reading its CPU time, so
  // the next slice (maybe another path on the same process) does not pay for this one.
  await new Promise((settle) => setTimeout(settle, SETTLE_MS));
  return { calls, seconds: elapsed, cpuSeconds: cpuOf(serverPid) - cpuBefore };
}

/**
 * CPU seconds a process has used (Linux /proc, utime + stime). On a shared machine this is far
 * steadier than throughput: other load slows a request down but does not add to its CPU time.
 */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'jlmcp-bench-auth-'));
  const store = join(dir, 'tokens.json');
  const { token } = await new FileTokenStore(store).create({ capabilities: ['jumperless.read'] });
  const env = { PATH: process.env.PATH ?? '', HOME: dir };
  const ours = startChild(
    ['test/fixtures/conformance/cli.ts', '--sim', '--http', '127.0.0.1:0', '--tokens', store],
    env,
    'stderr',
  );
  const reference = startChild(['bench/sdkReferenceServer.ts'], env, 'stdout');
  try {
    const [oursUrl, referenceUrl] = await Promise.all([ours.url, reference.url]);
    const paths = {
      'ours, anonymous': await Promise.all(Array.from({ length: CLIENTS }, () => openClient(oursUrl, {}))),
      'ours, bearer': await Promise.all(
        Array.from({ length: CLIENTS }, () => openClient(oursUrl, { authorization: `Bearer ${token}` })),
      ),
      'ours, 2026-07-28': Array.from({ length: CLIENTS }, () => openModernClient(oursUrl)),
      'SDK reference': await Promise.all(Array.from({ length: CLIENTS }, () => openClient(referenceUrl, {}))),
    };
    const pids: Record<string, number> = {
      'ours, anonymous': ours.child.pid ?? 0,
      'ours, bearer': ours.child.pid ?? 0,
      'ours, 2026-07-28': ours.child.pid ?? 0,
      'SDK reference': reference.child.pid ?? 0,
    };
    const names = Object.keys(paths) as (keyof typeof paths)[];
    const PERMUTATIONS = permutations(names);
    // Warm up every path (JIT, connection pools) before measuring.
    for (const name of names) await slice(paths[name], 1, pids[name] ?? 0);
    const slices: Record<string, Slice[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      // Short slices, every order of the paths in turn: each path meets the machine's other load,
      // and follows each other path, alike.
      const order = PERMUTATIONS[round % PERMUTATIONS.length] ?? names;
      for (const name of order) {
        const list = slices[name] ?? [];
        list.push(await slice(paths[name], SECONDS, pids[name] ?? 0));
        slices[name] = list;
      }
    }
    const total = (name: string) => {
      const list = slices[name] ?? [];
      const calls = list.reduce((sum, s) => sum + s.calls, 0);
      const seconds = list.reduce((sum, s) => sum + s.seconds, 0);
      const cpu = list.reduce((sum, s) => sum + s.cpuSeconds, 0);
      return { calls, rate: calls / seconds, cpuPerCallUs: (cpu / calls) * 1e6 };
    };
    console.log(
      `${CLIENTS} concurrent clients, tools/call test_simple_text, ${ROUNDS} slices (every order in turn) of ${SECONDS} s per path`,
    );
    for (const name of names) {
      const t = total(name);
      console.log(
        `  ${name.padEnd(18)} ${t.rate.toFixed(0).padStart(6)} calls/s  ${t.cpuPerCallUs.toFixed(0).padStart(5)} us server CPU per call  (${t.calls} calls)`,
      );
    }
    const anonymous = total('ours, anonymous');
    const withBearer = total('ours, bearer');
    const sdk = total('SDK reference');
    const modern = total('ours, 2026-07-28');
    const throughput = withBearer.rate / anonymous.rate;
    const cpu = anonymous.cpuPerCallUs / withBearer.cpuPerCallUs;
    console.log(
      `  bearer / anonymous: throughput ${throughput.toFixed(3)}, server CPU efficiency ${cpu.toFixed(3)} ` +
        `(bearer auth costs ${((1 - cpu) * 100).toFixed(1)}% by CPU per call, ${((1 - throughput) * 100).toFixed(1)}% by throughput; ` +
        `target <= 5%: ${cpu >= 0.95 ? 'met' : 'NOT met'} by CPU)`,
    );
    console.log(
      `  ours / SDK reference: throughput ${(anonymous.rate / sdk.rate).toFixed(3)} anonymous, ${(withBearer.rate / sdk.rate).toFixed(3)} with bearer; ` +
        `server CPU per call ${(anonymous.cpuPerCallUs / sdk.cpuPerCallUs).toFixed(3)}x anonymous, ${(withBearer.cpuPerCallUs / sdk.cpuPerCallUs).toFixed(3)}x with bearer`,
    );
    console.log(
      `  ours 2026-07-28 / SDK reference (2025 session): throughput ${(modern.rate / sdk.rate).toFixed(3)}, ` +
        `server CPU per call ${(modern.cpuPerCallUs / sdk.cpuPerCallUs).toFixed(3)}x; ` +
        `2026-07-28 / 2025 session (ours, anonymous): CPU per call ${(modern.cpuPerCallUs / anonymous.cpuPerCallUs).toFixed(3)}x`,
    );
  } finally {
    await Promise.all([stop(ours.child), stop(reference.child)]);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
