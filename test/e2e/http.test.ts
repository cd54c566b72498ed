import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANONYMOUS_CAPABILITIES } from '../../src/core/capabilities.js';
import { startHttpServer } from '../../src/http/app.js';
import { conformanceExtras } from '../fixtures/conformance/fixtures.js';
import { rpcError } from '../support/rpcError.js';
import { openSession } from './httpReplies.js';
import { type HttpFixture, startHttpFixture } from './serverFixture.js';

/** What an anonymous HTTP caller holds by default. */
const ANONYMOUS = new Set(ANONYMOUS_CAPABILITIES);

let fx: HttpFixture;
beforeAll(async () => {
  fx = await startHttpFixture({}, undefined, conformanceExtras);
});
afterAll(async () => {
  await fx?.close();
});

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(fx.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });

describe('MCP over HTTP', () => {
  it('lists the catalog with input schemas and annotations; python_exec only with exec', async () => {
    const { client } = await fx.connect();
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['power_get', 'dac_set', 'test_simple_text']));
    expect(names).not.toContain('python_exec');
    const dacSet = tools.find((t) => t.name === 'dac_set');
    expect(dacSet?.inputSchema).toMatchObject({ type: 'object', required: ['channel', 'volts'] });
    // Output schemas stay out of the list unless the operator asks (--output-schemas); results
    // carry structuredContent either way. Hints at MCP's defaults are left out.
    expect(dacSet).not.toHaveProperty('outputSchema');
    expect(dacSet?.annotations).toEqual({ destructiveHint: false });
  });

  it('calls power_get and dac_set on the board; the text item is the JSON of structuredContent', async () => {
    const { client } = await fx.connect();
    const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'TOP_RAIL', volts: 5 } });
    expect(set.isError).toBeUndefined();
    expect(set.structuredContent).toMatchObject({ channel: 'TOP_RAIL', volts: 5 });
    const get = await client.callTool({ name: 'power_get', arguments: {} });
    expect(get.structuredContent).toMatchObject({ top_rail_volts: 5, dac0_volts: 3.33 });
    expect(get.content).toEqual([{ type: 'text', text: JSON.stringify(get.structuredContent) }]);
  });

  it('answers an unknown tool and invalid arguments with JSON-RPC -32602', async () => {
    const { client } = await fx.connect();
    const unknown = await rpcError(client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toMatch(/Unknown tool: no_such_tool/);
    const invalid = await rpcError(
      client.callTool({ name: 'dac_set', arguments: { channel: 'TOP_RAIL', volts: 99 } }),
    );
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toMatch(/volts/);
  });

  it('finds a hidden tool by name, and gates it: anonymous HTTP has no exec capability (1001)', async () => {
    const { client } = await fx.connect();
    const denied = await rpcError(client.callTool({ name: 'python_exec', arguments: { code: 'print(1)' } }));
    expect(denied.code).toBe(-32603);
    expect(denied.data).toMatchObject({ code: 1001, retryable: false, missing: ['jumperless.exec'] });
  });

  it('sends progress notifications for a progress token', async () => {
    const { client } = await fx.connect();
    const progress: number[] = [];
    await client.callTool(
      { name: 'test_tool_with_progress', arguments: {} },
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(progress).toEqual([0, 50, 100]);
  });

  it('cancels a long board wait and keeps working', async () => {
    const { client } = await fx.connect();
    const controller = new AbortController();
    const started = Date.now();
    const call = client.callTool(
      { name: 'button_wait', arguments: { timeout_seconds: 20 } },
      {
        signal: controller.signal,
        onprogress: () => controller.abort(),
      },
    );
    await expect(call).rejects.toThrow();
    const after = await client.callTool({ name: 'power_get', arguments: {} });
    expect(after.isError).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('serves resources and tells subscribers when a tool changed the board', async () => {
    const { client } = await fx.connect();
    const { resources } = await client.listResources();
    const state = resources.find((r) => r.mimeType === 'application/json' && /state/.test(r.uri));
    expect(state).toBeDefined();
    const read = await client.readResource({ uri: state?.uri ?? '' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toHaveProperty('power');
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updated.push(n.params.uri);
    });
    await client.subscribeResource({ uri: state?.uri ?? '' });
    await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 1 } });
    await expect.poll(() => updated).toContain(state?.uri);
    // The 2025 wire says -32002 (MCP 2025-11-25 resources); the v2 client reports it as -32602.
    const missing = await rpcError(client.readResource({ uri: 'jumperless://nothing' }));
    expect(missing.code).toBe(-32602);
    const raw = await openSession(fx.url);
    const wire = await raw.call('resources/read', { uri: 'jumperless://nothing' });
    expect(wire.body?.error).toMatchObject({ code: -32002, data: { uri: 'jumperless://nothing' } });
  });

  it('offers the prompts', async () => {
    const { client } = await fx.connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(
      expect.arrayContaining(['measure_resistor', 'build_voltage_divider', 'debug_circuit']),
    );
    const prompt = await client.getPrompt({
      name: 'measure_resistor',
      arguments: { row_a: '10', row_b: '20' },
    });
    expect(JSON.stringify(prompt.messages)).toMatch(/row 10 and row 20/);
    expect((await rpcError(client.getPrompt({ name: 'measure_resistor', arguments: {} }))).code).toBe(-32602);
  });
});

describe('HTTP gates', () => {
  it('refuses a foreign Origin with 403 and a JSON-RPC error without id', async () => {
    const res = await post(JSON.stringify(INIT), { origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32001, message: expect.stringMatching(/origin/) },
    });
  });

  it('answers an unknown session with 404, and a terminated one too', async () => {
    const unknown = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-session-id': 'no-such-session',
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32001);

    const { client, transport } = await fx.connect();
    await client.listTools();
    const id = transport.sessionId as string;
    await transport.terminateSession();
    const after = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), {
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
    });
    expect(after.status).toBe(404);
  });

  it('closes the oldest session when the cap is reached (it then gets 404)', async () => {
    const small = await startHttpServer({
      port: 0,
      maxSessions: 2,
      createServer: (_, era) =>
        fx.app.createServer(() => ({ id: 'cap', granted: ANONYMOUS }), { era, perRequest: era === 'modern' }),
    });
    try {
      const open = async () => {
        const res = await fetch(small.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(INIT),
        });
        await res.body?.cancel();
        return res.headers.get('mcp-session-id') as string;
      };
      const first = await open();
      await open();
      await open();
      const res = await fetch(small.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': first,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      expect(res.status).toBe(404);
    } finally {
      await small.close();
    }
  });

  it('wants a session id after initialize (400)', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(res.status).toBe(400);
  });

  it('answers bad JSON with 400 / -32700 in JSON, not HTML', async () => {
    const res = await post('{"jsonrpc": "2.0", nope');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('refuses a body over the limit with 413 and a non-JSON content type with 415', async () => {
    const big = await post(JSON.stringify({ ...INIT, padding: 'x'.repeat(5 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const text = await post(JSON.stringify(INIT), { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
  });

  it('opens an SSE stream on GET for a session, one at a time', async () => {
    const init = await post(JSON.stringify(INIT));
    const session = init.headers.get('mcp-session-id') as string;
    await init.body?.cancel();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
    const controller = new AbortController();
    const res = await fetch(fx.url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const second = await fetch(fx.url, { headers: { accept: 'text/event-stream', ...headers } });
    expect(second.status).toBe(409);
    controller.abort();
    const closed = await fetch(fx.url, { method: 'DELETE', headers });
    expect(closed.status).toBe(200);
  });
});
