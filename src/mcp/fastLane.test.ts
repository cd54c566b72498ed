/**
 * The fast lane over stdio (fastLane.ts): a plain tools/call skips the SDK, and its answer is the
 * SDK's to the byte. The SDK's answer to compare with comes from the same call sent with an empty
 * `_meta` (not plain, so the SDK serves it), on the same connection.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANE_CASES, laneDispatcher } from '../../test/support/laneFixture.js';
import { CAPABILITIES, type Capability } from '../contract/index.js';
import { fastLaneStats, plainCall } from './fastLane.js';
import { seamsOf } from './sdkSeams.js';
import { createMcpServer } from './server.js';
import { serveStdio } from './stdio.js';

type Message = { id?: number; method?: string; params?: Record<string, unknown>; [key: string]: unknown };

/** One stdio connection to an in-process server, read line by line. */
class Line {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly seen: Message[] = [];
  private raw: string[] = [];
  private waiters: Array<() => void> = [];
  private buffer = '';

  constructor() {
    this.output.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      for (let at = this.buffer.indexOf('\n'); at >= 0; at = this.buffer.indexOf('\n')) {
        const text = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 1);
        this.raw.push(text);
        this.seen.push(JSON.parse(text) as Message);
        for (const wake of this.waiters.splice(0)) wake();
      }
    });
  }

  send(message: Record<string, unknown>): void {
    this.input.write(`${JSON.stringify(message)}\n`);
  }

  /** The raw line of the answer to `id`, once it is there. */
  async answer(id: number): Promise<string> {
    for (;;) {
      const at = this.seen.findIndex((m) => m.id === id && m.method === undefined);
      if (at >= 0) return this.raw[at] ?? '';
      await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }

  async request(id: number, method: string, params: Record<string, unknown>): Promise<string> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.answer(id);
  }
}

const { dispatcher, slow } = laneDispatcher();

async function open(granted: ReadonlySet<Capability>, capabilities: Record<string, unknown> = {}) {
  const line = new Line();
  void serveStdio(() => createMcpServer({ dispatcher, caller: () => ({ id: 'test', granted }) }), {
    input: line.input,
    output: line.output,
    shutdown: async () => {},
    exit: () => {},
  });
  await line.request(0, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities,
    clientInfo: { name: 'fast-lane-test', version: '0' },
  });
  line.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return line;
}

/** The answer over the fast lane and over the SDK, ids aside, and whether the lane took the first. */
async function bothLanes(line: Line, id: number, params: Record<string, unknown>) {
  const before = fastLaneStats.calls;
  const fast = await line.request(id, 'tools/call', params);
  const took = fastLaneStats.calls - before;
  const sdk = await line.request(id + 1, 'tools/call', { ...params, _meta: {} });
  expect(fastLaneStats.calls - before).toBe(took);
  return { fast: fast.replace(`"id":${id}`, '"id":0'), sdk: sdk.replace(`"id":${id + 1}`, '"id":0'), took };
}

