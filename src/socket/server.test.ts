import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeHandler, fakeHandler } from '../../test/support/fakeSocketHandler.js';
import { FrameClient } from '../device/frameClient.js';
import { encodeFrame } from '../device/frames.js';
import { defaultSocketPath } from '../device/socketPath.js';
import { type SocketServer, type SocketServerOptions, startSocketServer } from './server.js';

let dir: string;
let server: SocketServer | undefined;
let handler: FakeHandler;
let logged: string[];
const clients: FrameClient[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jl-sock-'));
  handler = fakeHandler();
  logged = [];
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function start(options: Partial<SocketServerOptions> = {}): Promise<SocketServer> {
  server = await startSocketServer({
    path: join(dir, 'jl.sock'),
    handler,
    allowedCapabilities: ['jumperless.read', 'jumperless.power', 'jumperless.wire'],
    serverVersion: 'jumperless-mcp 0.1.0',
    log: (line) => logged.push(line),
    ...options,
  });
  return server;
}

async function connect(path = server?.path ?? ''): Promise<FrameClient> {
  const client = await FrameClient.connect(path);
  clients.push(client);
  return client;
}

/** A raw connection: bytes in, everything the server sent out once it closes. */
function raw(path: string): { socket: Socket; output: Promise<Buffer> } {
  const socket = createConnection(path);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  const output = new Promise<Buffer>((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks))));
  return { socket, output };
}

function framesIn(bytes: Buffer): unknown[] {
  const out: unknown[] = [];
  for (let at = 0; at + 4 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    out.push(JSON.parse(bytes.subarray(at + 4, at + 4 + length).toString('utf8')));
    at += 4 + length;
  }
  return out;
}

