/** A fast 2025 reply on its own (fastReplies.ts): a quiet call keeps its connection alive; a second call with an id in flight is refused. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FastReplies } from './fastReplies.js';

const fast = new FastReplies({ quietMs: 20, keepAliveMs: 20 });
let server: Server;
let url = '';

beforeAll(async () => {
  // Every request serves call id 1, which never answers.
  server = createServer((_req, res) => {
    fast.serve(res, 1, 'session', () => new Promise<void>(() => {}));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  fast.abandonAll();
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe('fast replies', () => {
  it('turn a quiet call into a stream that sends keep-alive comments', async () => {
    const quiet = new AbortController();
    const res = await fetch(url, { signal: quiet.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body?.getReader();
    let text = '';
    while ((text.match(/: keepalive/g) ?? []).length < 2) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      text += Buffer.from(chunk.value).toString();
    }
    expect((text.match(/: keepalive/g) ?? []).length).toBeGreaterThanOrEqual(2);

    // The same id again, while the first is in flight: refused, not handed on to cross answers.
    const again = await fetch(url);
    expect(again.headers.get('content-type')).toBe('application/json');
    expect(await again.json()).toMatchObject({ id: 1, error: { code: -32600 } });
    quiet.abort();
  });
});
