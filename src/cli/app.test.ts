/** The app answers before its board is open, opens it at the first call, and a call waits for it. */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type App, buildApp } from './app.js';
import { DEFAULT_CONFIG } from './config.js';

let silent: Server | undefined;
let app: App | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  await app?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((done) => (silent ? silent.close(done) : done(undefined)));
});

describe('buildApp', () => {
  it('opens no board at start: lists the tools, and the board has seen no connection until a call', async () => {
    // A board on TCP that takes the connection and never says a word.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((done) => silent?.listen(0, '127.0.0.1', done));
    const address = silent.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    app = await buildApp({ ...DEFAULT_CONFIG, device: `tcp://127.0.0.1:${address.port}` });
    await app.ready();
    expect(app.dispatcher.registry.listed().map((entry) => entry.definition.name)).toContain('power_get');
    await new Promise((done) => setTimeout(done, 100));
    expect(sockets).toHaveLength(0);
    const { runTool } = await import('../core/runTool.js');
    const controller = new AbortController();
    const call = runTool(app.dispatcher, {
      name: 'power_get',
      caller: { id: 'test', granted: new Set(['jumperless.read']) },
      signal: controller.signal,
    });
    await expect.poll(() => sockets.length).toBe(1);
    controller.abort();
    expect((await call).isError).toBe(true);
  });

  it('runs a call made while the virtual board boots, once it is up', async () => {
    app = await buildApp({ ...DEFAULT_CONFIG, device: 'sim' });
    expect(app.board).toBeUndefined();
    const { runTool } = await import('../core/runTool.js');
    const result = await runTool(app.dispatcher, {
      name: 'power_get',
      caller: { id: 'test', granted: new Set(['jumperless.read']) },
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toHaveProperty('dac0_volts');
    expect(app.board?.sim).toBeDefined();
  });
});
