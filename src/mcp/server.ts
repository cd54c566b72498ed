/**
 * The MCP server factory: the SDK's low-level `Server` with every request handed to dispatch
 * (DESIGN.md §4 "Protocol"), so every era and transport behaves the same. One server per legacy
 * connection (2025-11-25 / 2025-06-18: `initialize`, a session) or per stdio connection; for
 * 2026-07-28 over HTTP a server answers one request at a time, from a small pool (http/modern.ts). The dispatcher (registry, board, audit) is shared.
 *
 * The eras differ in four places, each decided per request from the negotiated version: a
 * question to the person at the client (a server request, or an `input_required` result:
 * inputRounds.ts), the log level (`logging/setLevel`, or the request's `_meta`), what changed
 * (notifications to subscribers, or `subscriptions/listen`, which the SDK's entries serve) and
 * cache hints on lists (2026-07-28 only).
 */
import {
  type CacheHint,
  type CallToolRequest,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ElicitInputParams,
  inputRequired,
  type JSONRPCMessage,
  type ListToolsResult,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type RequestOptions,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type Capability,
  type ClientBridge,
  DISPATCH,
  isModernProtocol,
  JSONRPC,
  RpcError,
} from '../contract/index.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../contract/version.js';
import {
  type Caller,
  type Dispatcher,
  failureOf,
  type ListMode,
  listTools,
  matchTemplate,
  runTool,
} from '../dispatch/index.js';
import { answerPlainCall, type PlainCall } from './fastLane.js';
import { InputRounds, type RoundState, sharedRoundStateCodec } from './inputRounds.js';
import { RESOURCE_NOT_FOUND } from './legacyCodes.js';

export const SERVER_INFO = { name: PACKAGE_NAME, version: PACKAGE_VERSION } as const;

const READ: Capability = 'jumperless.read';

export type Extra = ServerContext;

/** Who sent a request, as the caller function reads it (the session, the HTTP gate's decision). */
export type CallerContext = Pick<Extra, 'sessionId' | 'http'>;

/** What the tools/call handler reads of a request's context: the SDK's, or the fast lane's. */
export type CallScope = CallerContext & {
  mcpReq: Pick<
    Extra['mcpReq'],
    '_meta' | 'envelope' | 'signal' | 'notify' | 'send' | 'requestState' | 'inputResponses'
  >;
};

type CallParams = Pick<CallToolRequest, 'params'>;

export interface ServerOptions {
  /** The core: tools, resources, prompts and what they tell. */
  dispatcher: Dispatcher;
  /** Who this connection is (stdio: the operator; HTTP: the session's caller). */
  caller: (extra: CallerContext) => Caller;
  instructions?: string;
  /**
   * What `tools/list` shows (federation/listModes.ts); undefined lets the client choose: `discovery`
   * when it declares `x-deferred-tools`, else `full`.
   */
  listMode?: ListMode;
  /**
   * A server for 2026-07-28 HTTP requests, one at a time: it follows no board or catalog changes (the HTTP
   * layer publishes those once, for every `subscriptions/listen` stream: followChanges).
   */
  perRequest?: boolean;
}

export interface McpServerHandle {
  server: Server;
  /**
   * Serves a plain `tools/call` of an established 2025 connection itself (fastLane.ts), answering
   * on the server's transport, or by `send` when given; undefined, having done nothing, when the
   * SDK must serve it.
   */
  fast(
    call: PlainCall,
    who: CallerContext,
    send?: (message: JSONRPCMessage) => Promise<void>,
  ): Promise<void> | undefined;
  /** Requests being handled now. */
  readonly inFlight: number;
  /** Resolves when no request is being handled. */
  idle(): Promise<void>;
  /** A log message for the client (`notifications/message`), at or above the level it set. */
  log(level: LoggingLevel, data: unknown): void;
  close(): Promise<void>;
}

/**
 * How long a 2026-07-28 client may keep a list (the SDK adds them to list results of that era
 * only). Lists depend on who asks, so only that client may keep them; a bench's catalog changes
 * and `subscriptions/listen` says when, so a minute is safe. Board state is never cached.
 */
