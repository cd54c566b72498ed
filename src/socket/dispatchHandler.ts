/**
 * The socket's handler over the real dispatch core: the same registry and the same `runTool`
 * as stdio and HTTP (issue 5 "same registry, same runTool"), mapped onto ATD's frames
 * (dispatch notes §2.3 step 8):
 *   result                  -> tool_result success:true, result = the structured JSON
 *   isError result          -> tool_result success:false, result = {code, message, retryable, ...}
 *   RpcError with data.code -> error {code 1001/1002/1999, retryable, details = the rest of data}
 *   RpcError without        -> error without code (unknown tool, invalid arguments)
 * The result object is the one MCP renders as its text item, so the bytes match across transports.
 * Tool ids are the internal dotted names (DESIGN.md: `jumperless-a.dac_set`); a single board's are plain.
 */
import { CAPABILITIES, type Capability } from '../core/capabilities.js';
import type { Dispatcher } from '../core/dispatcher.js';
import { RpcError } from '../core/errors.js';
import { callableTools, hiddenTools } from '../core/listTools.js';
import type { ToolEntry } from '../core/registry.js';
import type { ToolResult } from '../core/render.js';
import { runTool } from '../core/runTool.js';
import {
  dryRunPreview,
  type RunToolOutcome,
  type SocketCallContext,
  type SocketToolHandler,
} from './handler.js';
import type { SocketToolSummary } from './messages.js';

const KNOWN = new Set<string>(CAPABILITIES);

export function dispatchHandler(dispatcher: Dispatcher): SocketToolHandler {
  return {
    // Hidden tools too, labelled `hidden` (ATD: only that label changes behaviour): a gateway over
    // this socket offers them, by name only, to callers who hold their capability.
    listTools: async (granted) => {
      const may = grantedOf({ capabilities: granted });
      return [...callableTools(dispatcher, may), ...hiddenTools(dispatcher, may)].map(summaryOf);
    },
    toolSchema: async (toolId) => {
      const entry = dispatcher.registry.internal(toolId) ?? dispatcher.registry.get(toolId);
      return entry ? schemaOf(entry) : undefined;
    },
    runTool: async (toolId, args, context) => {
      // ATD answers a dry run before looking the tool up (dispatch notes §2.3 step 1).
      if (context.dryRun) return dryRunPreview(toolId, args);
      try {
        return outcomeOf(
          await runTool(dispatcher, {
            // An id that names no tool goes on as given: runTool answers (and audits) it as unknown.
            name: dispatcher.registry.internal(toolId)?.definition.name ?? toolId,
            arguments: args,
            caller: { id: callerName(context), granted: grantedOf(context) },
            signal: context.signal,
          }),
        );
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        const { code, retryable, ...details } = error.data ?? {};
        const outcome: RunToolOutcome = {
          kind: 'error',
          message: error.message,
          retryable: retryable === true,
        };
        if (typeof code === 'number') outcome.code = code;
        if (Object.keys(details).length > 0) outcome.details = details;
        return outcome;
      }
    },
  };
}

function outcomeOf(result: ToolResult): RunToolOutcome {
  const first = result.content[0];
  if (result.isError) {
    return { kind: 'result', success: false, result: first?.type === 'text' ? JSON.parse(first.text) : {} };
  }
  const data = result.structuredContent ?? (first?.type === 'text' ? JSON.parse(first.text) : {});
  return { kind: 'result', success: true, result: data };
}

function callerName(context: SocketCallContext): string {
  return `socket:${context.callerId ?? `conn${context.connectionId}`}`;
}

function grantedOf(context: Pick<SocketCallContext, 'capabilities'>): ReadonlySet<Capability> {
  return new Set(context.capabilities.filter((name): name is Capability => KNOWN.has(name)));
}

/** ATD labels; only `hidden` changes behaviour (dispatch notes §2.2). */
function visibilityOf(entry: ToolEntry): SocketToolSummary['visibility'] {
  if (entry.hidden) return 'hidden';
  if (entry.kind === 'destructive') return 'dangerous';
  return entry.kind === 'read' ? 'read' : 'write';
}

function summaryOf(entry: ToolEntry): SocketToolSummary {
  return {
    id: entry.internal,
    name: entry.definition.name,
    description: entry.definition.description,
    domain: entry.group,
    tags: [entry.kind],
    visibility: visibilityOf(entry),
    tier: 'warm',
    input_schema: entry.definition.inputSchema,
  };
}

function schemaOf(entry: ToolEntry): Record<string, unknown> {
  const { definition } = entry;
  return {
    ...summaryOf(entry),
    title: definition.title,
    output_schema: definition.outputSchema,
    required_capabilities: [entry.capability],
    annotations: definition.annotations,
    resources: {
      timeout_ms: entry.timeoutMs ?? null,
      max_concurrent: entry.maxConcurrent ?? 0,
    },
  };
}
