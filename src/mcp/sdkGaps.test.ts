/**
 * What the SDK (@modelcontextprotocol/server, bare: none of our checks) does with the inputs our own
 * small checks exist for (docs/sdk-gaps.md). Each case fails once the SDK closes its gap: then the
 * check of ours it names can go, and the entry in docs/sdk-gaps.md with it.
 */
import { PassThrough } from 'node:stream';
import { ResourceNotFoundError, Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

interface Wire {
  send(message: unknown): void;
  sendLine(line: string): void;
  /** Everything the server wrote, one parsed message per line. */
  seen(): Array<{ id?: unknown; result?: unknown; error?: { code: number; message: string } }>;
  input: PassThrough;
  closed: Promise<void>;
  close(): Promise<void>;
}

let wires: Wire[] = [];
/** The one tools/call in flight: whether it started, whether the SDK aborted it, and its release. */
let call: { started: boolean; aborted: boolean; released: Promise<void>; release(): void };
beforeEach(() => {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  call = { started: false, aborted: false, released, release };
});
afterEach(async () => {
  call.release();
  await Promise.all(wires.map((w) => w.close()));
  wires = [];
});

/** The SDK's stdio entry over in-memory streams, with a low-level Server like ours. */
async function bareSdk(): Promise<Wire> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  let onClosed = () => {};
  const closed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  const transport = new StdioServerTransport(
    input as unknown as typeof process.stdin,
    output as unknown as typeof process.stdout,
  );
  const handle = serveStdio(
    () => {
      const server = new Server(
        { name: 'bare', version: '0' },
        { capabilities: { tools: {}, resources: {} } },
      );
      server.setRequestHandler('tools/list', async () => ({
        tools: [{ name: 'slow', inputSchema: { type: 'object' } }],
      }));
      server.setRequestHandler('tools/call', async (_request, extra) => {
        // Runs until the test lets it answer; notes whether the SDK aborted it meanwhile.
        call.started = true;
        extra.mcpReq.signal.addEventListener('abort', () => {
          call.aborted = true;
        });
        await call.released;
        return { content: [{ type: 'text', text: 'done' }] };
      });
      server.setRequestHandler('resources/read', async (request) => {
        throw new ResourceNotFoundError(request.params.uri);
      });
      server.onclose = onClosed;
      return server;
    },
    { transport },
  );
  const wire: Wire = {
    input,
    closed,
    send: (message) => input.write(`${JSON.stringify(message)}\n`),
    sendLine: (line) => input.write(`${line}\n`),
    seen: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    close: () => handle.close(),
  };
  wires.push(wire);
  wire.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });
  await until(() => wire.seen().some((m) => m.id === 0));
  wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return wire;
}

async function until(done: () => boolean, ms = 2000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Lets the SDK answer what it is going to answer: a ping sent after is answered after it. */
async function settle(wire: Wire): Promise<void> {
  wire.send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
  await until(() => wire.seen().some((m) => m.id === 'ping'));
}

describe('the SDK without our checks (each case fails once the SDK closes the gap)', () => {
  it('answers nothing to a line that is not JSON (ours: -32700, mcp/stdio.ts)', async () => {
    const wire = await bareSdk();
    wire.sendLine('{not json');
    await settle(wire);
    expect(wire.seen().filter((m) => m.id === null || m.id === undefined)).toEqual([]);
  });

  it('answers nothing to a request whose params is not an object (ours: -32602, mcp/precheck.ts)', async () => {
    const wire = await bareSdk();
    wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: 5 });
    await settle(wire);
    expect(wire.seen().filter((m) => m.id === 1)).toEqual([]);
  });

  it('answers tools/call arguments that are not an object with a dump of its schema issues (ours: a sentence)', async () => {
    const wire = await bareSdk();
    wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: [1] } });
    await until(() => wire.seen().some((m) => m.id === 2));
    const error = wire.seen().find((m) => m.id === 2)?.error;
    // The code is right since 2.4 (2.0 said -32603); the message is the validator's issue list as JSON.
    expect(error?.code).toBe(-32602);
    expect(error?.message).toMatch(/^Invalid tools\/call request: \[\n/);
    expect(error?.message).toContain('"code": "invalid_type"');
  });

  it('sends a missing resource as -32602 on a 2025 connection too (ours: -32002, mcp/legacyCodes.ts)', async () => {
    const wire = await bareSdk();
    wire.send({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'x://nothing' } });
    await until(() => wire.seen().some((m) => m.id === 3));
    expect(wire.seen().find((m) => m.id === 3)?.error?.code).toBe(-32602);
  });

  it('aborts a call in flight when stdin ends, so its answer is lost (ours: drained, mcp/stdio.ts)', async () => {
    const wire = await bareSdk();
    wire.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await until(() => call.started);
    wire.input.end();
    await wire.closed;
    expect(call.aborted).toBe(true);
    call.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(wire.seen().filter((m) => m.id === 4)).toEqual([]);
  });
});
