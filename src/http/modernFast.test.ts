/**
 * The 2026-07-28 fast lane (modernFast.ts): a plain tools/call skips the SDK's HTTP entry once the
 * entry has set up a server, and answers as the entry does, to the byte. The entry's answer to
 * compare with is the same call with one more `_meta` key (not plain: the entry serves it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANE_CASES, laneDispatcher, laneServer, sseData } from '../../test/support/laneFixture.js';
import { CAPABILITIES, type Capability } from '../contract/index.js';
import type { RunningHttpServer } from './app.js';
import { modernFastStats } from './modernFast.js';

const MODERN = '2026-07-28';
const { dispatcher, slow } = laneDispatcher();

interface Reply {
  status: number;
  type: string;
  text: string;
}

const envelope = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'fast', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** What a 2026-07-28 client sends with a tools/call of `name`. */
const headersFor = (name: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': name,
});

async function call(
  url: string,
  id: number,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = envelope(),
  signal?: AbortSignal,
): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(name),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, _meta: meta },
    }),
    ...(signal ? { signal } : {}),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

const servers: RunningHttpServer[] = [];
async function serve(granted: ReadonlySet<Capability>): Promise<string> {
  const server = await laneServer(dispatcher, granted, servers);
  // The entry sets up the first server: from then on plain calls may skip it.
  await call(server.url, 0, 'test_simple_text', {});
  return server.url;
}

