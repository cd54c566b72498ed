/**
 * Hostile peers against a real socket: random bytes, frames of the wrong shape, giant and
 * truncated frames, slow trickles. The server must answer each with the right frame or close
 * that one connection, never crash, never log a handler failure, and serve a good client after.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeHandler } from '../../test/support/fakeSocketHandler.js';
import { FrameClient } from '../device/frameClient.js';
import { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from '../device/frames.js';
import { type SocketServer, startSocketServer } from './server.js';

let dir: string;
let server: SocketServer;
const logged: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jl-sock-fuzz-'));
  server = await startSocketServer({
    path: join(dir, 'f.sock'),
    handler: fakeHandler(),
    allowedCapabilities: ['jumperless.read', 'jumperless.power'],
    serverVersion: 'jumperless-mcp 0.1.0',
    frameTimeoutMs: 2000,
    maxConnections: 1000,
    log: (line) => logged.push(line),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends chunks (with an optional pause between them), half-closes, returns every frame received. */
function exchange(chunks: Buffer[], pauseMs = 0): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(server.path);
    const decoder = new FrameDecoder(64 * 1024 * 1024);
    const got: unknown[] = [];
    socket.on('data', (chunk: Buffer) => {
      const { messages, error } = decoder.push(chunk);
      got.push(...messages);
      if (error) reject(error);
    });
    // The server may close before we finish writing: that is an answer, not a failure.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
    socket.once('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (pauseMs > 0) await sleep(pauseMs);
      }
      socket.end();
    });
  });
}

/** Random JSON of every kind, sometimes big. */
function randomJson(depth = 0): unknown {
  const pick = Math.floor(Math.random() * (depth > 2 ? 6 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return Math.random() < 0.5;
    case 2:
      return [0, -1, 1e308, -0, 2 ** 53 + 1, 3.5][Math.floor(Math.random() * 6)];
    case 3:
      return randomBytes(Math.floor(Math.random() * 40)).toString('latin1');
    case 4:
      return Math.random() < 0.1 ? 'x'.repeat(100_000) : '';
    case 5:
      return ['ping', 'hello', 'run_tool', 'jumperless.echo', 'jumperless.read', '__proto__'][
        Math.floor(Math.random() * 6)
      ];
    case 6:
      return Array.from({ length: Math.floor(Math.random() * 4) }, () => randomJson(depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(Math.random() * 4) }, (_, i) => [
          ['type', 'tool_id', 'args', 'dry_run', 'requested_capabilities', 'client_id', 'cursor', `k${i}`][
            Math.floor(Math.random() * 8)
          ],
          randomJson(depth + 1),
        ]),
      );
  }
}

const FIELDS: Record<string, string[]> = {
  hello: ['client_id', 'requested_capabilities', 'ucan_tokens'],
  tool_schema: ['tool_id'],
  run_tool: ['tool_id', 'args', 'dry_run'],
  run_tool_continue: ['tool_id', 'cursor'],
  ping: [],
  tool_list: [],
};
const RESPONSE_TYPES = new Set(['pong', 'hello_ack', 'tool_list', 'tool_schema', 'tool_result', 'error']);

async function stillServes(): Promise<void> {
  const client = await FrameClient.connect(server.path);
  expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong' });
  client.close();
}

describe('socket fuzz', () => {
  it('answers frames of the wrong shape with error frames, one answer per frame', async () => {
    const frames: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      const type = Object.keys(FIELDS)[i % 6] ?? 'ping';
      const message: Record<string, unknown> = { type };
      for (const field of FIELDS[type] ?? []) if (Math.random() < 0.7) message[field] = randomJson();
      frames.push(encodeFrame(i % 50 === 0 ? randomJson() : message));
    }
    for (let batch = 0; batch < frames.length; batch += 300) {
      const replies = (await exchange([Buffer.concat(frames.slice(batch, batch + 300))])) as Record<
        string,
        unknown
      >[];
      expect(replies).toHaveLength(300);
      for (const reply of replies) {
        expect(RESPONSE_TYPES.has(String(reply.type))).toBe(true);
        if (reply.type === 'error') {
          expect(typeof reply.message).toBe('string');
          expect(String(reply.message)).not.toMatch(/\n\s+at /);
          expect([undefined, 1001, 1021]).toContain(reply.code);
        }
      }
    }
    expect(logged).toEqual([]);
    await stillServes();
  });

  it('closes each connection that sends random bytes, with at most one error frame, and keeps serving', async () => {
    const peers = Array.from({ length: 300 }, (_, i) => {
      const garbage = randomBytes(1 + (i % 200));
      // A third start with a plausible small length so bodies complete and reach the parser.
      if (i % 3 === 0 && garbage.length >= 4) garbage.writeUInt32BE(garbage.length - 4, 0);
      const chunks: Buffer[] = [];
      for (let at = 0; at < garbage.length; at += 1 + (i % 7))
        chunks.push(garbage.subarray(at, at + 1 + (i % 7)));
      return exchange(chunks);
    });
    const results = (await Promise.all(peers)) as Record<string, unknown>[][];
    for (const replies of results) {
      const errors = replies.filter((r) => r.type === 'error');
      expect(errors.length).toBeLessThanOrEqual(1);
      if (errors.length === 1) expect(replies.at(-1)).toEqual(errors[0]);
    }
    expect(results.filter((r) => r.some((m) => m.type === 'error')).length).toBeGreaterThan(250);
    while (server.connectionCount() > 0) await sleep(5);
    await stillServes();
  });

  it('refuses giant frames from the header, and an answer over the cap becomes an error frame', async () => {
    const [refused] = (await exchange([Buffer.from([0x00, 0xa0, 0x00, 0x01])])) as Record<string, unknown>[];
    expect(refused).toEqual({
      type: 'error',
      message: `frame of ${0xa00001} bytes is over the ${MAX_FRAME_BYTES}-byte limit`,
      retryable: false,
    });
    // A request just under the cap whose echo is over it.
    const big = 'x'.repeat(MAX_FRAME_BYTES - 60);
    const replies = (await exchange([
      encodeFrame({ type: 'hello', requested_capabilities: ['jumperless.read'] }),
      encodeFrame({ type: 'run_tool', tool_id: 'jumperless.echo', args: big }),
      encodeFrame({ type: 'ping' }),
    ])) as Record<string, unknown>[];
    expect(replies.map((r) => r.type)).toEqual(['hello_ack', 'error', 'pong']);
    expect(replies[1]?.message).toMatch(/^the tool_result answer is over the frame limit/);
  });

  it('serves many slow peers trickling frames at once', async () => {
    const frame = Buffer.concat([
      encodeFrame({ type: 'hello', client_id: 'slow', requested_capabilities: ['jumperless.read'] }),
      encodeFrame({ type: 'run_tool', tool_id: 'jumperless.echo', args: { n: [1, 2, 3] } }),
    ]);
    const chunks = Array.from({ length: Math.ceil(frame.length / 4) }, (_, i) =>
      frame.subarray(i * 4, i * 4 + 4),
    );
    const results = (await Promise.all(Array.from({ length: 40 }, () => exchange(chunks, 1)))) as Record<
      string,
      unknown
    >[][];
    for (const replies of results) {
      expect(replies.map((r) => r.type)).toEqual(['hello_ack', 'tool_result']);
    }
  });
});