describe('socket server', () => {
  it('listens on a 0600 socket and removes it on close', async () => {
    const { path } = await start();
    expect(statSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await server?.close();
    server = undefined;
    expect(() => statSync(path)).toThrow(/ENOENT/);
  });

  it('defaults to the runtime dir, else a private temp folder', () => {
    expect(defaultSocketPath({ XDG_RUNTIME_DIR: '/run/user/1000' })).toBe(
      '/run/user/1000/jumperless-mcp.sock',
    );
    expect(defaultSocketPath({})).toBe(
      join(tmpdir(), `jumperless-mcp-${process.getuid?.()}`, 'jumperless-mcp.sock'),
    );
  });

  it('grants nothing before hello, then requested ∩ allow-list', async () => {
    await start();
    const client = await connect();
    expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong' });
    expect(await client.request({ type: 'run_tool', tool_id: 'jumperless.echo', args: {} })).toEqual({
      type: 'error',
      message: 'capability denied: jumperless.echo needs jumperless.read',
      code: 1001,
      retryable: false,
      details: { required: ['jumperless.read'], granted: [], missing: ['jumperless.read'] },
    });
    expect(
      await client.request({
        type: 'hello',
        client_id: 'bench-script',
        requested_capabilities: ['jumperless.read', 'jumperless.exec', 'jumperless.wire'],
      }),
    ).toEqual({
      type: 'hello_ack',
      granted_capabilities: ['jumperless.read', 'jumperless.wire'],
      server_version: 'jumperless-mcp 0.1.0',
      supported_tiers: ['hot', 'warm', 'cold'],
    });
    const args = { nested: { list: [1, { deep: null }], text: 'µ✓' }, empty: {} };
    expect(
      await client.request({ type: 'run_tool', tool_id: 'jumperless.echo', args, dry_run: false }),
    ).toEqual({
      type: 'tool_result',
      tool_id: 'jumperless.echo',
      result: { echoed: args },
      success: true,
      dry_run: false,
    });
    const last = handler.calls.at(-1)?.context;
    expect(last).toMatchObject({
      callerId: 'bench-script',
      capabilities: ['jumperless.read', 'jumperless.wire'],
    });
    expect(last?.connectionId).toBeGreaterThan(0);
  });

  it('carries denials, tool failures, dry runs, hidden tools and unknown tools', async () => {
    await start();
    const client = await connect();
    await client.request({ type: 'hello', requested_capabilities: ['jumperless.read', 'jumperless.power'] });
    expect(
      await client.request({ type: 'run_tool', tool_id: 'jumperless.python_exec', args: { code: '1' } }),
    ).toMatchObject({
      type: 'error',
      code: 1001,
      retryable: false,
      details: { missing: ['jumperless.exec'] },
    });
    expect(
      await client.request({ type: 'run_tool', tool_id: 'jumperless.dac_fail', args: { volts: 99 } }),
    ).toEqual({
      type: 'tool_result',
      tool_id: 'jumperless.dac_fail',
      result: { code: 'out_of_range', message: 'volts must be within -8..8 V.', retryable: false },
      success: false,
      dry_run: false,
    });
    expect(
      await client.request({ type: 'run_tool', tool_id: 'jumperless.echo', args: { a: 1 }, dry_run: true }),
    ).toEqual({
      type: 'tool_result',
      tool_id: 'jumperless.echo',
      result: { dry_run: true, tool_id: 'jumperless.echo', args_preview: { a: 1 } },
      success: true,
      dry_run: true,
    });
    const list = (await client.request({ type: 'tool_list' })) as { type: string; tools: { id: string }[] };
    expect(list.type).toBe('tool_list');
    expect(list.tools.map((t) => t.id)).not.toContain('jumperless.python_exec');
    expect(list.tools.map((t) => t.id)).toContain('jumperless.echo');
    expect(await client.request({ type: 'tool_schema', tool_id: 'jumperless.python_exec' })).toMatchObject({
      type: 'tool_schema',
      schema: {
        id: 'jumperless.python_exec',
        visibility: 'hidden',
        required_capabilities: ['jumperless.exec'],
      },
    });
    expect(await client.request({ type: 'tool_schema', tool_id: 'jumperless.nope' })).toEqual({
      type: 'error',
      message: 'unknown tool: jumperless.nope',
      retryable: false,
    });
    expect(await client.request({ type: 'run_tool', tool_id: 'jumperless.nope' })).toEqual({
      type: 'error',
      message: 'unknown tool: jumperless.nope',
      retryable: false,
    });
    expect(
      await client.request({ type: 'run_tool_continue', tool_id: 'jumperless.echo', cursor: 'abc' }),
    ).toMatchObject({
      type: 'error',
      code: 1021,
      retryable: false,
    });
  });

  it('answers pipelined requests in order', async () => {
    await start();
    const client = await connect();
    const frames: unknown[] = [{ type: 'hello', requested_capabilities: ['jumperless.read'] }];
    for (let i = 0; i < 200; i++) {
      frames.push(
        i % 3 === 0 ? { type: 'ping' } : { type: 'run_tool', tool_id: 'jumperless.echo', args: { i } },
      );
    }
    client.socket.write(Buffer.concat(frames.map((f) => encodeFrame(f))));
    expect((await client.next()) as { type: string }).toMatchObject({ type: 'hello_ack' });
    for (let i = 0; i < 200; i++) {
      const reply = await client.next();
      expect(reply).toEqual(
        i % 3 === 0
          ? { type: 'pong' }
          : expect.objectContaining({ type: 'tool_result', result: { echoed: { i } } }),
      );
    }
  });

  it('answers a request of the wrong shape and keeps the connection', async () => {
    await start();
    const client = await connect();
    expect(await client.request({ type: 'run_tool', tool_id: 42 })).toMatchObject({
      type: 'error',
      message: expect.stringMatching(/^bad run_tool: tool_id: /),
      retryable: false,
    });
    expect(await client.request([1, 2])).toMatchObject({ type: 'error', message: /JSON object/ });
    expect(await client.request({ type: 'tools/call' })).toMatchObject({
      type: 'error',
      message: /unknown message type/,
    });
    expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong' });
  });

  it('closes only the connection that sent a bad frame', async () => {
    const { path } = await start();
    const bystander = await connect();
    await bystander.request({ type: 'hello', requested_capabilities: ['jumperless.read'] });
    const cases: [Buffer, RegExp][] = [
      [Buffer.concat([Buffer.from([0, 0, 0, 5]), Buffer.from('{nope')]), /not valid JSON/],
      [Buffer.from([0xff, 0xff, 0xff, 0xff]), /over the 10485760-byte limit/],
      [Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from([0x22, 0xc3, 0x22])]), /not valid UTF-8/],
      [Buffer.concat([encodeFrame({ type: 'ping' }), Buffer.from([0, 0, 0, 0])]), /not valid JSON \(empty\)/],
    ];
    for (const [bytes, message] of cases) {
      const { socket, output } = raw(path);
      socket.write(bytes);
      const replies = framesIn(await output);
      expect(replies.at(-1)).toEqual({
        type: 'error',
        message: expect.stringMatching(message),
        retryable: false,
      });
      // Frames before the bad one were answered first.
      if (replies.length > 1) expect(replies[0]).toEqual({ type: 'pong' });
    }
    expect(await bystander.request({ type: 'run_tool', tool_id: 'jumperless.echo', args: 1 })).toMatchObject({
      success: true,
    });
    expect(handler.calls).toHaveLength(1);
  });

  it('closes a connection whose frame stalls, and one that ends mid-frame', async () => {
    const { path } = await start({ frameTimeoutMs: 100 });
    const stalled = raw(path);
    stalled.socket.write(encodeFrame({ type: 'ping' }).subarray(0, 7));
    expect(framesIn(await stalled.output)).toEqual([
      { type: 'error', message: 'incomplete frame: nothing more arrived for 100 ms', retryable: false },
    ]);
    const cut = raw(path);
    cut.socket.end(encodeFrame({ type: 'ping' }).subarray(0, 2));
    expect(framesIn(await cut.output)).toEqual([
      { type: 'error', message: 'connection ended in the middle of a frame', retryable: false },
    ]);
    // An idle connection between frames is never timed out.
    const idle = await connect();
    await sleep(250);
    expect(await idle.request({ type: 'ping' })).toEqual({ type: 'pong' });
  });

  it('accepts a frame sent a few bytes at a time while it keeps moving', async () => {
    const { path } = await start({ frameTimeoutMs: 1000 });
    const { socket, output } = raw(path);
    const frame = encodeFrame({
      type: 'hello',
      client_id: 'slow',
      requested_capabilities: ['jumperless.read'],
    });
    for (let at = 0; at < frame.length; at += 3) {
      socket.write(frame.subarray(at, at + 3));
      await sleep(2);
    }
    socket.end();
    expect(framesIn(await output)).toEqual([expect.objectContaining({ type: 'hello_ack' })]);
  });

  it('answers everything a half-closed client sent before its end', async () => {
    const { path } = await start();
    const { socket, output } = raw(path);
    socket.end(Buffer.concat([encodeFrame({ type: 'ping' }), encodeFrame({ type: 'tool_list' })]));
    const replies = framesIn(await output) as { type: string }[];
    expect(replies.map((r) => r.type)).toEqual(['pong', 'tool_list']);
  });

  it('aborts a running call when its client goes away', async () => {
    await start();
    const client = await connect();
    await client.request({ type: 'hello', requested_capabilities: ['jumperless.read'] });
    client.send({ type: 'run_tool', tool_id: 'jumperless.wait_forever', args: {} });
    while (handler.waiting.length === 0) await sleep(5);
    expect(handler.waiting[0]?.aborted).toBe(false);
    client.close();
    while (!handler.waiting[0]?.aborted) await sleep(5);
    expect(server?.connectionCount()).toBe(0);
  });

  it('turns a handler crash into an error frame and a log line, without details', async () => {
    await start();
    const client = await connect();
    await client.request({ type: 'hello', requested_capabilities: ['jumperless.read'] });
    expect(await client.request({ type: 'run_tool', tool_id: 'jumperless.crash' })).toEqual({
      type: 'error',
      message: 'internal error while handling run_tool',
      retryable: false,
    });
    expect(logged).toEqual([expect.stringMatching(/^connection \d+: run_tool failed: Error: handler bug/)]);
    expect(await client.request({ type: 'ping' })).toEqual({ type: 'pong' });
  });

  it('refuses connections over the limit with an error frame', async () => {
    const { path } = await start({ maxConnections: 2 });
    const a = await connect();
    const b = await connect();
    await a.request({ type: 'ping' });
    await b.request({ type: 'ping' });
    const third = raw(path);
    expect(framesIn(await third.output)).toEqual([
      { type: 'error', message: 'too many connections (limit 2)', retryable: true },
    ]);
    a.close();
    await a.closed();
    while ((server?.connectionCount() ?? 0) > 1) await sleep(5);
    const fourth = await connect();
    expect(await fourth.request({ type: 'ping' })).toEqual({ type: 'pong' });
  });

  it('replaces a stale socket but never a live one or another file', async () => {
    const path = join(dir, 'jl.sock');
    // A stale socket: its server was killed before it could unlink it.
    spawnSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    expect(statSync(path).isSocket()).toBe(true);
    await start({ path });
    expect(await (await connect()).request({ type: 'ping' })).toEqual({ type: 'pong' });
    await expect(start({ path })).rejects.toThrow(/another server is already listening on .*jl\.sock/);
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'keep me');
    await expect(
      startSocketServer({ path: file, handler, allowedCapabilities: [], serverVersion: 'x' }),
    ).rejects.toThrow(/exists and is not a socket/);
    await expect(
      startSocketServer({
        path: join(dir, 'x'.repeat(120)),
        handler,
        allowedCapabilities: [],
        serverVersion: 'x',
      }),
    ).rejects.toThrow(/longer than 107 bytes/);
  });
});
