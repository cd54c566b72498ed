/**
 * How much code one warm `dac_set` runs, per path: the source files and functions of `src/` that V8's
 * precise coverage sees execute for one call, after 20 warm-up calls, in one process against the
 * virtual board (its MicroPython runs in a worker, which coverage does not see: the main thread's
 * side of the board is counted, the firmware is not). Issue 22's goal: 15 files or fewer.
 *
 *   npx tsx bench/callPath.ts [tree=.]       # e.g. a checkout of another commit, built with npm ci
 *
 * Paths: runTool called directly; stdio (a 2025 client writing JSON lines to serveStdio over
 * in-memory streams); Streamable HTTP 2026-07-28 (stateless) and 2025 (a session), through the
 * HTTP server on a loopback port. The client side (this file, node's http) is not in `src/`.
 */
import { request } from 'node:http';
import { Session } from 'node:inspector/promises';
import { resolve, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';

const TREE = resolve(process.argv[2] ?? '.');
const SRC = `${pathToFileURL(resolve(TREE, 'src')).href}/`;
const WARMUP = 20;
const ARGS = { channel: 'DAC1', volts: 1.5 };
const EVERYTHING = new Set([
  'jumperless.read',
  'jumperless.wire',
  'jumperless.power',
  'jumperless.io',
  'jumperless.files',
  'jumperless.exec',
  'jumperless.admin',
]);

const load = (path: string) => import(pathToFileURL(resolve(TREE, 'src', path)).href);
const { buildApp } = await load('cli/app.ts');
const { DEFAULT_CONFIG } = await load('cli/config.ts');
const { serveStdio } = await load('mcp/stdio.ts');
const { startHttpServer } = await load('http/app.ts');
// The pipeline moved from dispatch/ to core/ (issue 22); either tree works.
const { runTool } = await load('core/runTool.ts').catch(() => load('dispatch/index.ts'));

const app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' });
const operator = { id: 'bench', granted: EVERYTHING };

// stdio: a 2025 client on in-memory streams.
const stdin = new PassThrough();
const stdout = new PassThrough();
await serveStdio((era: 'legacy' | 'modern') => app.createServer(() => operator, { era }), {
  input: stdin,
  output: stdout,
  shutdown: async () => {},
  exit: () => {},
});
const waiting = new Map<number, () => void>();
let buffered = '';
stdout.on('data', (chunk: Buffer) => {
  buffered += chunk.toString('utf8');
  for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
    const id = (JSON.parse(buffered.slice(0, at)) as { id?: number }).id;
    buffered = buffered.slice(at + 1);
    if (id !== undefined) waiting.get(id)?.();
  }
});
let nextId = 1;
const stdioRequest = (method: string, params: unknown) =>
  new Promise<void>((done) => {
    const id = nextId++;
    waiting.set(id, done);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
await stdioRequest('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'bench', version: '0' },
});
stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);

// HTTP on loopback, every caller the operator.
const http = await startHttpServer({
  port: 0,
  dispatcher: app.dispatcher,
  createServer: (_: unknown, era: 'legacy' | 'modern') =>
    app.createServer(() => operator, { era, perRequest: era === 'modern' }),
  log: () => {},
});
const url = new URL(http.url);
function post(body: unknown, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const text = JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(Buffer.byteLength(text)),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.headers as Record<string, string>));
      },
    );
    req.on('error', fail);
    req.end(text);
  });
}
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernCall = () =>
  post(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'dac_set', arguments: ARGS, _meta: ENVELOPE } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'dac_set' },
  );
const session = (
  await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
  })
)['mcp-session-id'] as string;
const sessionHeaders = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);
const legacyCall = () =>
  post(
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'dac_set', arguments: ARGS } },
    sessionHeaders,
  );

const paths: Array<[string, () => Promise<unknown>]> = [
  ['runTool (direct)', () => runTool(app.dispatcher, { name: 'dac_set', arguments: ARGS, caller: operator })],
  ['stdio, 2025', () => stdioRequest('tools/call', { name: 'dac_set', arguments: ARGS })],
  ['HTTP, 2026-07-28', modernCall],
  ['HTTP, 2025 session', legacyCall],
];

interface Coverage {
  result: Array<{ url: string; functions: Array<{ functionName: string; ranges: Array<{ count: number }> }> }>;
}

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

console.log(`source files and functions of ${TREE}${sep}src that run for one warm dac_set`);
for (const [name, call] of paths) {
  for (let i = 0; i < WARMUP; i++) await call();
  await inspector.post('Profiler.takePreciseCoverage'); // resets the counters
  await call();
  const { result } = (await inspector.post('Profiler.takePreciseCoverage')) as Coverage;
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
  console.log(`  ${name.padEnd(20)} ${String(files.size).padStart(3)} files, ${functions} functions (${byFolder})`);
  if (process.env.CALL_PATH_FILES) for (const file of [...files.keys()].sort()) console.log(`      ${file}`);
}

await inspector.post('Profiler.stopPreciseCoverage');
inspector.disconnect();
await http.close();
await app.close();
process.exit(0);
