/** SocketChild against a real socket server over the real dispatch core on a virtual board. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenBoard, openBoard } from '../cli/board.js';
import { CAPABILITIES } from '../core/capabilities.js';
import { createDispatcher } from '../core/dispatcher.js';
import { RpcError } from '../core/errors.js';
import { renderResult } from '../core/render.js';
import type { SubsystemEvent } from '../core/subsystem.js';
import { ToolSubsystem } from '../core/toolSubsystem.js';
import { FrameClient } from '../device/frameClient.js';
import { dispatchHandler } from '../socket/dispatchHandler.js';
import { type SocketServer, startSocketServer } from '../socket/server.js';
import { catalog } from '../tools/index.js';
import { safetyPolicy } from '../tools/safety.js';
import { SocketChild } from './socketChild.js';

const context = (signal = new AbortController().signal) => ({ signal, progress: () => {}, caller: 'test' });
const dir = mkdtempSync(join(tmpdir(), 'socket-child-'));

let board: OpenBoard;
let server: SocketServer;
const allowed = CAPABILITIES.filter((c) => c !== 'jumperless.exec');

async function serve(path: string): Promise<SocketServer> {
  const dispatcher = createDispatcher({
    root: new ToolSubsystem({
      name: 'local',
      tools: catalog,
      board: board.client,
      safety: safetyPolicy({ maxVolts: 5, minVolts: -5 }),
    }),
  });
  return startSocketServer({
    path,
    handler: dispatchHandler(dispatcher),
    allowedCapabilities: allowed,
    serverVersion: 'jumperless-mcp 0.1.0',
    log: () => {},
  });
}

const child = (path: string) => new SocketChild({ name: 'lab', path, open: (p) => FrameClient.connect(p) });

describe('SocketChild', () => {
  const path = join(dir, 'a.sock');
  const lab = child(path);
  beforeAll(async () => {
    board = await openBoard('sim');
    server = await serve(path);
    await lab.connect();
  });
  afterAll(async () => {
    await lab.disconnect();
    await server?.close();
    await board?.close();
  });

  it('learns the listed catalog with schemas, capabilities and deadlines', () => {
    const names = lab.tools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['dac_set', 'power_get', 'probe_wait']));
    // Hidden tools are offered over a socket only to a connection that may call them: this server
    // allows no jumperless.exec on its socket, so python_exec is not offered (see the e2e bench tests
    // for a hidden tool offered and called).
    expect(names).not.toContain('python_exec');
    expect(lab.tools().find((t) => t.name === 'dac_set')).toMatchObject({
      title: 'Set a supply voltage',
      inputSchema: { type: 'object', required: ['channel', 'volts'] },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: false, openWorldHint: true },
      capability: 'jumperless.power',
      hidden: false,
    });
    expect(lab.tools().find((t) => t.name === 'probe_wait')?.timeoutMs).toBeGreaterThan(60_000);
    expect(lab.health()).toMatchObject({ status: 'ok', server: 'jumperless-mcp 0.1.0' });
  });

  it('renders results as the server MCP side does', async () => {
    const set = await lab.invoke('dac_set', { channel: 'DAC1', volts: 2.5 }, context());
    expect(set).toEqual(renderResult(set.structuredContent ?? {}));
    expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 2.5 });
    const get = await lab.invoke('power_get', {}, context());
    expect(get.structuredContent).toMatchObject({ dac1_volts: 2.5 });
  });

  it('turns a tool failure into a ToolError and refusals into RpcErrors with the right codes', async () => {
    await expect(lab.invoke('dac_set', { channel: 'TOP_RAIL', volts: 6 }, context())).rejects.toMatchObject({
      code: 'unsafe_voltage',
      options: { retryable: false },
    });
    const invalid = await lab.invoke('dac_set', { channel: 'NOPE' }, context()).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(RpcError);
    expect(invalid).toMatchObject({ code: -32602, message: /Invalid arguments for tool dac_set/ });
    const unknown = await lab.invoke('no_such', {}, context()).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: -32602, message: /Unknown tool: no_such/ });
    // python_exec is callable by name, but exec is not in this server's allow-list.
    const denied = await lab.invoke('python_exec', { code: 'print(1)' }, context()).catch((e: unknown) => e);
    expect(denied).toMatchObject({ code: -32603, data: { code: 1001, missing: ['jumperless.exec'] } });
  });

  it('runs calls side by side on connections of their own, and a cancel hangs up only its own', async () => {
    const controller = new AbortController();
    const waiting = lab.invoke('probe_wait', { timeout_seconds: 30 }, context(controller.signal));
    const quick = await lab.invoke('power_get', {}, context());
    expect(quick.structuredContent).toHaveProperty('top_rail_volts');
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect((await lab.invoke('power_get', {}, context())).isError).toBeUndefined();
  });

  it('reports down when the server goes, answers unavailable, and connects again when it is back', async () => {
    const events: SubsystemEvent[] = [];
    lab.watch((event) => events.push(event));
    await server.close();
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([{ type: 'down', reason: 'the socket connection closed' }]);
    await expect(lab.invoke('power_get', {}, context())).rejects.toMatchObject({ code: 'unavailable' });
    await expect(lab.connect()).rejects.toThrow(/socket .*a\.sock/);
    server = await serve(path);
    await lab.connect();
    expect((await lab.invoke('power_get', {}, context())).structuredContent).toHaveProperty('dac1_volts');
  });
});
