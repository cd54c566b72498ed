/**
 * The lean client of an HTTP child that serves 2026-07-28 (leanHttp.ts): a child with it and a child
 * without it, against the same server, give the same results and the same errors; progress comes
 * up, questions are handed back to the SDK client, a cancel stops the call on the child.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANE_CASES, laneDispatcher, laneServer } from '../../test/support/laneFixture.js';
import { CAPABILITIES, type Capability } from '../contract/index.js';
import type { RunningHttpServer } from '../http/app.js';
import { LeanHttp } from './leanHttp.js';
import { httpTransport, McpChild } from './mcpChild.js';
import type { InvokeContext } from './subsystem.js';

const { dispatcher, slow } = laneDispatcher();

const servers: RunningHttpServer[] = [];
const serve = async (granted: ReadonlySet<Capability>) =>
  (await laneServer(dispatcher, granted, servers)).url;

const context = (overrides: Partial<InvokeContext> = {}): InvokeContext => ({
  signal: new AbortController().signal,
  progress: () => {},
  caller: 'test',
  ...overrides,
});

/** What an invoke gave: its result, or its error's class, code, message and data. */
async function outcome(run: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await run };
  } catch (error) {
    const e = error as { name?: string; code?: unknown; message?: string; data?: unknown };
    return { error: { name: e.name, code: e.code, message: e.message, data: e.data } };
  }
}

describe('the lean client of a 2026-07-28 HTTP child', () => {
  const pairs: Array<{ lean: LeanHttp; leaned: McpChild; plain: McpChild }> = [];
  const pairFor = async (granted: ReadonlySet<Capability>) => {
    const url = await serve(granted);
    const lean = new LeanHttp(url);
    const leaned = new McpChild({ name: 'remote', target: url, transport: httpTransport(url), lean });
    const plain = new McpChild({ name: 'remote', target: url, transport: httpTransport(url) });
    await Promise.all([leaned.connect(), plain.connect()]);
    const pair = { lean, leaned, plain };
    pairs.push(pair);
    return pair;
  };
  let operator: Awaited<ReturnType<typeof pairFor>>;
  let nobody: Awaited<ReturnType<typeof pairFor>>;
  beforeAll(async () => {
    operator = await pairFor(new Set(CAPABILITIES));
    nobody = await pairFor(new Set());
  });
  afterAll(async () => {
    await Promise.all(pairs.flatMap(({ leaned, plain }) => [leaned.disconnect(), plain.disconnect()]));
    await Promise.all(servers.map((server) => server.close()));
  });

  it('gives what the SDK client gives: results, tool failures, bad arguments, unknown tools, no board', async () => {
    const cases = LANE_CASES.map((c): [string, unknown] => [c.name, c.arguments]);
    for (const [tool, args] of cases) {
      const before = operator.lean.answered;
      const lean = await outcome(operator.leaned.invoke(tool, args, context()));
      expect(operator.lean.answered - before, tool).toBe(1);
      expect(lean, tool).toEqual(await outcome(operator.plain.invoke(tool, args, context())));
    }
    expect(operator.leaned.health()).toMatchObject({ status: 'ok' });
  });

  it('gives a denied capability as the SDK client does', async () => {
    const lean = await outcome(nobody.leaned.invoke('test_simple_text', {}, context()));
    expect(lean).toEqual(await outcome(nobody.plain.invoke('test_simple_text', {}, context())));
    expect(lean).toMatchObject({ error: { code: -32603, data: { code: 1001 } } });
  });

  it('passes progress up as it comes', async () => {
    const seen = { lean: [] as number[], plain: [] as number[] };
    const before = operator.lean.answered;
    await operator.leaned.invoke(
      'test_tool_with_progress',
      {},
      context({ progress: (p) => seen.lean.push(p) }),
    );
    expect(operator.lean.answered - before).toBe(1);
    await operator.plain.invoke(
      'test_tool_with_progress',
      {},
      context({ progress: (p) => seen.plain.push(p) }),
    );
    expect(seen.lean).toEqual([0, 50, 100]);
    expect(seen.lean).toEqual(seen.plain);
  });

  it('hands a question back to the SDK client, which puts it to the caller', async () => {
    const asked: unknown[] = [];
    const client = {
      log: async () => {},
      sample: async () => ({}),
      elicit: async (params: Record<string, unknown>) => {
        asked.push(params.message);
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.org' } };
      },
    };
    const before = operator.lean.answered;
    const result = await operator.leaned.invoke('test_elicitation', { message: 'Who?' }, context({ client }));
    expect(operator.lean.answered - before).toBe(0);
    expect(asked).toEqual(['Who?']);
    expect(result.structuredContent).toMatchObject({ action: 'accept' });
  });

  it('stops the call on the child when the caller cancels', async () => {
    const started = new Promise<void>((done) => {
      slow.started = done;
    });
    const controller = new AbortController();
    const call = operator.leaned.invoke('slow_read', {}, context({ signal: controller.signal }));
    await started;
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    const entry = dispatcher.registry.get('slow_read');
    while ((entry?.running ?? 0) > 0) await new Promise((wake) => setTimeout(wake, 10));
    expect(entry?.running).toBe(0);
    expect(operator.leaned.health()).toMatchObject({ status: 'ok' });
  });
});

describe('the lean client, when the child breaks off', () => {
  const envelope = {
    protocolVersion: '2026-07-28',
    clientInfo: { name: 't', version: '0' },
    clientCapabilities: {},
  };
  /** A child that answers every POST with `answer` (status 200) and then does `then`. */
  async function brokenChild(
    type: string,
    answer: string,
    then: 'end' | 'cut',
  ): Promise<{ url: string; close(): void }> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': type });
        res.write(answer);
        if (then === 'end') res.end();
        else res.socket?.destroy();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
      close: () => server.close(),
    };
  }
  const call = (url: string) =>
    new LeanHttp(url).call({
      tool: 't',
      args: {},
      envelope,
      signal: new AbortController().signal,
      progress: () => {},
    });

  it.each([
    ['a JSON answer cut off mid-body', 'application/json', '{"jsonrpc":"2.0","id":"lean-1","res', 'cut'],
    ['a JSON answer that is not JSON', 'application/json', '{"jsonrpc":', 'end'],
    [
      'a stream cut off before its answer',
      'text/event-stream',
      'event: message\ndata: {"jsonrpc":"2.0"',
      'cut',
    ],
    ['a stream that ends without an answer', 'text/event-stream', ': nothing\n\n', 'end'],
  ] as const)('rejects %s, and does not hang', async (_what, type, answer, then) => {
    const child = await brokenChild(type, answer, then);
    try {
      await expect(call(child.url)).rejects.toThrow();
    } finally {
      child.close();
    }
  });
});
