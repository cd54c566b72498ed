/**
 * One tree's server in this process, against its own virtual board, with a client per path: runTool
 * called directly, stdio (a 2025 client writing JSON lines to serveStdio over in-memory streams), and
 * Streamable HTTP 2026-07-28 and 2025 (a session) on a loopback port. Works with any checkout of
 * this project that has its dependencies installed (`tree`), so two can be compared in one process:
 * bench/callPath.ts and bench/callTime.ts.
 */
import { request } from 'node:http';
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';

export const PATHS = ['runTool (direct)', 'stdio, 2025', 'HTTP, 2026-07-28', 'HTTP, 2025 session'] as const;
export type CallPath = (typeof PATHS)[number];

const EVERYTHING = new Set([
  'jumperless.read',
  'jumperless.wire',
  'jumperless.power',
  'jumperless.io',
  'jumperless.files',
  'jumperless.exec',
  'jumperless.admin',
]);
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

export interface InProcessServer {
  /** One call of `tool` with `args` on each path served. */
  call(path: CallPath, tool: string, args: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** Serves `paths` (default all) of the tree at `tree`. */
export async function serveInProcess(
  tree: string,
  paths: readonly CallPath[] = PATHS,
): Promise<InProcessServer> {
  const load = (path: string) => import(pathToFileURL(resolve(tree, 'src', path)).href);
  const { buildApp } = await load('cli/app.ts');
  const { DEFAULT_CONFIG } = await load('cli/config.ts');
  // The pipeline moved from dispatch/ to core/ (issue 22); either tree works.
  const { runTool } = await load('core/runTool.ts').catch(() => load('dispatch/index.ts'));
  const app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' });
  const operator = { id: 'bench', granted: EVERYTHING };

  let stdioCall: ((tool: string, args: unknown) => Promise<void>) | undefined;
  if (paths.includes('stdio, 2025')) {
    const { serveStdio } = await load('mcp/stdio.ts');
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
    const send = (method: string, params: unknown) =>
      new Promise<void>((done) => {
        const id = nextId++;
        waiting.set(id, () => {
          waiting.delete(id);
          done();
        });
        stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    await send('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '0' },
    });
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    stdioCall = (tool, args) => send('tools/call', { name: tool, arguments: args });
  }

  let http: { close(): Promise<void> } | undefined;
  let post:
    | ((body: unknown, headers?: Record<string, string>) => Promise<Record<string, string>>)
    | undefined;
  let sessionHeaders: Record<string, string> = {};
  if (paths.some((path) => path.startsWith('HTTP'))) {
    const { startHttpServer } = await load('http/app.ts');
    const server = await startHttpServer({
      port: 0,
      dispatcher: app.dispatcher,
      createServer: (_: unknown, era: 'legacy' | 'modern') =>
        app.createServer(() => operator, { era, perRequest: era === 'modern' }),
      log: () => {},
    });
    http = server;
    const url = new URL(server.url);
    post = (body, headers = {}) => {
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
            // Done at the answer (a JSON body, or an SSE event carrying a result or an error), as a
            // client reads it: an SSE stream may stay open a moment after its last event.
            let text = '';
            const answered = () => done(res.headers as Record<string, string>);
            res.on('data', (chunk: Buffer) => {
              text += chunk.toString('utf8');
              if (/^data: .*"(result|error)":/m.test(text)) answered();
            });
            res.on('end', answered);
          },
        );
        req.on('error', fail);
        req.end(text);
      });
    };
    const session = (
      await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '0' },
        },
      })
    )['mcp-session-id'] as string;
    sessionHeaders = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders);
  }

  return {
    call(path, tool, args) {
      switch (path) {
        case 'runTool (direct)':
          return runTool(app.dispatcher, { name: tool, arguments: args, caller: operator });
        case 'stdio, 2025':
          return (stdioCall as NonNullable<typeof stdioCall>)(tool, args);
        case 'HTTP, 2026-07-28':
          return (post as NonNullable<typeof post>)(
            {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: tool, arguments: args, _meta: ENVELOPE },
            },
            { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': tool },
          );
        case 'HTTP, 2025 session':
          return (post as NonNullable<typeof post>)(
            { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: args } },
            sessionHeaders,
          );
      }
    },
    async close() {
      await http?.close();
      await app.close();
    },
  };
}
