/**
 * The one pipeline every transport uses (DESIGN.md §3, dispatch notes §2.3): look up, check the
 * arguments (tools in this process), gate on capability and concurrency, run the entry once under
 * a deadline joined to the caller's cancellation, render a failure. Every branch writes one audit
 * event. The board held for the call and the firmware check belong to the adapter that runs a device
 * tool (core/toolSubsystem.ts).
 */
import { randomUUID } from 'node:crypto';
import { isDeviceError } from '../device/errors.js';
import type { AuditOutcome } from './audit.js';
import { type Capability, denied } from './capabilities.js';
import { CONFIRM_TIMEOUT_MS, type ConfirmPolicy } from './confirmation.js';
import type { Dispatcher } from './dispatcher.js';
import { DISPATCH, JSONRPC, RpcError, ToolError } from './errors.js';
import { failureOf } from './failure.js';
import type { OpenQuestions } from './questions.js';
import type { ToolEntry } from './registry.js';
import { renderFailure, type ToolFailure, type ToolResult } from './render.js';
import type { CallContext, ClientBridge, PresentedLease } from './toolDefinition.js';

/** Who is calling and what they may do (DESIGN.md §4 "Trust"). */
export interface Caller {
  /** For the audit log and board turns, e.g. `stdio` or `http:<session>`. */
  id: string;
  granted: ReadonlySet<Capability>;
  /** Who calls beyond this connection (a token's caller id); undefined: anonymous. */
  principal?: string;
  /** The outside lease the caller presents (core/outsideLease.ts), as the operator's source read it. */
  outsideLease?: PresentedLease;
  /** A name a person would know the caller by (a token's), shown to callers its lease refuses. */
  name?: string;
}

export interface CallRequest {
  name: string;
  arguments?: unknown;
  caller: Caller;
  /** The caller's cancellation (MCP `notifications/cancelled`, a closed connection). */
  signal?: AbortSignal;
  /**
   * Settles, with the reason, when the call must stop though nobody cancelled it (2026-07-28: a
   * question the client has to answer first). A promise, not a second signal: this is every
   * modern call's path, and a joined AbortController costs more than the call's own work.
   */
  until?: Promise<unknown>;
  onProgress?(progress: number, total?: number, message?: string): void;
  confirm?: CallContext['confirm'];
  client?: ClientBridge;
}

/**
 * How long a tool that was cancelled or ran out of time may take to answer for itself (a sweep's
 * "cancelled after N points" with the points it has), before the generic answer goes out.
 */
const LAST_WORD_MS = 1000;

export async function runTool(dispatcher: Dispatcher, request: CallRequest): Promise<ToolResult> {
  const started = performance.now();
  // The call's id and start time only when there is an audit log to write them to.
  const time = dispatcher.audit ? new Date().toISOString() : '';
  const callId = dispatcher.audit ? randomUUID() : '';
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
  const name = entry.definition.name;
  const off = dispatcher.selection.whyOff(entry);
  if (off !== undefined) {
    audit('unknown_tool');
    throw new RpcError(JSONRPC.invalidParams, `Tool ${name} is not on: ${off}`);
  }

  let args: unknown;
  try {
    args = entry.parse ? entry.parse(request.arguments) : (request.arguments ?? {});
  } catch (error) {
    audit('invalid_args');
    throw error;
  }

  if (!request.caller.granted.has(entry.capability)) {
    audit('denied');
    throw denied(name, entry.capability, request.caller.granted);
  }

  // Only a hazard waits here (for the person): every other call goes on in the same tick.
  const question = dispatcher.confirm.mode === 'never' ? undefined : entry.hazard?.(args, dispatcher.confirm);
  if (question !== undefined) {
    const refused = await confirmHazard(dispatcher.confirm, dispatcher.questions, name, question, request);
    if (refused) {
      audit(refused.code === 'canceled' ? 'canceled' : 'declined', refused.code);
      return renderFailure(refused);
    }
  }

  if (entry.maxConcurrent !== undefined && entry.running >= entry.maxConcurrent) {
    audit('rate_limited');
    throw new RpcError(
      JSONRPC.internalError,
      `Too many calls: ${name} runs at most ${entry.maxConcurrent} at once`,
      {
        code: DISPATCH.rateLimited,
        retryable: true,
        tool: name,
        limit: entry.maxConcurrent,
      },
    );
  }

  const timeoutMs = entry.timeoutMs ?? dispatcher.defaultTimeoutMs;
  // One controller for the deadline and the caller's cancel: AbortSignal.any costs tens of us a
  // call on Node 20, most of it in the garbage collector (it keeps its sources as weak refs).
  const stop = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort(new Error('deadline'));
    stopped?.();
  }, timeoutMs);
  const cancel = request.signal;
  let stopped: (() => void) | undefined;
  const onCancel = () => {
    stop.abort(cancel?.reason);
    stopped?.();
  };
  if (cancel?.aborted) onCancel();
  else cancel?.addEventListener('abort', onCancel, { once: true });
  let halted = false;
  void request.until?.then((reason) => {
    halted = true;
    stop.abort(reason);
    stopped?.();
  });
  const signal = stop.signal;
  let lastWord: NodeJS.Timeout | undefined;
  let lastProgress = Number.NEGATIVE_INFINITY;
  const context: CallContext = {
    signal,
    progress(progress, total, message) {
      // MCP requires progress to increase (2025-06-18 progress utility); drop anything else.
      if (!(progress > lastProgress) || signal.aborted) return;
      lastProgress = progress;
      request.onProgress?.(progress, total, message);
    },
    caller: request.caller.id,
    granted: request.caller.granted,
    ...(request.caller.outsideLease ? { outsideLease: request.caller.outsideLease } : {}),
    ...(request.caller.name ? { callerName: request.caller.name } : {}),
    ...(request.confirm ? { confirm: request.confirm } : {}),
    ...(request.client ? { client: request.client } : {}),
  };

  entry.running++;
  try {
    const result = await new Promise<ToolResult>((resolve, reject) => {
      // Stopped: the tool may still answer for itself within LAST_WORD_MS, else the call ends.
      stopped = () => {
        lastWord ??= setTimeout(() => reject(signal.reason), LAST_WORD_MS);
      };
      if (signal.aborted) stopped();
      entry.run(args, context).then(resolve, reject);
    });
    audit(result.isError ? 'tool_error' : 'ok');
    if (!result.isError) dispatcher.resultSink?.(name, args, result.structuredContent);
    if (!result.isError && entry.kind !== 'read') dispatcher.boardChanged(name);
    return result;
  } catch (error) {
    let failure: ToolFailure | RpcError;
    // A tool that answered for itself when stopped (a sweep with the points it has) is heard.
    const ownWord = signal.aborted && error instanceof ToolError ? failureOf(error, name) : undefined;
    if (ownWord && !(ownWord instanceof RpcError)) {
      failure = timedOut ? { ...ownWord, code: 'timeout', retryable: true, timeout_ms: timeoutMs } : ownWord;
    } else if (timedOut)
      failure = neverRan(error) ? turnTimeoutFailure(entry, timeoutMs) : timeoutFailure(entry, timeoutMs);
    else if (cancel?.aborted || halted)
      failure = { code: 'canceled', message: `${name} was canceled.`, retryable: false };
    else failure = failureOf(error, name);
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
    clearTimeout(timer);
    clearTimeout(lastWord);
    cancel?.removeEventListener('abort', onCancel);
    entry.running--;
  }
}

