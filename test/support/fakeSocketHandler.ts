/**
 * A SocketToolHandler for the socket's own tests: a few tools with the dispatch behaviours the
 * socket must carry (capability gate 1001, tool failure, hidden tool, dry run, a call that waits
 * for cancellation, a handler bug), without the real dispatch.
 */
import { intersectCapabilities } from '../../src/core/capabilities.js';
import {
  dryRunPreview,
  type RunToolOutcome,
  type SocketCallContext,
  type SocketToolHandler,
} from '../../src/socket/handler.js';
import type { SocketToolSummary } from '../../src/socket/messages.js';

interface FakeTool {
  capability: string;
  hidden?: boolean;
  run(args: unknown, context: SocketCallContext): Promise<RunToolOutcome>;
}

export interface FakeHandler extends SocketToolHandler {
  /** Contexts of every run, in order. */
  readonly calls: { toolId: string; args: unknown; context: SocketCallContext }[];
  /** Signals of `jumperless.wait_forever` calls; they settle only when aborted. */
  readonly waiting: AbortSignal[];
}

export function fakeHandler(): FakeHandler {
  const waiting: AbortSignal[] = [];
  const tools: Record<string, FakeTool> = {
    'jumperless.echo': {
      capability: 'jumperless.read',
      run: async (args) => ({ kind: 'result', success: true, result: { echoed: args } }),
    },
    'jumperless.dac_fail': {
      capability: 'jumperless.power',
      run: async () => ({
        kind: 'result',
        success: false,
        result: { code: 'out_of_range', message: 'volts must be within -8..8 V.', retryable: false },
      }),
    },
    'jumperless.python_exec': {
      capability: 'jumperless.exec',
      hidden: true,
      run: async (args) => ({ kind: 'result', success: true, result: { ran: args } }),
    },
    'jumperless.wait_forever': {
      capability: 'jumperless.read',
      run: (_args, context) =>
        new Promise((resolve) => {
          waiting.push(context.signal);
          context.signal.addEventListener('abort', () =>
            resolve({ kind: 'result', success: false, result: { code: 'canceled' } }),
          );
        }),
    },
    'jumperless.crash': {
      capability: 'jumperless.read',
      run: async () => {
        throw new Error('handler bug with /secret/path in it');
      },
    },
  };
  const summary = (id: string): SocketToolSummary => ({
    id,
    name: id.split('.').at(-1) ?? id,
    description: `fake ${id}`,
    input_schema: { type: 'object' },
    visibility: tools[id]?.hidden ? 'hidden' : 'read',
    tier: 'warm',
  });
  const calls: FakeHandler['calls'] = [];
  return {
    calls,
    waiting,
    listTools: async () =>
      Object.keys(tools)
        .filter((id) => !tools[id]?.hidden)
        .map(summary),
    toolSchema: async (id) =>
      tools[id] ? { ...summary(id), required_capabilities: [tools[id].capability] } : undefined,
    runTool: async (toolId, args, context) => {
      calls.push({ toolId, args, context });
      if (context.dryRun) return dryRunPreview(toolId, args);
      const tool = tools[toolId];
      if (!tool) return { kind: 'error', message: `unknown tool: ${toolId}`, retryable: false };
      const { missing } = intersectCapabilities([tool.capability], context.capabilities);
      if (missing.length > 0) {
        return {
          kind: 'error',
          message: `capability denied: ${toolId} needs ${tool.capability}`,
          code: 1001,
          retryable: false,
          details: { required: [tool.capability], granted: [...context.capabilities], missing },
        };
      }
      return tool.run(args, context);
    },
  };
}
