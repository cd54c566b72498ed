/**
 * `tools/call`: one runTool call, with what the request brings (its progress token, the client's
 * capabilities and log level) and the client's features as a ClientBridge. The eras differ in how
 * a question reaches the person at the client: a server request on the connection (2025), or an
 * `input_required` result whose answers come back with the retried call (2026-07-28: rounds, see
 * inputRounds.ts), so a tool asks the same way in both.
 */
import {
  type CallToolRequest,
  type ClientCapabilities,
  type ElicitInputParams,
  inputRequired,
  type LoggingLevel,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Dispatcher } from '../core/dispatcher.js';
import { JSONRPC, RpcError } from '../core/errors.js';
import { rendersApps } from '../core/listTools.js';
import type { ToolResult } from '../core/render.js';
import { type Caller, type CallRequest, runTool } from '../core/runTool.js';
import type { ClientBridge } from '../core/toolDefinition.js';
import { InputRounds, type RoundState, roundBinding, type StateCodec } from './inputRounds.js';

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Whether a message at `level` reaches a client that set `threshold` (none: it asked for none). */
export const heard = (level: LoggingLevel, threshold: LoggingLevel | undefined): boolean =>
  threshold !== undefined && LEVELS.indexOf(level) >= LEVELS.indexOf(threshold);

export interface CallScope {
  dispatcher: Dispatcher;
  caller: Caller;
  /** 2026-07-28: questions become `input_required` rounds signed with this codec. */
  rounds: StateCodec | undefined;
  /** What the client can do (its initialize, or the request's `_meta`). */
  client: ClientCapabilities | undefined;
  /** The least level of log message the client wants; undefined: none. */
  level: LoggingLevel | undefined;
}

export function callTool(
  request: Pick<CallToolRequest, 'params'>,
  extra: ServerContext,
  scope: CallScope,
): Promise<unknown> {
  const { mcpReq } = extra;
  const token = mcpReq._meta?.progressToken ?? request.params._meta?.progressToken;
  refuseOversizedToken(token);
  const rounds = scope.rounds
    ? new InputRounds(
        scope.rounds,
        mcpReq.requestState<RoundState>(),
        mcpReq.inputResponses,
        roundBinding(request.params.name, request.params.arguments, scope.caller.principal),
      )
    : undefined;
  const ask = async (
    method: 'elicitation/create' | 'sampling/createMessage',
    params: Record<string, unknown>,
  ) =>
    rounds
      ? rounds.ask(
          method === 'elicitation/create'
            ? inputRequired.elicit(params as unknown as ElicitInputParams)
            : inputRequired.createMessage(params as never),
        )
      : ((await mcpReq.send({ method, params } as never, { signal: mcpReq.signal })) as Record<
          string,
          unknown
        >);
  const client: ClientBridge = {
    log: async (level, data) => {
      if (heard(level, scope.level))
        await mcpReq.notify({ method: 'notifications/message', params: { level, data } });
    },
    elicit: (params) => ask('elicitation/create', params),
    sample: (params) => ask('sampling/createMessage', params),
  };
  const call: CallRequest = {
    name: request.params.name,
    arguments: request.params.arguments,
    caller: scope.caller,
    client,
    rendersApps: rendersApps(scope.client?.extensions),
    ...(token === undefined
      ? {}
      : {
          onProgress: (progress: number, total?: number, message?: string) => {
            void mcpReq
              .notify({
                method: 'notifications/progress',
                params: {
                  progressToken: token,
                  progress,
                  ...(total === undefined ? {} : { total }),
                  ...(message === undefined ? {} : { message }),
                },
              })
              .catch(() => {});
          },
        }),
    ...(scope.client?.elicitation !== undefined
      ? {
          confirm: async (message: string) => {
            const answer = await client.elicit({
              message,
              requestedSchema: { type: 'object', properties: {} },
            });
            return answer.action as 'accept' | 'decline' | 'cancel';
          },
        }
      : {}),
  };
  const run = (signal: AbortSignal, until?: Promise<unknown>): Promise<ToolResult> =>
    runTool(scope.dispatcher, { ...call, signal, ...(until ? { until } : {}) });
  return rounds ? rounds.run(mcpReq.signal, run) : run(mcpReq.signal);
}

/**
 * The most characters of a progress token. Every progress notification of a call echoes its token,
 * so a large one multiplies (3.9 MB on a 101-point sweep made 394 MB). Refused rather than cut: a
 * cut token no longer names the request, so the client could match none of the notifications.
 * Clients send a counter or a UUID (36 characters); 256 leaves room for any id scheme.
 */
export const PROGRESS_TOKEN_MAX = 256;

function refuseOversizedToken(token: unknown): void {
  if (typeof token !== 'string' || token.length <= PROGRESS_TOKEN_MAX) return;
  throw new RpcError(
    JSONRPC.invalidParams,
    `_meta.progressToken is ${token.length} characters; at most ${PROGRESS_TOKEN_MAX} (it is echoed in every progress notification): send a shorter id`,
  );
}
