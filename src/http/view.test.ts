/**
 * A page that does not read its event stream costs the server a bounded buffer (issue 25), over a
 * real HTTP server and a real TCP client that stops reading. The board view here is a stand-in the
 * test drives (the real one needs a board to change); it hands every page the same look objects,
 * as core/view.ts does.
 */
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../core/audit.js';
import type { BoardLook, BoardView, ViewWatcher } from '../core/view.js';
import { MAX_BEHIND_BYTES, serveEvents } from './view.js';

/** Big looks fill a socket fast: 200 KB of picture each. */
const PICTURE = 'A'.repeat(200_000);
const look = (seq: number): BoardLook => ({
  seq,
  time: new Date(0).toISOString(),
  after: 'dac_set',
  state: { seq },
  picture: PICTURE,
  source: 'test',
});
const call = (n: number): AuditEvent => ({
  time: new Date(0).toISOString(),
  callId: `call-${n}-${'x'.repeat(200)}`,
  caller: 'http:test',
  tool: 'dac_set',
  outcome: 'ok',
  durationMs: 1,
});

function drivenView(): BoardView & { watchers: Set<ViewWatcher> } {
  const watchers = new Set<ViewWatcher>();
  return {
    watchers,
    last: undefined,
    watch(watcher) {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    refresh: async () => {},
    close: () => watchers.clear(),
  };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server streaming `view`, and a client that asked for the stream and then stopped reading. */
async function stalledPage(view: BoardView): Promise<{ res: ServerResponse; socket: Socket }> {
  let served: ServerResponse | undefined;
  const server: Server = createServer((req, res) => {
    served = res;
    serveEvents(req, res, { id: undefined, capabilities: ['jumperless.read'] }, view);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const socket = connect(port, '127.0.0.1');
  cleanups.push(() => {
    socket.destroy();
    server.closeAllConnections();
    server.close();
  });
  socket.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await once(socket, 'data');
  socket.pause();
  await expect.poll(() => served !== undefined).toBe(true);
  return { res: served as ServerResponse, socket };
}

describe('a page that falls behind', () => {
  it('is sent no look while its stream is full, then the latest one', async () => {
    const view = drivenView();
    const { res, socket } = await stalledPage(view);
    // 100 looks of 200 KB: 20 MB, more than the kernel's socket buffers hold.
    for (let seq = 1; seq <= 100; seq++) {
      for (const watcher of view.watchers) watcher.look(look(seq));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(res.writableLength).toBeLessThan(2 * PICTURE.length);

    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.resume();
    await expect.poll(() => text.includes('"seq":100,'), { timeout: 5000 }).toBe(true);
    const seqs = [...text.matchAll(/event: board\ndata: \{"seq":(\d+),/g)].map((m) => Number(m[1]));
    // The looks it missed were dropped, not queued: far fewer than 100 arrive, the last one last.
    expect(seqs.length).toBeLessThan(50);
    expect(seqs.at(-1)).toBe(100);
  });

  it('keeps the call log while behind, and is let go when even that passes the limit', async () => {
    const view = drivenView();
    const { res, socket } = await stalledPage(view);
    for (let seq = 1; seq <= 60; seq++) {
      for (const watcher of view.watchers) watcher.look(look(seq));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const closed = once(socket, 'close');
    const perCall = Buffer.byteLength(JSON.stringify(call(0)));
    for (let n = 0; n < (2 * MAX_BEHIND_BYTES) / perCall; n++) {
      for (const watcher of view.watchers) watcher.call(call(n));
    }
    expect(res.destroyed).toBe(true);
    expect(view.watchers.size).toBe(0);
    socket.resume();
    await closed;
  });
});