/**
 * Asks the person before a hazard, under the operator's policy, before the deadline starts and
 * before the tool holds the board: undefined to go ahead, else why not. The question stops with
 * the caller's cancel and, in 2026-07-28, as soon as it becomes the call's `input_required` result.
 */
async function confirmHazard(
  policy: ConfirmPolicy,
  questions: OpenQuestions,
  name: string,
  question: string,
  request: CallRequest,
): Promise<ToolFailure | undefined> {
  if (!request.confirm) {
    if (policy.mode === 'hazards') return undefined;
    return {
      code: 'confirmation_required',
      message: `${name} needs a person's yes on this server (--confirm always), and this client cannot ask (no elicitation). Nothing was changed. The question: ${question}`,
      retryable: false,
    };
  }
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'stopped' | 'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CONFIRM_TIMEOUT_MS);
    onAbort = () => resolve('stopped');
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    void request.until?.then(onAbort);
  });
  // The same question is open to the board's app (a form there answers it: questions.ts) until the
  // first answer from either.
  const asked = questions.ask(request.caller.id, name, question, CONFIRM_TIMEOUT_MS);
  try {
    const answer = await Promise.race([
      request.confirm(question).catch(() => 'cancel' as const),
      asked.answered,
      stopped,
    ]);
    if (answer === 'accept') return undefined;
    if (answer === 'stopped') return { code: 'canceled', message: `${name} was canceled.`, retryable: false };
    if (answer === 'timeout') {
      return {
        code: 'not_confirmed',
        message: `Nobody answered within ${CONFIRM_TIMEOUT_MS / 60_000} minutes: ${name} did not run. Nothing was changed.`,
        retryable: true,
      };
    }
    return {
      code: 'declined',
      message: `The person at the client said no: ${name} did not run. Nothing was changed. The question: ${question}`,
      retryable: false,
    };
  } finally {
    asked.close();
    clearTimeout(timer);
    if (onAbort) request.signal?.removeEventListener('abort', onAbort);
  }
}

/** The call never got the board (Board.hold marks a lease it never got): nothing was interrupted. */
const neverRan = (error: unknown): boolean => isDeviceError(error) && error.details.never_ran === true;

function turnTimeoutFailure(entry: ToolEntry, timeoutMs: number): ToolFailure {
  return {
    code: 'timeout',
    message: `${entry.definition.name} did not get its turn at the board within ${timeoutMs} ms: another caller held the board all that time, and nothing of this call ran. Retry; a caller holds the board for one tool call (a process that stops answering loses it within seconds).`,
    retryable: true,
    timeout_ms: timeoutMs,
  };
}

function timeoutFailure(entry: ToolEntry, timeoutMs: number): ToolFailure {
  return {
    code: 'timeout',
    message: `${entry.definition.name} did not finish within ${timeoutMs} ms and was stopped; the board was interrupted and is ready again. Retry, or split the work into shorter calls.`,
    retryable: true,
    timeout_ms: timeoutMs,
  };
}
