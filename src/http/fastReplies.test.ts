/**
 * The fast lane on a 2025 HTTP session (fastReplies.ts, mcp/fastLane.ts): a plain tools/call is
 * answered in plain JSON unless it streams, and its answer is the SDK's to the byte. The SDK's
 * answer to compare with is the same call sent with an empty `_meta` (not plain: the SDK serves it,
 * over SSE), on the same session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANE_CASES, laneDispatcher, laneServer, sseData } from '../../test/support/laneFixture.js';
import { CAPABILITIES, type Capability } from '../contract/index.js';
import { fastLaneStats } from '../mcp/fastLane.js';
import type { RunningHttpServer } from './app.js';

const { dispatcher, slow } = laneDispatcher();

const ACCEPT = 'application/json, text/event-stream';

interface Reply {
  status: number;
  type: string;
  text: string;
}

/** One 2025 session over raw fetch. */
class Session {
  private constructor(
    private readonly url: string,
    readonly id: string,
  ) {}

  static async open(url: string, capabilities: Record<string, unknown> = {}): Promise<Session> {
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'fast', version: '0' } },
      }),
    });
    await init.text();
    const session = new Session(url, init.headers.get('mcp-session-id') ?? '');
    await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return session;
  }

  async post(message: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': this.id,
        'mcp-protocol-version': '2025-06-18',
        ...headers,
      },
      body: JSON.stringify(message),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
  }

  call(id: number, params: Record<string, unknown>, headers?: Record<string, string>): Promise<Reply> {
    return this.post({ jsonrpc: '2.0', id, method: 'tools/call', params }, headers);
  }
}

const servers: RunningHttpServer[] = [];
const serve = (granted: ReadonlySet<Capability>) => laneServer(dispatcher, granted, servers);

describe('the fast lane on a 2025 HTTP session', () => {
  let operator: Session;
  let nobody: Session;
  beforeAll(async () => {
    operator = await Session.open((await serve(new Set(CAPABILITIES))).url, { elicitation: {} });
    nobody = await Session.open((await serve(new Set())).url);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  /** The fast answer (plain JSON) and the SDK's (SSE) to the same call, ids aside. */
  async function bothLanes(session: Session, id: number, params: Record<string, unknown>) {
    const before = fastLaneStats.calls;
    const fast = await session.call(id, params);
    expect(fastLaneStats.calls - before).toBe(1);
    const sdk = await session.call(id + 1, { ...params, _meta: {} });
    expect(fastLaneStats.calls - before).toBe(1);
    expect(fast.status).toBe(200);
    expect(fast.type).toBe('application/json');
    expect(sdk.type).toBe('text/event-stream');
    return {
      fast: fast.text.replace(`"id":${id}`, '"id":0'),
      sdk: (sseData(sdk.text).at(-1) ?? '').replace(`"id":${id + 1}`, '"id":0'),
    };
  }

  it('answers in plain JSON as the SDK does: results, tool failures, bad arguments, unknown tools, no board', async () => {
    const cases: Array<Record<string, unknown>> = [...LANE_CASES, { name: 'test_simple_text' }];
    let id = 100;
    for (const params of cases) {
      const { fast, sdk } = await bothLanes(operator, id, params);
      expect(fast).toBe(sdk);
      id += 2;
    }
  });

  it('answers a denied capability as the SDK does', async () => {
    const { fast, sdk } = await bothLanes(nobody, 200, { name: 'test_simple_text', arguments: {} });
    expect(fast).toBe(sdk);
    expect(JSON.parse(fast).error).toMatchObject({ code: -32603, data: { code: 1001 } });
  });

  it('streams a call that logs, as the SDK streams it', async () => {
    const before = fastLaneStats.calls;
    const fast = await operator.call(300, { name: 'test_tool_with_logging', arguments: {} });
    expect(fastLaneStats.calls - before).toBe(1);
    const sdk = await operator.call(300, { name: 'test_tool_with_logging', arguments: {}, _meta: {} });
    expect(fast.type).toBe('text/event-stream');
    expect(sseData(fast.text)).toHaveLength(4);
    expect(sseData(fast.text)).toEqual(sseData(sdk.text));
  });

  it('streams the progress of a call that asks for it, as the SDK streams it', async () => {
    const before = fastLaneStats.calls;
    const params = { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } };
    const fast = await operator.call(310, params);
    expect(fastLaneStats.calls - before).toBe(1);
    const sdk = await operator.call(310, { ...params, _meta: { progressToken: 'p', 'x-not-plain': true } });
    expect(fastLaneStats.calls - before).toBe(1);
    expect(fast.type).toBe('text/event-stream');
    expect(sseData(fast.text)).toHaveLength(4);
    expect(sseData(fast.text)).toEqual(sseData(sdk.text));
  });

  it('leaves to the SDK what it would refuse or read differently', async () => {
    const before = fastLaneStats.calls;
    const plain = { name: 'test_simple_text', arguments: {} };
    const refused = await operator.call(400, plain, { accept: 'application/json' });
    expect(refused.status).toBe(406);
    const otherVersion = await operator.call(401, plain, { 'mcp-protocol-version': '1999-01-01' });
    expect(otherVersion.status).toBe(400);
    expect(fastLaneStats.calls - before).toBe(0);
  });

  it('puts a question to the client on the call stream and hears its answer', async () => {
    const before = fastLaneStats.calls;
    const url = servers[0]?.url ?? '';
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': operator.id,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 500,
        method: 'tools/call',
        params: { name: 'test_elicitation', arguments: { message: 'Who?' } },
      }),
    });
    expect(fastLaneStats.calls - before).toBe(1);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body?.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader?.read())?.value);
    const question = JSON.parse(sseData(text)[0] ?? '{}') as { id: number; method: string };
    expect(question.method).toBe('elicitation/create');
    const heard = await operator.post({
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'accept', content: { username: 'ada', email: 'ada@example.org' } },
    });
    expect(heard.status).toBe(202);
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const answer = JSON.parse(sseData(text).at(-1) ?? '{}');
    expect(answer).toMatchObject({ id: 500, result: { structuredContent: { action: 'accept' } } });
  });

  it('stops a call when the client cancels it, and ends its reply without an answer', async () => {
    const started = new Promise<void>((done) => {
      slow.started = done;
    });
    const before = fastLaneStats.calls;
    const reply = operator.call(600, { name: 'slow_read' });
    await started;
    expect(fastLaneStats.calls - before).toBe(1);
    const cancelled = await operator.post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 600 },
    });
    expect(cancelled.status).toBe(202);
    const ended = await reply;
    expect(sseData(ended.text)).toEqual([]);
    slow.release();
  });
});