describe('the 2026-07-28 fast lane', () => {
  let operator = '';
  let nobody = '';
  beforeAll(async () => {
    operator = await serve(new Set(CAPABILITIES));
    nobody = await serve(new Set());
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  /** The fast answer and the entry's to the same call, ids aside. */
  async function bothLanes(
    url: string,
    id: number,
    name: string,
    args: Record<string, unknown>,
    meta = envelope(),
  ) {
    const before = modernFastStats.calls;
    const fast = await call(url, id, name, args, meta);
    expect(modernFastStats.calls - before, name).toBe(1);
    const sdk = await call(url, id, name, args, { ...meta, 'x-not-plain': true });
    expect(modernFastStats.calls - before, name).toBe(1);
    return { fast, sdk };
  }

  it('answers as the entry does: results, tool failures, bad arguments, unknown tools, no board', async () => {
    const cases = LANE_CASES.map((c): [string, Record<string, unknown>] => [c.name, c.arguments]);
    for (const [name, args] of cases) {
      const { fast, sdk } = await bothLanes(operator, 10, name, args);
      expect(fast, name).toEqual(sdk);
      expect(fast.type, name).toBe('application/json');
    }
  });

  it('answers a denied capability as the entry does', async () => {
    const { fast, sdk } = await bothLanes(nobody, 20, 'test_simple_text', {});
    expect(fast).toEqual(sdk);
    expect(JSON.parse(fast.text).error).toMatchObject({ code: -32603, data: { code: 1001 } });
  });

  it('streams progress as the entry streams it', async () => {
    const meta = { ...envelope(), progressToken: 'p' };
    const { fast, sdk } = await bothLanes(operator, 30, 'test_tool_with_progress', {}, meta);
    expect(fast.type).toBe('text/event-stream');
    expect(sseData(fast.text)).toHaveLength(4);
    expect(sseData(fast.text)).toEqual(sseData(sdk.text));
  });

  it('asks its question as the entry does, and refuses it as the entry does to a client that cannot answer', async () => {
    const asking = await bothLanes(
      operator,
      40,
      'test_elicitation',
      { message: 'Who?' },
      envelope({ elicitation: {} }),
    );
    expect(asking.fast.status).toBe(asking.sdk.status);
    // The round's state is sealed afresh each time; the rest is the same.
    const unsealed = (text: string) => ({ ...JSON.parse(text).result, requestState: undefined });
    expect(unsealed(asking.fast.text)).toEqual(unsealed(asking.sdk.text));
    expect(JSON.parse(asking.fast.text).result.resultType).toBe('input_required');
    const refused = await bothLanes(operator, 41, 'test_elicitation', { message: 'Who?' });
    expect(refused.fast).toEqual(refused.sdk);
  });

  it('stops the call when the client goes away', async () => {
    const started = new Promise<void>((done) => {
      slow.started = done;
    });
    const controller = new AbortController();
    const before = modernFastStats.calls;
    const reply = call(operator, 50, 'slow_read', {}, envelope(), controller.signal).catch(() => undefined);
    await started;
    expect(modernFastStats.calls - before).toBe(1);
    controller.abort();
    await reply;
    const entry = dispatcher.registry.get('slow_read');
    while ((entry?.running ?? 0) > 0) await new Promise((wake) => setTimeout(wake, 10));
    expect(entry?.running).toBe(0);
  });
  it('serves two clients that use the same id at once, each its own answer', async () => {
    // While the lane has no second server free, the entry serves the second call (and sets up a
    // server the lane adopts next time): within a few rounds both calls take the lane.
    const lanesPerRound: number[] = [];
    for (let round = 80; round < 84 && !lanesPerRound.includes(2); round++) {
      const started = new Promise<void>((done) => {
        slow.started = done;
      });
      const before = modernFastStats.calls;
      const held = call(operator, round, 'slow_read', {});
      await started;
      const other = await call(operator, round, 'test_simple_text', {});
      expect(JSON.parse(other.text)).toMatchObject({ id: round, result: { content: [{ type: 'text' }] } });
      expect(other.text).toContain('simple text');
      slow.release();
      const first = await held;
      expect(first.status).toBe(200);
      expect(first.text).not.toContain('simple text');
      expect(JSON.parse(first.text)).toMatchObject({ id: round, result: {} });
      lanesPerRound.push(modernFastStats.calls - before);
    }
    expect(lanesPerRound).toContain(2);
  });

  it('keeps serving on the fast lane after a client went away mid-call', async () => {
    const started = new Promise<void>((done) => {
      slow.started = done;
    });
    const controller = new AbortController();
    const gone = call(operator, 70, 'slow_read', {}, envelope(), controller.signal).catch(() => undefined);
    await started;
    controller.abort();
    await gone;
    const before = modernFastStats.calls;
    for (let id = 71; id < 75; id++) {
      const reply = await call(operator, id, 'test_simple_text', {});
      expect(JSON.parse(reply.text)).toMatchObject({ id });
    }
    expect(modernFastStats.calls - before).toBe(4);
  });

  it('answers an invalid envelope as the entry does, though a valid one printed the same way first', async () => {
    const post = (id: number, meta: string) =>
      fetch(operator, {
        method: 'POST',
        headers: headersFor('test_simple_text'),
        body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":${meta}}}`,
      });
    const version = `"io.modelcontextprotocol/protocolVersion":"${MODERN}"`;
    const caps = (value: string) => `"io.modelcontextprotocol/clientCapabilities":${value}`;
    const info = '"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}';
    // Valid, then invalid: no client info (allowed) then null; null then 1e400 (Infinity).
    const pairs: Array<[string, string]> = [
      [`{${version},${caps('{}')}}`, `{${version},"io.modelcontextprotocol/clientInfo":null,${caps('{}')}}`],
      [
        `{${version},${info},${caps('{"experimental":{"x":{"y":null}}}')}}`,
        `{${version},${info},${caps('{"experimental":{"x":{"y":1e400}}}')}}`,
      ],
    ];
    let id = 90;
    for (const [valid, invalid] of pairs) {
      const ok = await post(id++, valid);
      expect(ok.status, valid).toBe(200);
      await ok.text();
      const refused = await post(id++, invalid);
      expect(refused.status, invalid).toBe(400);
      expect(JSON.parse(await refused.text()).error).toMatchObject({ code: -32602, data: { envelope: {} } });
    }
  });
});
