/**
 * MCP 2026-07-28 with the v2 SDK client pinned to it, over HTTP (in process, stateless) and stdio
 * (the real CLI): discovery, calls, progress, cancellation, the error table, ask_user's question
 * as `input_required` rounds, `subscriptions/listen`, cache hints; and a 2025 client served by the
 * same HTTP server in between.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rpcError } from '../support/rpcError.js';
import { send } from './httpReplies.js';
import { type HttpFixture, MODERN, startHttpFixture } from './serverFixture.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

/** The person at the client: answers every question with `action`, and counts them. */
function answering(client: Client, action: 'accept' | 'decline'): { asked: string[] } {
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String(request.params.message));
    return { action, content: {} };
  });
  return { asked };
}

/** What every 2026-07-28 transport must do the same way. */
function modernSuite(connect: (options?: { elicitation?: boolean }) => Promise<Client>, anonymous: boolean) {
  it('negotiates 2026-07-28 and lists the catalog with a cache hint', async () => {
    const client = await connect();
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['power_get', 'ask_user']));
    expect(listed).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
  });

  it('calls a board tool: structuredContent and its JSON text', async () => {
    const client = await connect();
    const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 1.5 } });
    expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 1.5 });
    const get = await client.callTool({ name: 'power_get', arguments: {} });
    expect(get.structuredContent).toMatchObject({ dac1_volts: 1.5 });
    expect(get.content).toEqual([{ type: 'text', text: JSON.stringify(get.structuredContent) }]);
  });

  it('answers the error table: -32602 unknown tool, bad arguments and unknown resource', async () => {
    const client = await connect();
    const unknown = await rpcError(client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toMatch(/Unknown tool: no_such_tool/);
    const invalid = await rpcError(
      client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 99 } }),
    );
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toMatch(/volts/);
    const resource = await rpcError(client.readResource({ uri: 'jumperless://nothing' }));
    expect(resource.code).toBe(-32602);
  });

  it(`gates a hidden tool by capability (${anonymous ? '1001 for anonymous HTTP' : 'the stdio operator may'})`, async () => {
    const client = await connect();
    const call = client.callTool({ name: 'python_exec', arguments: { code: 'print(6*7)' } });
    if (anonymous) {
      const denied = await rpcError(call);
      expect(denied.code).toBe(-32603);
      expect(denied.data).toMatchObject({ code: 1001, retryable: false, missing: ['jumperless.exec'] });
    } else {
      expect(JSON.stringify((await call).structuredContent)).toContain('42');
    }
  });

  it('sends progress for a progress token, and a cancel stops a board wait', async () => {
    const client = await connect();
    const progress: number[] = [];
    const controller = new AbortController();
    const started = Date.now();
    const waiting = client.callTool(
      { name: 'button_wait', arguments: { timeout_seconds: 20 } },
      {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p.progress);
          controller.abort();
        },
      },
    );
    await expect(waiting).rejects.toThrow();
    expect(progress.length).toBeGreaterThan(0);
    expect((await client.callTool({ name: 'power_get', arguments: {} })).isError).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("puts ask_user's question to the client as input_required rounds, and hears the answer", async () => {
    const client = await connect({ elicitation: true });
    const person = answering(client, 'accept');
    const result = await client.callTool({
      name: 'ask_user',
      arguments: { instruction: 'Is the LED on?', rows: [5], timeout_seconds: 30 },
    });
    expect(person.asked).toEqual(['Is the LED on?']);
    expect(result.structuredContent).toMatchObject({ answer: 'confirmed', answered_by: 'client' });
    const declined = await connect({ elicitation: true });
    answering(declined, 'decline');
    const no = await declined.callTool({
      name: 'ask_user',
      arguments: { instruction: 'Smoke?', timeout_seconds: 30 },
    });
    expect(no.structuredContent).toMatchObject({ answer: 'declined', answered_by: 'client' });
  });

  it('tells a subscriptions/listen stream when a tool changed the board', async () => {
    const client = await connect();
    const { resources } = await client.listResources();
    const state = resources.find((r) => /board\/state$/.test(r.uri));
    expect(state).toBeDefined();
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updated.push(n.params.uri);
    });
    const subscription = await client.listen({ resourceSubscriptions: [state?.uri ?? ''] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual([state?.uri]);
    await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 0.5 } });
    await expect.poll(() => updated).toContain(state?.uri);
    await subscription.close();
  });
}

