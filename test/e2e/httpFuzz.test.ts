/**
 * Hostile input on the HTTP endpoint (issue 5 "Bad input"): malformed and truncated JSON, valid
 * JSON of the wrong shape, giant bodies, bodies that trickle in, thousands of bad bearers, and
 * broken HTTP itself. The server must keep answering, with the right status and a JSON body that
 * carries no stack trace, must never echo a token, and its heap must not keep growing.
 * Inputs come from a seeded generator, so a failure replays.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTokenStore, mintToken } from '../../src/auth/index.js';
import { createDispatcher } from '../../src/core/dispatcher.js';
import { ToolSubsystem } from '../../src/core/toolSubsystem.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/app.js';
import { httpCaller } from '../../src/http/caller.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { conformanceTools } from '../fixtures/conformance/fixtures.js';
import { bearer, INIT, openSession, type RawSession, type Reply, send } from './httpReplies.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const BODY_LIMIT = 64 * 1024;
const BODY_TIMEOUT_MS = 300;
/** Statuses a hostile request may get; 500 would be a bug of ours. */
const EXPECTED = new Set([200, 202, 400, 401, 404, 405, 406, 408, 413, 415, 431]);
const STACK = /\n\s+at |\(\S+:\d+:\d+\)|\.ts:\d+|node:internal/;

/** mulberry32: small, seeded, good enough to pick fuzz inputs. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let dir: string;
let server: RunningHttpServer;
let token: string;
const logs: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jlmcp-fuzz-'));
  const store = new FileTokenStore(join(dir, 'tokens.json'));
  ({ token } = await store.create({ capabilities: ['jumperless.read'] }));
  const dispatcher = createDispatcher({
    root: new ToolSubsystem({ name: 'local', tools: conformanceTools }),
  });
  server = await startHttpServer({
    port: 0,
    bodyLimit: BODY_LIMIT,
    bodyTimeoutMs: BODY_TIMEOUT_MS,
    auth: { broker: store },
    log: (line) => logs.push(line),
    createServer: (_, era) =>
      createMcpServer({
        dispatcher,
        era,
        caller: httpCaller,
        perRequest: era === 'modern',
      }),
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function checkReply(reply: Reply, what: string): void {
  expect(EXPECTED.has(reply.status), `${what}: status ${reply.status} ${reply.text.slice(0, 200)}`).toBe(
    true,
  );
  expect(reply.text, what).not.toMatch(STACK);
  expect(reply.text, what).not.toContain(token);
  if (reply.text === '') return;
  expect(reply.headers.get('content-type'), what).toMatch(/application\/json|text\/event-stream/);
  expect(reply.body?.jsonrpc, what).toBe('2.0');
}

/** The server still does its job. */
async function stillServing(): Promise<void> {
  const session = await openSession(server.url, bearer(token));
  const reply = await session.tool('test_simple_text');
  expect(reply.body?.result?.structuredContent).toEqual({
    text: 'This is a simple text response for testing.',
  });
}

/** Raw bytes over TCP, in chunks with pauses; resolves with everything the server sent before closing. */
function rawExchange(chunks: (string | Buffer)[], pauseMs = 0, endAfter = true): Promise<string> {
  return new Promise((done) => {
    const socket = connect(server.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => done(received));
    // A guard, not an assertion: a server that never answers leaves `received` empty.
    setTimeout(() => socket.destroy(), 5000).unref();
    void (async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (pauseMs > 0) await new Promise((wait) => setTimeout(wait, pauseMs));
      }
      if (endAfter && !socket.destroyed) socket.end();
    })();
  });
}

function parseRaw(text: string): { status: number; body: string } {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: rest.join('\r\n\r\n') };
}

const VALID = [
  INIT,
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } },
];

function mangledJson(next: () => number): string {
  const source = JSON.stringify(VALID[Math.floor(next() * VALID.length)]);
  switch (Math.floor(next() * 6)) {
    case 0:
      return source.slice(0, Math.floor(next() * source.length)); // truncated
    case 1: {
      const at = Math.floor(next() * source.length);
      return source.slice(0, at) + String.fromCharCode(Math.floor(next() * 128)) + source.slice(at + 1);
    }
    case 2:
      return Buffer.from(
        Array.from({ length: 1 + Math.floor(next() * 300) }, () => Math.floor(next() * 256)),
      ).toString('latin1');
    case 3:
      return `${'['.repeat(20_000)}${']'.repeat(20_000)}`; // deep nesting
    case 4:
      return `\uFEFF${source}`; // a byte order mark
    default:
      return `${source}${source}`; // two documents
  }
}

