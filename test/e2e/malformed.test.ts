/**
 * Every malformed request gets an error, on every transport and in both eras (issue 23 item 7: over
 * stdio 44 of 148 such requests waited forever). The shapes are in test/support/malformed.ts: a
 * method that is not a string or is missing, an id that is an object, an array or true, jsonrpc
 * not "2.0", params not an object, a value that is not an object, batches. stdio: the real CLI
 * (`--sim`), each shape followed by a ping, so a missing answer shows as the ping's answer coming
 * first. HTTP: a real server on port 0, a 2025 session and 2026-07-28 requests. The native socket
 * speaks ATD messages, not JSON-RPC: each shape gets an error frame and the connection carries on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/cli/app.js';
import { DEFAULT_CONFIG } from '../../src/cli/config.js';
import { FrameClient } from '../../src/device/frameClient.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { httpCaller } from '../../src/http/caller.js';
import { dispatchHandler } from '../../src/socket/dispatchHandler.js';
import { type SocketServer, startSocketServer } from '../../src/socket/server.js';
import { malformedRequests } from '../support/malformed.js';
import { openSession, send } from './httpReplies.js';
import { MODERN } from './serverFixture.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'malformed', version: '0' },
};

type Era = 'legacy' | 'modern';

/** A tools/list whose `_meta` nests `depth` objects deep, as text (JSON.stringify itself would recurse that deep). */
function deepList(id: number, depth: number, era: Era): string {
  const deep = `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
  const meta = era === 'modern' ? `${JSON.stringify(META).slice(0, -1)},"deep":${deep}}` : `{"deep":${deep}}`;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${meta}}}`;
}

/** The real CLI over stdio, read line by line. */
function stdioServer() {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--sim'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const seen: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      seen.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
      for (const wake of waiting.splice(0)) wake();
    }
  });
  const next = async (id: unknown): Promise<Record<string, unknown>> => {
    for (;;) {
      const at = seen.findIndex((message) => JSON.stringify(message.id) === JSON.stringify(id));
      if (at >= 0) return seen.splice(at, 1)[0] as Record<string, unknown>;
      await new Promise<void>((wake) => waiting.push(wake));
    }
  };
  return {
    send: (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`),
    sendRaw: (line: string) => child.stdin?.write(`${line}\n`),
    /** Answers in the order they came, up to and including the one whose id is `id`. */
    until: async (id: unknown): Promise<Array<Record<string, unknown>>> => {
      const found = () => seen.findIndex((message) => JSON.stringify(message.id) === JSON.stringify(id));
      while (found() < 0) await new Promise<void>((wake) => waiting.push(wake));
      return seen.splice(0, found() + 1);
    },
    next,
    close: () => child.kill(),
  };
}

describe.each<Era>(['legacy', 'modern'])('over stdio (%s)', (era) => {
  const server = stdioServer();
  beforeAll(async () => {
    if (era === 'legacy') {
      server.send({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'm', version: '0' } },
      });
      await server.next(0);
      server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    } else {
      server.send({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: META } });
      await server.next(0);
    }
  }, 60_000);
  afterAll(() => server.close());

  it('answers each malformed request with an error carrying its id (or null), before the next request', async () => {
    let id = 100;
    for (const shape of malformedRequests(0)) {
      const n = id++;
      const request = malformedRequests(n, era === 'modern' ? META : undefined).find(
        (s) => s.what === shape.what,
      );
      if (!request) throw new Error('unreachable');
      server.send(request.message);
      server.send({
        jsonrpc: '2.0',
        id: `after-${n}`,
        method: 'ping',
        ...(era === 'modern' ? { params: { _meta: META } } : {}),
      });
      // The ping's answer comes at once; a tool call's error may come after it, so wait for both.
      const answers = await server.until(`after-${n}`);
      if (!answers.some((answer) => answer.id === request.answerId && 'error' in answer)) {
        const late = await Promise.race([
          server.until(request.answerId),
          new Promise<undefined>((done) => setTimeout(() => done(undefined), 3000)),
        ]);
        answers.push(...(late ?? []));
      }
      const others = answers.filter((answer) => answer.id !== `after-${n}`);
      expect(others, request.what).toEqual([
        expect.objectContaining({
          jsonrpc: '2.0',
          id: request.answerId,
          error: expect.objectContaining({ code: expect.any(Number) }),
        }),
      ]);
    }
  }, 60_000);

  it('refuses a _meta nested 100,000 deep with a clear error, and answers the next request', async () => {
    server.sendRaw(deepList(900, 100_000, era));
    expect(await server.next(900)).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/nests objects and arrays more than 64 deep/) },
    });
    server.sendRaw(deepList(901, 10, era));
    expect(await server.next(901)).toMatchObject({ result: { tools: expect.any(Array) } });
  }, 60_000);
});

describe('over HTTP and the native socket', () => {
  let app: App;
  let http: RunningHttpServer;
  let socket: SocketServer;
  let dir: string;
  beforeAll(async () => {
    app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' });
    http = await startHttpServer({
      port: 0,
      log: () => {},
      dispatcher: app.dispatcher,
      createServer: (_, era) => app.createServer(httpCaller, { era, perRequest: era === 'modern' }),
    });
    dir = mkdtempSync(join(tmpdir(), 'jl-malformed-'));
    socket = await startSocketServer({
      path: join(dir, 's.sock'),
      handler: dispatchHandler(app.dispatcher),
      allowedCapabilities: [],
      serverVersion: 'malformed 0',
      log: () => {},
    });
  }, 60_000);
  afterAll(async () => {
    await socket?.close();
    await http?.close();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers each malformed request with a JSON-RPC error, in a 2025 session and in 2026-07-28', async () => {
    const session = await openSession(http.url);
    const modernHeaders = { 'mcp-protocol-version': MODERN };
    for (const era of ['legacy', 'modern'] as const) {
      for (const request of malformedRequests(7, era === 'modern' ? META : undefined)) {
        // A JSON string goes as JSON (send() takes a string as the raw body).
        const body = typeof request.message === 'string' ? JSON.stringify(request.message) : request.message;
        const reply = await send(http.url, body, era === 'legacy' ? session.headers : modernHeaders);
        expect(reply.status, `${era}: ${request.what}`).toBeGreaterThanOrEqual(200);
        expect(reply.body, `${era}: ${request.what}: ${reply.status} ${reply.text}`).toMatchObject({
          jsonrpc: '2.0',
          id: request.answerId,
          error: { code: expect.any(Number) },
        });
      }
    }
    // A `_meta` 100,000 deep: a 400 that says why, not a 500.
    for (const era of ['legacy', 'modern'] as const) {
      const reply = await send(
        http.url,
        deepList(8, 100_000, era),
        era === 'legacy' ? session.headers : modernHeaders,
      );
      expect(reply.status, era).toBe(400);
      expect(reply.body, era).toMatchObject({
        id: 8,
        error: { code: -32600, message: expect.stringMatching(/64 deep/) },
      });
    }
    // The session is still good.
    expect((await session.call('ping')).body).toMatchObject({ result: {} });
  }, 60_000);

  it('answers each malformed native message with an error frame and keeps the connection', async () => {
    const client = await FrameClient.connect(socket.path);
    try {
      for (const request of malformedRequests(7)) {
        expect(await client.request(request.message), request.what).toMatchObject({ type: 'error' });
      }
      expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong' });
    } finally {
      client.close();
    }
  });
});
