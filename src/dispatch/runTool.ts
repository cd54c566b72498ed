/**
 * The one pipeline every transport uses (DESIGN.md §3, dispatch notes §2.3): look up, validate,
 * gate on capability and concurrency, run under a deadline joined to the caller's cancellation,
 * check the firmware has what the tool needs, render. Every branch writes one audit event.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { callBoard } from '../tools/boardClient.js';
import { type AnyTool, type Capability, type ToolContext, ToolError } from '../tools/tool.js';
import type { AuditOutcome } from './audit.js';
import type { Dispatcher } from './dispatcher.js';
import { DISPATCH, JSONRPC, RpcError } from './errors.js';
import { failureOf } from './mapError.js';
import {
  type ContentBlock,
  renderFailure,
  renderResult,
  type ToolFailure,
  type ToolResult,
} from './result.js';

/** Who is calling and what they may do (DESIGN.md §4 "Trust"). */
export interface Caller {
  /** For the audit log, e.g. `stdio` or `http:<session>`. */
  id: string;
  granted: ReadonlySet<Capability>;
}

/** Client features a tool may use through MCP (logging, elicitation, sampling); absent elsewhere. */
export interface ClientBridge {
  log(level: 'debug' | 'info' | 'notice' | 'warning' | 'error', data: unknown): Promise<void>;
  elicit(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  sample(params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface CallRequest {
  name: string;
  arguments?: unknown;
  caller: Caller;
  /** The caller's cancellation (MCP `notifications/cancelled`, a closed connection). */
  signal?: AbortSignal;
  onProgress?(progress: number, total?: number, message?: string): void;
  confirm?: ToolContext['confirm'];
  client?: ClientBridge;
}

/** The context runTool gives handlers: the tool contract plus transport extras (fixtures use them). */
export interface DispatchContext extends ToolContext {
  attachContent(block: ContentBlock): void;
  client?: ClientBridge;
}

export async function runTool(dispatcher: Dispatcher, request: CallRequest): Promise<ToolResult> {
  const started = performance.now();
  const time = new Date().toISOString();
  const callId = randomUUID();
  const audit = (outcome: AuditOutcome, code?: string) =>
    dispatcher.audit?.({
      time,
      callId,
      caller: request.caller.id,
      tool: request.name,
      outcome,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      ...(code ? { code } : {}),
    });

  const entry = dispatcher.registry.get(request.name);
  if (!entry) {
    audit('unknown_tool');
    throw new RpcError(JSONRPC.invalidParams, `Unknown tool: ${request.name}`);
  }
  const { tool } = entry;

  const parsed: z.ZodSafeParseResult<unknown> = tool.input.safeParse(request.arguments ?? {});
  if (!parsed.success) {
    audit('invalid_args');
    throw new RpcError(
      JSONRPC.invalidParams,
      `Invalid arguments for tool ${tool.name}:\n${z.prettifyError(parsed.error)}`,
      {
        tool: tool.name,
        issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
      },
    );
  }

  if (!request.caller.granted.has(tool.capability)) {
    audit('denied');
    const granted = [...request.caller.granted].sort();
    throw new RpcError(JSONRPC.internalError, `Capability denied: ${tool.name} needs ${tool.capability}`, {
      code: DISPATCH.capabilityDenied,
      retryable: false,
      required: [tool.capability],
      granted,
      missing: [tool.capability],
    });
  }

  if (tool.maxConcurrent !== undefined && entry.running >= tool.maxConcurrent) {
    audit('rate_limited');
    throw new RpcError(
      JSONRPC.internalError,
      `Too many calls: ${tool.name} runs at most ${tool.maxConcurrent} at once`,
      {
        code: DISPATCH.rateLimited,
        retryable: true,
        tool: tool.name,
        limit: tool.maxConcurrent,
      },
    );
  }

  const timeoutMs = tool.timeoutMs ?? dispatcher.defaultTimeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('deadline')), timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline.signal, request.signal]) : deadline.signal;
  const extra: ContentBlock[] = [];
  const held = callBoard(dispatcher.board, {
    signal,
    owner: request.caller.id,
    atomic: tool.atomic !== false,
  });
  let lastProgress = Number.NEGATIVE_INFINITY;
  const context: DispatchContext = {
    signal,
    progress(progress, total, message) {
      // MCP requires progress to increase (2025-06-18 progress utility); drop anything else.
      if (!(progress > lastProgress) || signal.aborted) return;
      lastProgress = progress;
      request.onProgress?.(progress, total, message);
    },
    attachImage: (image) => extra.push({ type: 'image', data: image.data, mimeType: image.mimeType }),
    attachContent: (block) => extra.push(block),
    board: held.board,
    safety: dispatcher.safety,
    ...(request.confirm ? { confirm: request.confirm } : {}),
    ...(request.client ? { client: request.client } : {}),
  };

  entry.running++;
  try {
    const data = await untilAborted(invoke(tool, parsed.data, context), signal);
    if (entry.passthrough) {
      const result = data as ToolResult;
      audit(result.isError ? 'tool_error' : 'ok');
      if (!result.isError && tool.kind !== 'read') dispatcher.boardChanged(tool.name);
      return result;
    }
    const output = tool.output.safeParse(data);
    if (!output.success) {
      throw new Error(`result does not match its output schema: ${z.prettifyError(output.error)}`);
    }
    audit('ok');
    if (tool.kind !== 'read') dispatcher.boardChanged(tool.name);
    return renderResult(output.data as Record<string, unknown>, extra);
  } catch (error) {
    let failure: ToolFailure | RpcError;
    if (deadline.signal.aborted) failure = timeoutFailure(tool, timeoutMs);
    else if (request.signal?.aborted)
      failure = { code: 'canceled', message: `${tool.name} was canceled.`, retryable: false };
    else failure = failureOf(error, tool.name);
    if (failure instanceof RpcError) {
      // A federated child refusing the arguments is still invalid arguments.
      audit(failure.code === JSONRPC.invalidParams ? 'invalid_args' : 'internal');
      throw failure;
    }
    audit(
      failure.code === 'timeout' ? 'timeout' : failure.code === 'canceled' ? 'canceled' : 'tool_error',
      failure.code,
    );
    return renderFailure(failure);
  } finally {
    held.end();
    clearTimeout(timer);
    entry.running--;
  }
}

async function invoke(tool: AnyTool, args: unknown, context: DispatchContext): Promise<unknown> {
  if (tool.requires && tool.requires.length > 0) {
    const available = await context.board.firmwareFunctions();
    const missing = tool.requires.filter((name) => !available.has(name));
    if (missing.length > 0) {
      throw new ToolError(
        'unsupported_firmware',
        `This board's firmware has no ${missing.join(', ')}, which ${tool.name} needs. Update the Jumperless firmware (5.7 or later) and try again.`,
        { details: { missing } },
      );
    }
  }
  return tool.handle(args, context);
}

/** Settles with the work, or rejects as soon as the signal fires (a handler that ignores it cannot hold the call). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function timeoutFailure(tool: AnyTool, timeoutMs: number): ToolFailure {
  return {
    code: 'timeout',
    message: `${tool.name} did not finish within ${timeoutMs} ms and was stopped; the board was interrupted and is ready again. Retry, or split the work into shorter calls.`,
    retryable: true,
    timeout_ms: timeoutMs,
  };
}
