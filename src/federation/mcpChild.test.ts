/** McpChild against the fixture server (test/fixtures/mcpChild) over real stdio and real HTTP. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubsystemEvent } from '../core/subsystem.js';
import type { CallContext } from '../core/toolDefinition.js';
import { httpTransport, McpChild, stdioTransport } from './mcpChild.js';

const FIXTURE = resolve(import.meta.dirname, '../../test/fixtures/mcpChild/server.ts');
const dir = mkdtempSync(join(tmpdir(), 'mcp-child-'));
const context = (signal = new AbortController().signal, progress: CallContext['progress'] = () => {}) => ({
  signal,
  progress,
  caller: 'test',
});
const logs: string[] = [];

function stdioChild(env: Record<string, string> = {}) {
  return new McpChild({
    name: 'esp32-p4',
    target: 'fixture',
    transport: stdioTransport(
      'esp32-p4',
      { command: process.execPath, args: ['--import', 'tsx', FIXTURE], env },
      (line) => logs.push(line),
    ),
  });
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('McpChild over stdio', () => {
  const pidFile = join(dir, 'pid');
  const child = stdioChild({ MCP_CHILD_PID_FILE: pidFile });
  const events: SubsystemEvent[] = [];
  beforeAll(async () => {
    child.watch((event) => events.push(event));
    await child.connect();
  });
  afterAll(async () => {
    await child.disconnect();
  });

  it('learns the catalog with schemas, annotations and a capability per tool', () => {
    const tools = child.tools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'plain', 'fail', 'wait', 'grow']);
    expect(tools[0]).toMatchObject({
      title: 'Echo text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      capability: 'jumperless.read',
      hidden: false,
      timeoutMs: 60_000,
    });
    expect(tools[1]?.capability).toBe('jumperless.io');
    expect(tools[1]?.outputSchema).toBeUndefined();
    expect(child.health()).toMatchObject({ status: 'ok', server: 'mcp-child-fixture 1.0.0', tools: 5 });
  });

  it('passes results on as the child gave them: structured, plain text, tool errors', async () => {
    const echo = await child.invoke('echo', { text: 'hi' }, context());
    expect(echo.structuredContent).toMatchObject({ text: 'hi' });
    expect(echo.content).toEqual([{ type: 'text', text: JSON.stringify(echo.structuredContent) }]);
    expect(await child.invoke('plain', {}, context())).toEqual({
      content: [{ type: 'text', text: 'just text' }],
    });
    expect(await child.invoke('fail', {}, context())).toEqual({
      content: [{ type: 'text', text: 'the sensor is not wired' }],
      isError: true,
    });
  });

  it('passes on what the child answers for a tool it does not have (SDK v2 McpServer: -32602)', async () => {
    await expect(child.invoke('no_such', {}, context())).rejects.toMatchObject({ code: -32602 });
  });

  it('passes progress up and a cancel down', async () => {
    const steps: number[] = [];
    const done = await child.invoke(
      'wait',
      { ms: 100 },
      context(undefined, (p) => steps.push(p)),
    );
    expect(done.content).toEqual([{ type: 'text', text: 'waited 100 ms' }]);
    expect(steps.length).toBeGreaterThan(1);
    const controller = new AbortController();
    const waiting = child.invoke('wait', { ms: 30_000 }, context(controller.signal));
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(waiting).rejects.toThrow();
    expect((await child.invoke('echo', { text: 'still here' }, context())).structuredContent).toMatchObject({
      text: 'still here',
    });
  });

  it('turns the child list_changed into a catalog change', async () => {
    events.length = 0;
    await child.invoke('grow', {}, context());
    await waitFor(() => events.some((e) => e.type === 'tools_changed'), 'tools_changed');
    expect(child.tools().map((t) => t.name)).toContain('extra');
  });

  it('reports down when the process dies, answers unavailable, and connects again', async () => {
    events.length = 0;
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    await waitFor(() => events.some((e) => e.type === 'down'), 'down');
    expect(child.health().status).toBe('down');
    await expect(child.invoke('echo', { text: 'x' }, context())).rejects.toMatchObject({
      code: 'unavailable',
    });
    await child.connect();
    expect((await child.invoke('echo', { text: 'back' }, context())).structuredContent).toMatchObject({
      text: 'back',
    });
  });

  it('fails to connect with the reason when the command cannot start', async () => {
    const broken = new McpChild({
      name: 'broken',
      target: 'no-such-command',
      transport: stdioTransport('broken', { command: '/nonexistent/mcp-server' }, () => {}),
    });
    await expect(broken.connect()).rejects.toThrow(/no-such-command: .*ENOENT/);
    expect(broken.health()).toMatchObject({ status: 'down' });
  });
});

describe('McpChild over Streamable HTTP', () => {
  let server: ChildProcess;
  let url = '';
  beforeAll(async () => {
    server = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      env: { ...process.env, MCP_CHILD_HTTP_PORT: '0', MCP_CHILD_BEARER: 'sesame' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    url = await new Promise<string>((done) =>
      server.stdout?.once('data', (chunk: Buffer) => done(chunk.toString().trim())),
    );
  });
  afterAll(() => {
    server?.kill();
  });

  it('sends the bearer and calls tools', async () => {
    const child = new McpChild({ name: 'scope', target: url, transport: httpTransport(url, 'sesame') });
    await child.connect();
    expect(child.tools().map((t) => t.name)).toContain('echo');
    expect((await child.invoke('echo', { text: 'over http' }, context())).structuredContent).toMatchObject({
      text: 'over http',
    });
    await child.disconnect();
  });

  it('a 2025 session leaves no abort listener per call on any signal (each request has its own)', async () => {
    const child = new McpChild({ name: 'scope', target: url, transport: httpTransport(url, 'sesame') });
    await child.connect();
    try {
      const left = await abortListenersLeft(async () => {
        for (let i = 0; i < 200; i++) await child.invoke('echo', { text: 'x' }, context());
      });
      expect(left).toBeLessThan(10);
    } finally {
      await child.disconnect();
    }
  });

  it('cannot connect with a wrong bearer, and says so', async () => {
    const child = new McpChild({ name: 'scope', target: url, transport: httpTransport(url, 'wrong') });
    await expect(child.connect()).rejects.toThrow(
      /requires authorization.*\(HTTP 401: check the bearer token\)/,
    );
  });

  it('answers unavailable when the server is gone, and reports down', async () => {
    const child = new McpChild({ name: 'scope', target: url, transport: httpTransport(url, 'sesame') });
    await child.connect();
    const events: SubsystemEvent[] = [];
    child.watch((event) => events.push(event));
    server.kill('SIGKILL');
    await new Promise((done) => server.once('exit', done));
    await expect(child.invoke('echo', { text: 'x' }, context())).rejects.toMatchObject({
      code: 'unavailable',
    });
    expect(events[0]).toMatchObject({ type: 'down' });
    await child.disconnect();
  });
});

/** Abort listeners added and not removed, per signal, while `work` runs. */
async function abortListenersLeft(work: () => Promise<void>): Promise<number> {
  const net = new Map<EventTarget, number>();
  const { addEventListener, removeEventListener } = EventTarget.prototype;
  const count = (target: EventTarget, type: string, by: number) => {
    if (type === 'abort') net.set(target, (net.get(target) ?? 0) + by);
  };
  EventTarget.prototype.addEventListener = function (this: EventTarget, type, ...rest) {
    count(this, type, 1);
    return addEventListener.call(this, type, ...rest);
  };
  EventTarget.prototype.removeEventListener = function (this: EventTarget, type, ...rest) {
    count(this, type, -1);
    return removeEventListener.call(this, type, ...rest);
  };
  try {
    await work();
  } finally {
    EventTarget.prototype.addEventListener = addEventListener;
    EventTarget.prototype.removeEventListener = removeEventListener;
  }
  return Math.max(0, ...net.values());
}