const CACHE_HINTS: Record<string, CacheHint> = {
  'tools/list': { ttlMs: 60_000, cacheScope: 'private' },
  'prompts/list': { ttlMs: 60_000, cacheScope: 'private' },
  'resources/list': { ttlMs: 60_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 60_000, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
  'server/discover': { ttlMs: 60_000, cacheScope: 'private' },
};

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

export const INSTRUCTIONS =
  'Tools for a Jumperless V5 breadboard: wire rows and rails through its crossbar, set supplies, measure volts and amps, drive GPIO, PWM and waveforms, talk through the OLED and LEDs. ' +
  'Read the board state (resource jumperless://board/state) or the read tools before changing anything; mutating tools report what actually happened, so trust their results over assumptions. Voltages are in volts, currents in amps.';

export function createMcpServer(options: ServerOptions): McpServerHandle {
  const { dispatcher } = options;
  const codec = sharedRoundStateCodec();
  const server = new Server(SERVER_INFO, {
    capabilities: {
      // A bench's catalog changes as children come and go (then we send tools/list_changed).
      tools: { listChanged: true },
      resources: { subscribe: true },
      prompts: {},
      logging: {},
      completions: {},
    },
    instructions: options.instructions ?? INSTRUCTIONS,
    cacheHints: CACHE_HINTS,
    requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
  });
  const modern = () => isModernProtocol(server.getNegotiatedProtocolVersion());
  // 2026-07-28: each request says what its client can do (there is no initialize to remember).
  const clientCapabilities = (extra: CallScope): ClientCapabilities | undefined =>
    modern()
      ? ((extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
          | ClientCapabilities
          | undefined)
      : server.getClientCapabilities();
  let inFlight = 0;
  let waiters: Array<() => void> = [];
  const track =
    <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      inFlight++;
      try {
        return await handler(...args);
      } finally {
        inFlight--;
        if (inFlight === 0) {
          for (const wake of waiters) wake();
          waiters = [];
        }
      }
    };

  let level: LoggingLevel = 'info';
  // Resources and prompts show the board: a caller needs the read capability for them, as for tools.
  const mayRead = (extra: Extra) => options.caller(extra).granted.has(READ);
  const readable = <T>(extra: Extra, items: readonly T[]): readonly T[] => (mayRead(extra) ? items : []);
  const mustRead = (extra: Extra, what: string) => {
    if (mayRead(extra)) return;
    const granted = [...options.caller(extra).granted].sort();
    throw new RpcError(JSONRPC.internalError, `Capability denied: ${what} needs ${READ}`, {
      code: DISPATCH.capabilityDenied,
      retryable: false,
      required: [READ],
      granted,
      missing: [READ],
    });
  };
  const subscriptions = new Set<string>();

  server.setRequestHandler(
    'tools/list',
    // Our descriptors are JSON already; the SDK types every JSON value of a tool its own way.
    track(
      async (_request, extra) =>
        listTools(dispatcher, {
          caller: options.caller(extra),
          ...(options.listMode ? { mode: options.listMode } : {}),
          clientExperimental: clientCapabilities(extra)?.experimental,
        }) as unknown as ListToolsResult,
    ),
  );

  // One tools/call handler for both lanes: the SDK's (every request it serves) and the fast lane
  // (fastLane.ts: a plain call on an established 2025 connection), which hands it the same parts.
  const callTool = track(async (request: CallParams, extra: CallScope) => {
    const token = extra.mcpReq._meta?.progressToken ?? request.params._meta?.progressToken;
    refuseOversizedToken(token);
    const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined;
    const asks = clientCapabilities(extra);
    // 2026-07-28: no server requests; a question becomes the call's `input_required` result.
    const rounds = modern()
      ? new InputRounds(codec, extra.mcpReq.requestState<RoundState>(), extra.mcpReq.inputResponses)
      : undefined;
    const threshold = modern() ? (envelope?.[LOG_LEVEL_META_KEY] as LoggingLevel | undefined) : level;
    const elicit = async (params: Record<string, unknown>) =>
      rounds
        ? rounds.ask(inputRequired.elicit(params as unknown as ElicitInputParams))
        : ((await extra.mcpReq.send(
            { method: 'elicitation/create', params },
            { signal: extra.mcpReq.signal },
          )) as Record<string, unknown>);
    const client: ClientBridge = {
      log: async (logLevel, data) => {
        // 2026-07-28: a request without a level asks for no log messages.
        if (threshold === undefined || LEVELS.indexOf(logLevel) < LEVELS.indexOf(threshold)) return;
        await extra.mcpReq.notify({ method: 'notifications/message', params: { level: logLevel, data } });
      },
      elicit,
      sample: async (params) =>
        rounds
          ? rounds.ask(inputRequired.createMessage(params as never))
          : ((await extra.mcpReq.send(
              { method: 'sampling/createMessage', params },
              { signal: extra.mcpReq.signal },
            )) as Record<string, unknown>),
    };
    const call = (signal: AbortSignal, until?: Promise<unknown>) =>
      runTool(dispatcher, {
        name: request.params.name,
        arguments: request.params.arguments,
        caller: options.caller(extra),
        signal,
        ...(until ? { until } : {}),
        client,
        ...(token === undefined
          ? {}
          : {
              onProgress: (progress: number, total?: number, message?: string) => {
                void extra.mcpReq
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
        ...(asks?.elicitation !== undefined
          ? {
              confirm: async (message: string) => {
                const answer = await elicit({
                  message,
                  requestedSchema: { type: 'object', properties: {} },
                });
                return answer.action as 'accept' | 'decline' | 'cancel';
              },
            }
          : {}),
      });
    return rounds ? rounds.run(extra.mcpReq.signal, call) : call(extra.mcpReq.signal);
  });
  server.setRequestHandler('tools/call', (request, extra) => callTool(request, extra));

  server.setRequestHandler(
    'resources/list',
    track(async (_request, extra) => ({
      resources: readable(extra, dispatcher.resources()).map(
        ({ uri, name, title, description, mimeType }) => ({
          uri,
          name,
          ...(title ? { title } : {}),
          description,
          mimeType,
        }),
      ),
    })),
  );

  server.setRequestHandler(
    'resources/templates/list',
    track(async (_request, extra) => ({
      resourceTemplates: readable(extra, dispatcher.templates()).map(
        ({ uriTemplate, name, title, description, mimeType }) => ({
          uriTemplate,
          name,
          ...(title ? { title } : {}),
          description,
          mimeType,
        }),
      ),
    })),
  );

  server.setRequestHandler(
    'resources/read',
    track(async (request, extra) => {
      const { uri } = request.params;
      mustRead(extra, uri);
      const context = { signal: extra.mcpReq.signal, caller: options.caller(extra).id };
      try {
        const resource = dispatcher.resources().find((r) => r.uri === uri);
        if (resource)
          return { contents: [{ uri, mimeType: resource.mimeType, ...(await resource.read(context)) }] };
        for (const template of dispatcher.templates()) {
          const params = matchTemplate(template.uriTemplate, uri);
          if (params) {
            return {
              contents: [
                { uri, mimeType: template.mimeType, ...(await template.read(uri, params, context)) },
              ],
            };
          }
        }
      } catch (error) {
        const failure = failureOf(error, uri);
        if (failure instanceof RpcError) throw failure;
        throw new RpcError(JSONRPC.internalError, failure.message, {
          code: failure.code,
          retryable: failure.retryable,
        });
      }
      throw new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    }),
  );

  server.setRequestHandler(
    'resources/subscribe',
    track(async (request, extra) => {
      mustRead(extra, request.params.uri);
      subscriptions.add(request.params.uri);
      return {};
    }),
  );
  server.setRequestHandler(
    'resources/unsubscribe',
    track(async (request) => {
      subscriptions.delete(request.params.uri);
      return {};
    }),
  );

  server.setRequestHandler(
    'prompts/list',
    track(async (_request, extra) => ({
      prompts: readable(extra, dispatcher.prompts()).map(({ name, title, description, arguments: args }) => ({
        name,
        ...(title ? { title } : {}),
        description,
        ...(args ? { arguments: args.map((a) => ({ ...a })) } : {}),
      })),
    })),
  );

  server.setRequestHandler(
    'prompts/get',
    track(async (request, extra) => {
      mustRead(extra, request.params.name);
      const prompt = dispatcher.prompts().find((p) => p.name === request.params.name);
      if (!prompt) throw new RpcError(JSONRPC.invalidParams, `Unknown prompt: ${request.params.name}`);
      const args = request.params.arguments ?? {};
      const missing = (prompt.arguments ?? []).filter((a) => a.required && !args[a.name]).map((a) => a.name);
      if (missing.length > 0) {
        throw new RpcError(JSONRPC.invalidParams, `Prompt ${prompt.name} needs ${missing.join(', ')}`, {
          missing,
        });
      }
      return prompt.get(args);
    }),
  );

  server.setRequestHandler(
    'completion/complete',
    track(async (request, extra) => {
      const { ref, argument } = request.params;
      const prompt =
        ref.type === 'ref/prompt'
          ? readable(extra, dispatcher.prompts()).find((p) => p.name === ref.name)
          : undefined;
      const values = prompt?.complete?.(argument.name, argument.value) ?? [];
      return { completion: { values: values.slice(0, 100), total: values.length, hasMore: false } };
    }),
  );

  // Our own level, so tool logs sent on the request's stream (not the SDK's per-session filter) obey it.
  server.setRequestHandler(
    'logging/setLevel',
    track(async (request) => {
      level = request.params.level;
      return {};
    }),
  );

  // A connection's server tells its client what changed: a legacy client hears of the URIs it
  // subscribed to; on a 2026-07-28 stdio connection the SDK's listen router passes each change to
  // the streams that asked for it. A server for one HTTP request follows nothing.
  const stopFollowing = options.perRequest
    ? () => {}
    : followChanges(dispatcher, {
        resourceUpdated: (uri) => {
          if (modern() || subscriptions.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {});
        },
        toolsChanged: () => void server.sendToolListChanged().catch(() => {}),
        // What the boards' links do (unplugged, back, a reset), as log messages (2025 era only).
        log: (logLevel, text) => handle.log(logLevel, text),
      });
  server.onclose = stopFollowing;

  // The fast lane's request context: what the call sends meanwhile is tagged with its id, as the
  // SDK tags it (a session's transport routes it to the call's reply: http/fastReplies.ts).
  const fastScope = (who: CallerContext, call: PlainCall, signal: AbortSignal): CallScope => ({
    ...who,
    mcpReq: {
      _meta: call.params._meta,
      signal,
      requestState: () => undefined,
      notify: (notification) => server.notification(notification, { relatedRequestId: call.id }),
      send: ((
        request: { method: 'elicitation/create'; params: ElicitInputParams },
        sendOptions?: RequestOptions,
      ) =>
        server.request(request, {
          ...sendOptions,
          relatedRequestId: call.id,
        })) as CallScope['mcpReq']['send'],
    },
  });

  const handle: McpServerHandle = {
    server,
    fast: (call, who, send) =>
      answerPlainCall(
        server,
        call,
        (request, signal) => callTool(request, fastScope(who, call, signal)),
        send,
      ),
    get inFlight() {
      return inFlight;
    },
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    log(logLevel, data) {
      if (modern() || LEVELS.indexOf(logLevel) < LEVELS.indexOf(level)) return;
      void server.sendLoggingMessage({ level: logLevel, logger: 'jumperless', data }).catch(() => {});
    },
    async close() {
      stopFollowing();
      await server.close();
    },
  };
  return handle;
}

/** Where a change goes: to one connection's client, or to every `subscriptions/listen` stream. */
export interface ChangeSink {
  resourceUpdated(uri: string): void;
  toolsChanged(): void;
  log?(level: LoggingLevel, text: string): void;
}

/** Follows the board (every live resource changes with it), the catalog and the links' events. */
export function followChanges(dispatcher: Dispatcher, sink: ChangeSink): () => void {
  const unfollowBoard = dispatcher.onBoardChange(() => {
    for (const resource of dispatcher.resources()) if (resource.live) sink.resourceUpdated(resource.uri);
  });
  const unfollowTools = dispatcher.registry.onChange(() => sink.toolsChanged());
  const unfollowLogs = sink.log ? dispatcher.onLog((level, text) => sink.log?.(level, text)) : () => {};
  return () => {
    unfollowBoard();
    unfollowTools();
    unfollowLogs();
  };
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
