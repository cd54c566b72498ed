import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CAPABILITIES, type Capability } from '../core/capabilities.js';
import { createDispatcher } from '../core/dispatcher.js';
import { ToolError } from '../core/errors.js';
import { runTool } from '../core/runTool.js';
import { type AnyTool, defineTool } from '../core/toolDefinition.js';
import { ToolSubsystem } from '../core/toolSubsystem.js';
import { FrameClient } from '../device/frameClient.js';
import { dispatchHandler } from './dispatchHandler.js';
import { type SocketServer, startSocketServer } from './server.js';

const base = { title: 'Test', group: 'test', output: z.looseObject({}) } as const;
const tools: AnyTool[] = [
  defineTool({
    ...base,
    name: 'echo_args',
    description: 'Returns its arguments.',
    kind: 'read',
    capability: 'jumperless.read',
    input: z.looseObject({}),
    handle: async (args) => ({ echoed: args }),
  }),
  defineTool({
    ...base,
    name: 'fail_always',
    description: 'Fails as a tool.',
    kind: 'write',
    capability: 'jumperless.wire',
    input: z.object({}),
    handle: async () => {
      throw new ToolError('out_of_range', 'Volts must be within -8..8 V; pass a smaller value.', {
        details: { limit: 8 },
      });
    },
  }),
  defineTool({
    ...base,
    name: 'hidden_debug',
    description: 'Hidden but callable.',
    kind: 'read',
    capability: 'jumperless.read',
    hidden: true,
    input: z.object({}),
    handle: async () => ({ secret: 'found' }),
  }),
  defineTool({
    ...base,
    name: 'needs_number',
    description: 'Takes a number.',
    kind: 'destructive',
    capability: 'jumperless.read',
    input: z.object({ n: z.number() }),
    handle: async ({ n }) => ({ n }),
  }),
  defineTool({
    ...base,
    name: 'run_python',
    description: 'Needs exec.',
    kind: 'physical',
    capability: 'jumperless.exec',
    input: z.object({}),
    handle: async () => ({ ran: true }),
  }),
];

const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: tools }) });
let dir: string;
let server: SocketServer;
let client: FrameClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jl-sock-dispatch-'));
  server = await startSocketServer({
    path: join(dir, 'd.sock'),
    handler: dispatchHandler(dispatcher),
    allowedCapabilities: [...CAPABILITIES],
    serverVersion: 'jumperless-mcp 0.1.0',
  });
  client = await FrameClient.connect(server.path);
  await client.request({
    type: 'hello',
    client_id: 'parity',
    requested_capabilities: ['jumperless.read', 'jumperless.wire'],
  });
});
afterAll(async () => {
  client.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const GRANTED = new Set<Capability>(['jumperless.read', 'jumperless.wire']);

/** What the core renders as the MCP text item for the same call. */
async function directText(name: string, args: unknown): Promise<string> {
  const result = await runTool(dispatcher, {
    name,
    arguments: args,
    caller: { id: 'direct', granted: GRANTED },
  });
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('dispatchHandler over the socket', () => {
  it('gives the same JSON as the core for success, tool failure, nested, empty and hidden calls', async () => {
    const calls: [string, unknown, boolean][] = [
      ['echo_args', { nested: { list: [1, { deep: [null, 'µ✓'] }], n: -0.5 }, empty: {} }, true],
      ['echo_args', {}, true],
      ['fail_always', {}, false],
      ['hidden_debug', {}, true],
    ];
    for (const [name, args, success] of calls) {
      const reply = await client.request({ type: 'run_tool', tool_id: name, args, dry_run: false });
      expect(reply).toMatchObject({ type: 'tool_result', tool_id: name, success, dry_run: false });
      const result = (reply as { result: unknown }).result;
      expect(JSON.stringify(result)).toBe(await directText(name, args));
    }
    const failure = await client.request({ type: 'run_tool', tool_id: 'fail_always', args: {} });
    expect(failure).toMatchObject({ result: { code: 'out_of_range', retryable: false, limit: 8 } });
  });

  it('maps refusals to ATD error frames', async () => {
    expect(await client.request({ type: 'run_tool', tool_id: 'run_python', args: {} })).toEqual({
      type: 'error',
      message: 'Capability denied: run_python needs jumperless.exec',
      code: 1001,
      retryable: false,
      details: {
        required: ['jumperless.exec'],
        granted: ['jumperless.read', 'jumperless.wire'],
        missing: ['jumperless.exec'],
      },
    });
    expect(await client.request({ type: 'run_tool', tool_id: 'no_such_tool', args: {} })).toEqual({
      type: 'error',
      message: 'Unknown tool: no_such_tool',
      retryable: false,
    });
    const invalid = await client.request({ type: 'run_tool', tool_id: 'needs_number', args: { n: 'x' } });
    expect(invalid).toMatchObject({
      type: 'error',
      message: expect.stringMatching(/^Invalid arguments for tool needs_number/),
      retryable: false,
      details: { tool: 'needs_number', issues: [expect.objectContaining({ path: ['n'] })] },
    });
    expect(invalid).not.toHaveProperty('code');
  });

  it('answers a dry run without running, lists visible tools, then hidden ones labelled so', async () => {
    expect(
      await client.request({ type: 'run_tool', tool_id: 'run_python', args: { a: 1 }, dry_run: true }),
    ).toEqual({
      type: 'tool_result',
      tool_id: 'run_python',
      result: { dry_run: true, tool_id: 'run_python', args_preview: { a: 1 } },
      success: true,
      dry_run: true,
    });
    const list = (await client.request({ type: 'tool_list' })) as unknown as {
      tools: Record<string, unknown>[];
    };
    // The server's own meta-tools stay out: a gateway in front has its own. run_python needs
    // jumperless.exec, which this connection was not granted, so it is not listed either.
    expect(list.tools.map((t) => t.id)).toEqual(['echo_args', 'fail_always', 'needs_number', 'hidden_debug']);
    expect(list.tools.slice(3).every((t) => t.visibility === 'hidden')).toBe(true);
    expect(list.tools[2]).toMatchObject({
      id: 'needs_number',
      domain: 'test',
      visibility: 'dangerous',
      tier: 'warm',
      input_schema: { type: 'object', properties: { n: { type: 'number' } } },
    });
    expect(await client.request({ type: 'tool_schema', tool_id: 'hidden_debug' })).toMatchObject({
      type: 'tool_schema',
      schema: { id: 'hidden_debug', visibility: 'hidden', required_capabilities: ['jumperless.read'] },
    });
  });
});
