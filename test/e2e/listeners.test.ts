/**
 * Nothing piles up per request: after many calls in both eras, the listeners on the dispatcher
 * (board changes, catalog changes, link logs), on the server and on its kept-alive sockets are as
 * many as after the first few (a federation's HTTP child: src/federation/mcpChild.test.ts).
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/core/dispatcher.js';
import { conformanceExtras } from '../fixtures/conformance/fixtures.js';
import { openSession, send } from './httpReplies.js';
import { type HttpFixture, MODERN, startHttpFixture } from './serverFixture.js';

let fx: HttpFixture;
const sockets = new Set<Socket>();
let live = 0;

/** Counts what subscribes to the dispatcher and what unsubscribes again. */
function countSubscriptions(dispatcher: Dispatcher): void {
  const wrap =
    <A extends unknown[]>(subscribe: (...args: A) => () => void) =>
    (...args: A) => {
      live++;
      const unsubscribe = subscribe(...args);
      let once = false;
      return () => {
        if (!once) live--;
        once = true;
        unsubscribe();
      };
    };
  dispatcher.onBoardChange = wrap(dispatcher.onBoardChange.bind(dispatcher));
  dispatcher.onLog = wrap(dispatcher.onLog.bind(dispatcher));
  dispatcher.registry.onChange = wrap(dispatcher.registry.onChange.bind(dispatcher.registry));
}

/** Every listener on the server and its open sockets, by event. */
function listeners(): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (prefix: string, emitter: NodeJS.EventEmitter) => {
    for (const event of emitter.eventNames()) {
      const key = `${prefix}:${String(event)}`;
      counts[key] = (counts[key] ?? 0) + emitter.listenerCount(event);
    }
  };
  add('server', fx.http.server);
  for (const socket of sockets) if (!socket.destroyed) add('socket', socket);
  return counts;
}

beforeAll(async () => {
  fx = await startHttpFixture({}, undefined, conformanceExtras);
  countSubscriptions(fx.app.dispatcher);
  fx.http.server.on('connection', (socket: Socket) => sockets.add(socket));
});
afterAll(async () => {
  await fx?.close();
});

const meta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernCall = (id: number, name: string) =>
  send(
    fx.url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: meta } },
    { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
  );

describe('listeners per request', () => {
  it('2026-07-28: many stateless calls (board and board-free) add no listener', async () => {
    for (let i = 0; i < 10; i++) expect((await modernCall(i, 'test_simple_text')).status).toBe(200);
    const before = { live, listeners: listeners() };
    for (let i = 0; i < 150; i++) {
      const reply = await modernCall(100 + i, i % 3 === 0 ? 'power_get' : 'test_simple_text');
      expect(reply.body?.result?.isError).toBeUndefined();
    }
    expect(live).toBe(before.live);
    expect(listeners()).toEqual(before.listeners);
  });

  it('2025: many calls in a session add none, and a closed session gives back what it took', async () => {
    const baseline = live;
    const session = await openSession(fx.url);
    for (let i = 0; i < 10; i++) await session.tool('test_simple_text');
    const before = { live, listeners: listeners() };
    for (let i = 0; i < 150; i++) await session.tool(i % 3 === 0 ? 'power_get' : 'test_simple_text');
    expect(live).toBe(before.live);
    expect(listeners()).toEqual(before.listeners);
    await send(fx.url, undefined, session.headers, 'DELETE');
    await expect.poll(() => live).toBe(baseline);
  });
});