describe('2026-07-28 over HTTP (stateless)', () => {
  let fx: HttpFixture;
  const clients: Client[] = [];
  beforeAll(async () => {
    fx = await startHttpFixture();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await fx?.close();
  });
  const connect = async (options: { elicitation?: boolean } = {}) => {
    const { client } = await fx.connect({ ...options, modern: true });
    clients.push(client);
    return client;
  };

  modernSuite(connect, true);

  it('keeps no session: no Mcp-Session-Id, nothing stored', async () => {
    const client = await connect();
    const sessions = fx.http.sessions;
    const before = sessions.size;
    await client.callTool({ name: 'power_get', arguments: {} });
    const { transport } = await fx.connect({ modern: true });
    expect(transport.sessionId).toBeUndefined();
    expect(sessions.size).toBe(before);
  });

  it('answers an unknown method with 404 / -32601 in JSON', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const reply = await send(
      fx.url,
      { jsonrpc: '2.0', id: 7, method: 'no/such', params: { _meta: meta } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'no/such' },
    );
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('checks the Mcp-Method and Mcp-Name headers against the body (400)', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'power_get', arguments: {}, _meta: meta },
    };
    const good = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'power_get' };
    const ok = await send(fx.url, body, good);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/application\/json/);
    expect(ok.body?.result).toMatchObject({ resultType: 'complete', structuredContent: {} });
    for (const wrong of [
      { ...good, 'mcp-method': 'tools/list' },
      { ...good, 'mcp-name': 'dac_set' },
      { ...good, 'mcp-protocol-version': '2025-11-25' },
    ]) {
      const refused = await send(fx.url, body, wrong);
      expect(refused.status).toBe(400);
      expect(refused.body?.error?.code).toEqual(expect.any(Number));
    }
  });

  it('serves a 2025 client in the same process, with its session and elicitation', async () => {
    const { client, transport } = await fx.connect({ elicitation: true });
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(transport.sessionId).toEqual(expect.any(String));
    const person = answering(client, 'accept');
    const result = await client.callTool({
      name: 'ask_user',
      arguments: { instruction: 'Legacy?', timeout_seconds: 30 },
    });
    expect(person.asked).toEqual(['Legacy?']);
    expect(result.structuredContent).toMatchObject({ answer: 'confirmed', answered_by: 'client' });
  });
});

describe('2026-07-28 over stdio (the real CLI)', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  });
  // A process per connection, as a host starts it; one with elicitation and one without.
  const started = new Map<boolean, Promise<Client>>();
  const connect = (options: { elicitation?: boolean } = {}) => {
    const elicitation = options.elicitation === true;
    const client = started.get(elicitation) ?? start(elicitation);
    started.set(elicitation, client);
    return client;
  };
  const start = async (elicitation: boolean) => {
    const options = { elicitation };
    const client = new Client(
      { name: 'e2e-modern-stdio', version: '0' },
      {
        capabilities: options.elicitation ? { elicitation: {} } : {},
        versionNegotiation: { mode: { pin: MODERN } },
      },
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...CLI, '--sim'],
        cwd: ROOT,
        env: ENV,
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  };

  modernSuite(connect, false);

  it('answers an unknown method with -32601 (over HTTP: 404, the method is in a header)', async () => {
    const client = await connect();
    const method = await rpcError(client.request({ method: 'no/such', params: {} }, z.looseObject({})));
    expect(method.code).toBe(-32601);
  });

  it('answers a 2025 initialize on another connection of the same command', async () => {
    const child = spawn(process.execPath, [...CLI, '--sim'], {
      cwd: ROOT,
      env: ENV,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      })}\n`,
    );
    await expect.poll(() => stdout.includes('"id":1'), { timeout: 15_000 }).toBe(true);
    expect(JSON.parse(stdout.split('\n')[0] ?? '')).toMatchObject({
      result: { protocolVersion: '2025-06-18' },
    });
    child.stdin.end();
    await new Promise((done) => child.once('exit', done));
  });
});
