/**
 * The MCP server factory: the SDK's low-level `Server` with every request handed to dispatch
 * (DESIGN.md §4 "Protocol"), so stdio and HTTP sessions behave the same. One server per client
 * connection; the dispatcher (registry, board, audit) is shared.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Capability, type ClientBridge, DISPATCH, JSONRPC, RpcError } from '../contract/index.js';
import {
  type Caller,
  type Dispatcher,
  failureOf,
  type ListMode,
  listTools,
  matchTemplate,
  runTool,
} from '../dispatch/index.js';

export const SERVER_INFO = { name: 'jumperless-mcp', version: '0.1.0' } as const;

const READ: Capability = 'jumperless.read';

/** Resource not found (MCP 2025-11-25 resources). */
const RESOURCE_NOT_FOUND = -32002;

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ServerOptions {
  /** The core: tools, resources, prompts and what they tell. */
  dispatcher: Dispatcher;
  /** Who this connection is (stdio: the operator; HTTP: the session's caller). */
  caller: (extra: Extra) => Caller;
  instructions?: string;
  /**
   * What `tools/list` shows (federation/listModes.ts); undefined lets the client choose: `discovery`
   * when it declares `x-deferred-tools`, else `full`.
   */
  listMode?: ListMode;
}

export interface McpServerHandle {
  server: Server;
  /** Requests being handled now. */
  readonly inFlight: number;
  /** Resolves when no request is being handled. */
  idle(): Promise<void>;
  /** A log message for the client (`notifications/message`), at or above the level it set. */
  log(level: LoggingLevel, data: unknown): void;
  close(): Promise<void>;
}

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
  });
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
    ListToolsRequestSchema,
    track(async (_request, extra) =>
      listTools(dispatcher, {
        caller: options.caller(extra),
        ...(options.listMode ? { mode: options.listMode } : {}),
        clientExperimental: server.getClientCapabilities()?.experimental,
      }),
    ),
  );

  server.setRequestHandler(
    CallToolRequestSchema,
    track(async (request, extra) => {
      const token = request.params._meta?.progressToken;
      const elicitation = server.getClientCapabilities()?.elicitation !== undefined;
      const client: ClientBridge = {
        log: async (logLevel, data) => {
          if (LEVELS.indexOf(logLevel) < LEVELS.indexOf(level)) return;
          await extra.sendNotification({
            method: 'notifications/message',
            params: { level: logLevel, data },
          });
        },
        elicit: async (params) =>
          (await extra.sendRequest(
            { method: 'elicitation/create', params: params as never },
            ElicitResultSchema,
          )) as Record<string, unknown>,
        sample: async (params) =>
          (await extra.sendRequest(
            { method: 'sampling/createMessage', params: params as never },
            CreateMessageResultSchema,
          )) as Record<string, unknown>,
      };
      return runTool(dispatcher, {
        name: request.params.name,
        arguments: request.params.arguments,
        caller: options.caller(extra),
        signal: extra.signal,
        client,
        ...(token === undefined
          ? {}
          : {
              onProgress: (progress: number, total?: number, message?: string) => {
                void extra
                  .sendNotification({
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
        ...(elicitation
          ? {
              confirm: async (message: string) => {
                const answer = await extra.sendRequest(
                  {
                    method: 'elicitation/create',
                    params: { message, requestedSchema: { type: 'object', properties: {} } },
                  },
                  ElicitResultSchema,
                  { signal: extra.signal },
                );
                return answer.action;
              },
            }
          : {}),
      });
    }),
  );

  server.setRequestHandler(
    ListResourcesRequestSchema,
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
    ListResourceTemplatesRequestSchema,
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
    ReadResourceRequestSchema,
    track(async (request, extra) => {
      const { uri } = request.params;
      mustRead(extra, uri);
      const context = { signal: extra.signal, caller: options.caller(extra).id };
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
    SubscribeRequestSchema,
    track(async (request, extra) => {
      mustRead(extra, request.params.uri);
      subscriptions.add(request.params.uri);
      return {};
    }),
  );
  server.setRequestHandler(
    UnsubscribeRequestSchema,
    track(async (request) => {
      subscriptions.delete(request.params.uri);
      return {};
    }),
  );

  server.setRequestHandler(
    ListPromptsRequestSchema,
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
    GetPromptRequestSchema,
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
    CompleteRequestSchema,
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
    SetLevelRequestSchema,
    track(async (request) => {
      level = request.params.level;
      return {};
    }),
  );

  const unsubscribe = dispatcher.onBoardChange(() => {
    const live = new Set(
      dispatcher
        .resources()
        .filter((r) => r.live)
        .map((r) => r.uri),
    );
    for (const uri of subscriptions) {
      if (live.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {});
    }
  });
  const unfollowTools = dispatcher.registry.onChange(() => {
    void server.sendToolListChanged().catch(() => {});
  });
  // What the boards' links do (unplugged, back, a reset), as log messages.
  const unfollowLogs = dispatcher.onLog((logLevel, text) => handle.log(logLevel, text));
  const stopFollowing = () => {
    unsubscribe();
    unfollowTools();
    unfollowLogs();
  };
  server.onclose = stopFollowing;

  const handle: McpServerHandle = {
    server,
    get inFlight() {
      return inFlight;
    },
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    log(logLevel, data) {
      if (LEVELS.indexOf(logLevel) < LEVELS.indexOf(level)) return;
      void server.sendLoggingMessage({ level: logLevel, logger: 'jumperless', data }).catch(() => {});
    },
    async close() {
      stopFollowing();
      await server.close();
    },
  };
  return handle;
}