const WRONG_SHAPES: unknown[] = [
  null,
  0,
  -1.5e308,
  'initialize',
  [],
  [INIT, INIT],
  {},
  { jsonrpc: '1.0', id: 1, method: 'initialize' },
  { jsonrpc: '2.0', id: { nested: true }, method: 'tools/list' },
  { jsonrpc: '2.0', id: 1, method: 42 },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'name' },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 7, arguments: [] } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_simple_text', arguments: 'x' } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x'.repeat(50_000) } },
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 7 } },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } },
  { __proto__: { polluted: true }, jsonrpc: '2.0', id: 1, method: 'tools/list' },
];

describe('HTTP fuzz', () => {
  let session: RawSession;
  beforeAll(async () => {
    session = await openSession(server.url, bearer(token));
  });

  it('malformed and truncated JSON: 400 / -32700, with or without a session', async () => {
    const next = random(1);
    for (let i = 0; i < 300; i++) {
      const body = mangledJson(next);
      const headers = i % 2 === 0 ? session.headers : bearer(token);
      const reply = await send(server.url, body, headers);
      checkReply(reply, `mangled #${i}`);
      let valid = true;
      try {
        JSON.parse(body);
      } catch {
        valid = false;
      }
      if (!valid) expect(reply.body?.error?.code, `mangled #${i}`).toBe(-32700);
    }
    await stillServing();
  });

  it('valid JSON of the wrong shape: a JSON-RPC error, never a crash', async () => {
    for (const [i, shape] of WRONG_SHAPES.entries()) {
      for (const headers of [session.headers, bearer(token), {}]) {
        checkReply(await send(server.url, JSON.stringify(shape), headers), `shape #${i}`);
      }
    }
    await stillServing();
  });

  it('params or tool arguments that are not an object: -32602 with the request id, not a schema dump', async () => {
    const cases = [
      { jsonrpc: '2.0', id: 21, method: 'tools/list', params: [] },
      { jsonrpc: '2.0', id: 22, method: 'tools/call', params: 'name' },
      ...[null, [], 'x', 1].map((args, i) => ({
        jsonrpc: '2.0',
        id: 23 + i,
        method: 'tools/call',
        params: { name: 'test_simple_text', arguments: args },
      })),
    ];
    for (const request of cases) {
      const reply = await send(server.url, JSON.stringify(request), session.headers);
      expect(reply.body, JSON.stringify(request)).toMatchObject({ id: request.id, error: { code: -32602 } });
      expect(JSON.stringify(reply.body)).not.toMatch(/invalid_type|"path"/);
    }
    await stillServing();
  });

  it('giant bodies: 413 whether declared or chunked', async () => {
    const giant = JSON.stringify({ ...INIT, pad: 'x'.repeat(BODY_LIMIT * 4) });
    const declared = await send(server.url, giant, bearer(token));
    checkReply(declared, 'declared');
    expect(declared.status).toBe(413);
    const chunked = parseRaw(
      await rawExchange([
        'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        ...Array.from(
          { length: 8 },
          () => `${(BODY_LIMIT / 2).toString(16)}\r\n${'y'.repeat(BODY_LIMIT / 2)}\r\n`,
        ),
        '0\r\n\r\n',
      ]),
    );
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: { code: -32600 } });
    await stillServing();
  });

  it('truncated and slow bodies: 408 in JSON for a body that stalls or trickles, no crash on a cut one', async () => {
    const head = (length: number) =>
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const replies = await Promise.all([
      // Says 1000 bytes, sends 10, then waits.
      rawExchange([head(1000), '{"jsonrpc"'], 0, false),
      // Trickles one byte every 40 ms: never done within the deadline.
      rawExchange([head(200), ...'{"jsonrpc":"2.0","id":1,"method":"initialize"}'.split('')], 40, false),
      ...Array.from({ length: 20 }, () => rawExchange([head(500), '{"a":'], 0, false)),
    ]);
    for (const raw of replies) {
      const { status, body } = parseRaw(raw);
      expect(status).toBe(408);
      expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    }
    // Cut off mid-body: the peer is gone, nothing to answer, the server carries on.
    await Promise.all(Array.from({ length: 20 }, () => rawExchange([head(1000), '{"jsonrpc":'], 0, true)));
    await stillServing();
  });

  it('thousands of bad bearers: 401 (400 when empty), never 200, never echoed, never logged', async () => {
    const next = random(2);
    const mutate = (text: string) => {
      const at = Math.floor(next() * text.length);
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      return text.slice(0, at) + alphabet[Math.floor(next() * alphabet.length)] + text.slice(at + 1);
    };
    const bad: string[] = [];
    for (let i = 0; i < 1000; i++) bad.push(mintToken());
    for (let i = 0; i < 1000; i++) {
      const mutated = mutate(token);
      if (mutated !== token) bad.push(mutated);
    }
    for (let i = 0; i < 500; i++) {
      const length = 1 + Math.floor(next() * 200);
      bad.push(Array.from({ length }, () => String.fromCharCode(33 + Math.floor(next() * 94))).join(''));
    }
    bad.push('x'.repeat(8000), `${token} ${token}`, `${token}x`, token.slice(0, -1), 'jlmcp_', '"', '\\');
    const counts = new Map<number, number>();
    // 16 at a time, as clients would.
    for (let i = 0; i < bad.length; i += 16) {
      const replies = await Promise.all(
        bad
          .slice(i, i + 16)
          .map((candidate) => send(server.url, INIT, { authorization: `Bearer ${candidate}` })),
      );
      for (const [j, reply] of replies.entries()) {
        const candidate = bad[i + j] as string;
        checkReply(reply, `bearer #${i + j}`);
        expect(reply.status, `bearer #${i + j}`).toBe(401);
        expect(reply.body?.error?.code).toBe(-32002);
        if (candidate.length > 8) expect(reply.text).not.toContain(candidate);
        counts.set(reply.status, (counts.get(reply.status) ?? 0) + 1);
      }
    }
    expect(counts.get(401)).toBe(bad.length);
    for (const header of ['Bearer', 'Bearer  ', 'Basic x', 'Digest', '']) {
      const reply = await send(server.url, INIT, { authorization: header });
      checkReply(reply, header);
      expect(reply.status).toBe(400);
    }
    expect(logs.join('\n')).not.toContain(token);
    await stillServing();
  });

  it('broken HTTP: a JSON body from the parser errors too (400, 431)', async () => {
    const garbage = parseRaw(await rawExchange(['GARBAGE\r\n\r\n']));
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const badHeader = parseRaw(await rawExchange(['POST /mcp HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']));
    expect(badHeader.status).toBe(400);
    const huge = parseRaw(
      await rawExchange([`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`]),
    );
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject({ error: { code: -32600 } });
    const next = random(3);
    for (let i = 0; i < 100; i++) {
      const bytes = Buffer.from(
        Array.from({ length: 1 + Math.floor(next() * 400) }, () => Math.floor(next() * 256)),
      );
      const { status, body } = parseRaw(await rawExchange([bytes]));
      if (status !== 0) {
        expect(EXPECTED.has(status), `random bytes #${i}: ${status}`).toBe(true);
        expect(body).not.toMatch(STACK);
      }
    }
    await stillServing();
  });

  it('the heap stays flat over rounds of all of it', async () => {
    const next = random(4);
    const round = async () => {
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) work.push(send(server.url, mangledJson(next), bearer(token)));
      for (const shape of WRONG_SHAPES) work.push(send(server.url, JSON.stringify(shape), session.headers));
      for (let i = 0; i < 100; i++) work.push(send(server.url, INIT, bearer(mintToken())));
      work.push(
        send(server.url, JSON.stringify({ ...INIT, pad: 'x'.repeat(BODY_LIMIT * 2) }), bearer(token)),
      );
      work.push(rawExchange(['GARBAGE\r\n\r\n']));
      work.push(stillServing());
      await Promise.all(work);
    };
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    for (let i = 0; i < 3; i++) await round(); // warm up: code, caches, the session pool
    const before = heap();
    for (let i = 0; i < 15; i++) await round();
    const after = heap();
    const growthMiB = (after - before) / 2 ** 20;
    process.stderr.write(
      `http fuzz heap: ${(before / 2 ** 20).toFixed(1)} MiB -> ${(after / 2 ** 20).toFixed(1)} MiB over 15 rounds\n`,
    );
    // Each round opens sessions (capped at 64) and sends ~4000 requests' worth of bytes; a leak
    // of even a few hundred bytes per request would show as tens of MiB.
    expect(growthMiB).toBeLessThan(8);
  });
});
