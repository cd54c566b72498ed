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
import { callBinding } from './callBinding.js';
import { type Capability, denied } from './capabilities.js';
import { CONFIRM_TIMEOUT_MS, type ConfirmPolicy } from './confirmation.js';
import type { Dispatcher } from './dispatcher.js';
import { DISPATCH, JSONRPC, RpcError, ToolError } from './errors.js';
import { failureOf } from './failure.js';
import type { AskedQuestion, OpenQuestions } from './questions.js';
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
  /**
   * Whose hazard questions and answers these are (questions.ts), where that is wider than `id`:
   * an anonymous 2026-07-28 caller's `id` is its TCP connection (for board turns), and one client
   * spreads its requests over several, so nothing tells anonymous 2026-07-28 clients apart and
   * their questions are shared. Default: `id`.
   */
  answersAs?: string;
}

/** Who a hazard's question is put to, and whose answers count for it. */
export const answersAs = (caller: Caller): string => caller.answersAs ?? caller.id;

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
  /**
   * The client renders MCP Apps: a hazard's question can wait for the person in the board app (and
   * its form), also when the client cannot ask itself.
   */
  rendersApps?: boolean;
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
    const app = appOf(entry.definition._meta);
    const refused = await confirmHazard(dispatcher.confirm, dispatcher.questions, name, args, question, {
      ...request,
      rendersApps: request.rendersApps === true && app !== undefined,
    });
    if (refused) {
      audit(
        refused.code === 'canceled'
          ? 'canceled'
          : refused.code === 'confirmation_pending'
            ? 'asked'
            : 'declined',
        refused.code,
      );
      const rendered = renderFailure(refused);
      // The board app, where the person answers, shown under this very result.
      return refused.code === 'confirmation_pending'
        ? { ...rendered, _meta: { ui: { resourceUri: app } } }
        : rendered;
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
 * before the tool holds the board: undefined to go ahead, else why not. The question is bound to
 * this exact call (caller, tool, parsed arguments) and open to the board's app (questions.ts) as
 * well as to the client's own dialog:
 * - an answer the app gave for this call while no call waited (its retry) decides, once;
 * - a client that can elicit is asked and the call waits for the first answer, dialog or form; in
 *   2026-07-28 the question becomes the call's `input_required` result (`until`) and stays open to
 *   the app for the retry;
 * - a host that renders apps but cannot elicit gets at once a result that carries the question
 *   and points at the board app, where the person answers; the same call retried takes the answer;
 * - any other client: run as before (`hazards`) or refused (`always`).
 */
async function confirmHazard(
  policy: ConfirmPolicy,
  questions: OpenQuestions,
  name: string,
  args: unknown,
  question: string,
  request: CallRequest,
): Promise<ToolFailure | undefined> {
  const who = answersAs(request.caller);
  const binding = callBinding(name, args, who);
  const given = questions.take(who, binding);
  if (given === 'accept') return undefined;
  if (given === 'decline') return declined(name, question, 'in the board view');
  if (!request.confirm) {
    if (request.rendersApps)
      return awaitingApp(name, questions.ask(who, binding, name, question, CONFIRM_TIMEOUT_MS));
    if (policy.mode === 'hazards') return undefined;
    return {
      code: 'confirmation_required',
      message: `${name} needs a person's yes on this server (--confirm always), and this client cannot ask (no elicitation, no MCP Apps). Nothing was changed. The question: ${question}`,
      retryable: false,
    };
  }
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'stopped' | 'handed_over' | 'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CONFIRM_TIMEOUT_MS);
    onAbort = () => resolve('stopped');
    if (request.signal?.aborted) onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    void request.until?.then(() => resolve('handed_over'));
  });
  const asked = questions.ask(who, binding, name, question, CONFIRM_TIMEOUT_MS);
  let keepOpen = false;
  try {
    const answer = await Promise.race([
      request.confirm(question).catch(() => 'cancel' as const),
      asked.answered,
      stopped,
    ]);
    if (answer === 'accept') return undefined;
    if (answer === 'handed_over') {
      // 2026-07-28: the question is the call's result now; the app may still answer it for the retry.
      keepOpen = true;
      return { code: 'canceled', message: `${name} was canceled.`, retryable: false };
    }
    if (answer === 'stopped') return { code: 'canceled', message: `${name} was canceled.`, retryable: false };
    if (answer === 'timeout') {
      return {
        code: 'not_confirmed',
        message: `Nobody answered within ${CONFIRM_TIMEOUT_MS / 60_000} minutes: ${name} did not run. Nothing was changed.`,
        retryable: true,
      };
    }
    return declined(name, question, 'at the client');
  } finally {
    if (keepOpen) asked.detach();
    else asked.close();
    clearTimeout(timer);
    if (onAbort) request.signal?.removeEventListener('abort', onAbort);
  }
}

function declined(name: string, question: string, where: string): ToolFailure {
  return {
    code: 'declined',
    message: `The person ${where} said no: ${name} did not run. Nothing was changed. The question: ${question}`,
    retryable: false,
  };
}

/**
 * The answer to a hazard call from a host that renders apps and cannot elicit: nothing ran, the
 * question waits in the board view shown under this result, and the same call again takes the
 * person's answer. An error result, so no model reads it as done.
 */
function awaitingApp(name: string, asked: AskedQuestion): ToolFailure {
  asked.detach();
  const minutes = CONFIRM_TIMEOUT_MS / 60_000;
  return {
    code: 'confirmation_pending',
    message: `${name} did not run yet: it waits for the person's yes in the board view shown with this result. After they answer there, call ${name} again with the same arguments (within ${minutes} minutes): it runs after a yes and is refused after a no. Nothing was changed. The question: ${asked.question}`,
    retryable: true,
    question: { id: asked.id, tool: name, question: asked.question, expires: asked.expires },
  };
}

/** The MCP App a tool's result is shown in (`_meta.ui.resourceUri`), if it has one. */
function appOf(meta: Record<string, unknown> | undefined): string | undefined {
  const ui = meta?.ui as { resourceUri?: unknown } | undefined;
  return typeof ui?.resourceUri === 'string' ? ui.resourceUri : undefined;
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