describe('the fast lane over stdio', () => {
  let operator: Line;
  let nobody: Line;
  beforeAll(async () => {
    operator = await open(new Set(CAPABILITIES), { elicitation: {} });
    nobody = await open(new Set());
  });
  afterAll(() => {
    operator.input.end();
    nobody.input.end();
  });

  it('is what this SDK build still has the seams for', () => {
    const handle = createMcpServer({ dispatcher, caller: () => ({ id: 'x', granted: new Set() }) });
    expect(seamsOf(handle.server)).toBeDefined();
  });

  it('takes only plain calls', () => {
    expect(plainCall({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } })).toBeDefined();
    expect(
      plainCall({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'a', arguments: {} } }),
    ).toBeDefined();
    expect(
      plainCall({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'a', _meta: { progressToken: 'p' } },
      }),
    ).toBeDefined();
    for (const message of [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'a', _meta: { progressToken: 'p', x: 1 } },
      },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', _meta: { progressToken: 1.5 } } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', _meta: {} } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: [] } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 1 } },
      { jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' }, extra: 1 },
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } }],
    ]) {
      expect(plainCall(message)).toBeUndefined();
    }
  });

  it('answers as the SDK does: results, tool failures, bad arguments, unknown tools, no board', async () => {
    const cases: Array<Record<string, unknown>> = [
      ...LANE_CASES,
      { name: 'test_simple_text' },
      { name: 'test_sampling', arguments: { prompt: 7 } },
      { name: 'tools_describe', arguments: { names: ['test_simple_text', 'nope'] } },
    ];
    let id = 100;
    for (const params of cases) {
      const { fast, sdk, took } = await bothLanes(operator, id, params);
      expect(took).toBe(1);
      expect(fast).toBe(sdk);
      id += 2;
    }
  });

  it('answers a denied capability as the SDK does', async () => {
    const { fast, sdk, took } = await bothLanes(nobody, 200, { name: 'test_simple_text', arguments: {} });
    expect(took).toBe(1);
    expect(fast).toBe(sdk);
    expect(JSON.parse(fast).error).toMatchObject({ code: -32603, data: { code: 1001 } });
  });

  it('sends what the tool logs before the answer, as the SDK does', async () => {
    const logsOf = (from: number) =>
      operator.seen
        .slice(from)
        .filter((m) => m.method === 'notifications/message')
        .map((m) => JSON.stringify(m));
    let from = operator.seen.length;
    const before = fastLaneStats.calls;
    await operator.request(300, 'tools/call', { name: 'test_tool_with_logging', arguments: {} });
    expect(fastLaneStats.calls - before).toBe(1);
    const fast = logsOf(from);
    from = operator.seen.length;
    await operator.request(301, 'tools/call', { name: 'test_tool_with_logging', arguments: {}, _meta: {} });
    expect(fast).toHaveLength(3);
    expect(fast).toEqual(logsOf(from));
  });

  it('hears a log level set just before the call, as the SDK does', async () => {
    const from = operator.seen.length;
    operator.input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 320, method: 'logging/setLevel', params: { level: 'error' } })}\n${JSON.stringify(
        {
          jsonrpc: '2.0',
          id: 321,
          method: 'tools/call',
          params: { name: 'test_tool_with_logging', arguments: {} },
        },
      )}\n`,
    );
    await operator.answer(321);
    expect(operator.seen.slice(from).filter((m) => m.method === 'notifications/message')).toEqual([]);
    await operator.request(322, 'logging/setLevel', { level: 'info' });
  });

  it('sends progress for a call that asks for it, as the SDK does', async () => {
    const progressOf = (from: number) =>
      operator.seen
        .slice(from)
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => JSON.stringify(m));
    let from = operator.seen.length;
    const before = fastLaneStats.calls;
    const fast = await operator.request(310, 'tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { progressToken: 'p' },
    });
    expect(fastLaneStats.calls - before).toBe(1);
    const fastProgress = progressOf(from);
    from = operator.seen.length;
    const sdk = await operator.request(311, 'tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { progressToken: 'p', 'x-not-plain': true },
    });
    expect(fastLaneStats.calls - before).toBe(1);
    expect(fastProgress).toHaveLength(3);
    expect(fastProgress).toEqual(progressOf(from));
    expect(fast.replace('"id":310', '"id":0')).toBe(sdk.replace('"id":311', '"id":0'));
  });

  it('puts a question to the client and hears its answer', async () => {
    const before = fastLaneStats.calls;
    operator.send({
      jsonrpc: '2.0',
      id: 400,
      method: 'tools/call',
      params: { name: 'test_elicitation', arguments: { message: 'Who?' } },
    });
    let question: Message | undefined;
    while (!question) {
      await new Promise((wake) => setTimeout(wake, 5));
      question = operator.seen.find((m) => m.method === 'elicitation/create');
    }
    expect(fastLaneStats.calls - before).toBe(1);
    operator.send({
      jsonrpc: '2.0',
      id: question.id,
      result: { action: 'accept', content: { username: 'ada', email: 'ada@example.org' } },
    });
    const answer = JSON.parse(await operator.answer(400));
    expect(answer.result.structuredContent).toMatchObject({ action: 'accept' });
  });

  it('stops a call when the client cancels it, and sends no answer', async () => {
    const started = new Promise<void>((done) => {
      slow.started = done;
    });
    const before = fastLaneStats.calls;
    operator.send({ jsonrpc: '2.0', id: 500, method: 'tools/call', params: { name: 'slow_read' } });
    await started;
    expect(fastLaneStats.calls - before).toBe(1);
    operator.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 500 } });
    // The call ends (the tool never answers, so after its last-word grace), then nothing is sent.
    const entry = dispatcher.registry.get('slow_read');
    while ((entry?.running ?? 0) > 0) await new Promise((wake) => setTimeout(wake, 10));
    await operator.request(501, 'ping', {});
    expect(operator.seen.some((m) => m.id === 500)).toBe(false);
    slow.release();
  });
});
