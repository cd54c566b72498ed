/**
 * The MCP server factory: the SDK's low-level `Server`, each MCP method one core call (DESIGN.md
 * §4 "Protocol"), so every era and transport behaves the same. One server per stdio connection,
 * per 2025 HTTP session, or per 2026-07-28 HTTP request; the dispatcher (registry, board, audit)
 * is shared. The era is the server's from its making (the stdio entry and the HTTP route decide
 * it): the eras differ in how a question reaches the client (toolCall.ts), where the log level and
 * the client's capabilities come from (`logging/setLevel` and `initialize`, or each request's
 * `_meta`), how changes are told (notifications to subscribers, or `subscriptions/listen`, which
 * the SDK's entries serve) and cache hints on lists (2026-07-28 only).
 */
import {
  type AuthInfo,
  type CacheHint,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type ListToolsResult,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type Dispatcher, followChanges } from '../core/dispatcher.js';
import type { Era } from '../core/era.js';
import type { ListMode } from '../core/listModes.js';
import { listTools, rendersApps } from '../core/listTools.js';
import {
  complete,
  getPrompt,
  listPrompts,
  listResources,
  listTemplates,
  mustRead,
  readResource,
} from '../core/offers.js';
import type { Caller } from '../core/runTool.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../core/version.js';
import { CONFIRM_ANSWER_TOOL, callConfirmAnswer, confirmAnswerDefinition } from './confirmAnswer.js';
import { sharedRoundStateCodec } from './inputRounds.js';
import { callTool, heard } from './toolCall.js';

export const SERVER_INFO = { name: PACKAGE_NAME, version: PACKAGE_VERSION } as const;

/**
 * Who calls, from one MCP request: its session and what the HTTP gate decided (both absent on
 * stdio, where the client that launched us is the operator).
 */
export type CallerOf = (sessionId: string | undefined, auth?: AuthInfo) => Caller;

export interface ServerOptions {
  /** The core: tools, resources, prompts and what they tell. */
  dispatcher: Dispatcher;
  /** The era of the connection or request this server answers. */
  era: Era;
  /** Who this connection is (stdio: the operator; HTTP: the session's caller). */
  caller: CallerOf;
  instructions?: string;
  /**
   * What `tools/list` shows (core/listModes.ts); undefined lets the client choose: `discovery`
   * when it declares `x-deferred-tools`, else `full`.
   */
  listMode?: ListMode;
  /**
   * A server for one 2026-07-28 HTTP request: it follows no board or catalog changes (the HTTP
   * layer publishes those once, for every `subscriptions/listen` stream).
   */
  perRequest?: boolean;
}

export interface McpServerHandle {
  server: Server;
  readonly era: Era;
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

export const INSTRUCTIONS =
  'Tools for a Jumperless V5 breadboard: wire rows and rails through its crossbar, set supplies, measure volts and amps, drive GPIO, PWM and waveforms, talk through the OLED and LEDs. ' +
  'Read the board state (resource jumperless://board/state) or the read tools before changing anything; mutating tools report what actually happened, so trust their results over assumptions. Voltages are in volts, currents in amps.';

export function createMcpServer(options: ServerOptions): McpServerHandle {
  const { dispatcher, era } = options;
  const modern = era === 'modern';
  const rounds = modern ? sharedRoundStateCodec() : undefined;
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
    requestState: { verify: (state, ctx) => sharedRoundStateCodec().verify(state, ctx) },
  });
  const work = requestsInFlight();
  const track = work.track;
  // 2025: logging/setLevel sets it for the connection; 2026-07-28: each request's `_meta` says it.
  let level: LoggingLevel = 'info';
  const subscriptions = new Set<string>();
  const caller = (extra: ServerContext) => options.caller(extra.sessionId, extra.http?.authInfo);
  const envelope = (extra: ServerContext) => extra.mcpReq.envelope as Record<string, unknown> | undefined;
  const clientOf = (extra: ServerContext): ClientCapabilities | undefined =>
    modern
      ? (envelope(extra)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
      : server.getClientCapabilities();

  server.setRequestHandler(
    'tools/list',
    // Our descriptors are JSON already; the SDK types every JSON value of a tool its own way.
    track(async (_request, extra) => {
      const list = listTools(dispatcher, {
        caller: caller(extra),
        ...(options.listMode ? { mode: options.listMode } : {}),
        clientExperimental: clientOf(extra)?.experimental,
        clientExtensions: clientOf(extra)?.extensions,
      });
      // The board app's form (confirmAnswer.ts): only a host that renders apps can use it.
      const tools = rendersApps(clientOf(extra)?.extensions)
        ? [...list.tools, confirmAnswerDefinition]
        : list.tools;
      return { ...list, tools } as unknown as ListToolsResult;
    }),
  );
  server.setRequestHandler(
    'tools/call',
    track(async (request, extra) =>
      request.params.name === CONFIRM_ANSWER_TOOL && rendersApps(clientOf(extra)?.extensions)
        ? (callConfirmAnswer(dispatcher, caller(extra), request.params.arguments) as never)
        : (callTool(request, extra, {
            dispatcher,
            caller: caller(extra),
            rounds,
            client: clientOf(extra),
            level: modern ? (envelope(extra)?.[LOG_LEVEL_META_KEY] as LoggingLevel | undefined) : level,
          }) as never),
    ),
  );
  server.setRequestHandler(
    'resources/list',
    track(async (_request, extra) => ({ resources: listResources(dispatcher, caller(extra)) })),
  );
  server.setRequestHandler(
    'resources/templates/list',
    track(async (_request, extra) => ({ resourceTemplates: listTemplates(dispatcher, caller(extra)) })),
  );
  server.setRequestHandler(
    'resources/read',
    track(async (request, extra) => ({
      contents: await readResource(dispatcher, caller(extra), request.params.uri, extra.mcpReq.signal),
    })),
  );
  server.setRequestHandler(
    'resources/subscribe',
    track(async (request, extra) => {
      mustRead(caller(extra), request.params.uri);
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
    track(async (_request, extra) => ({ prompts: listPrompts(dispatcher, caller(extra)) })),
  );
  server.setRequestHandler(
    'prompts/get',
    track(async (request, extra) =>
      getPrompt(dispatcher, caller(extra), request.params.name, request.params.arguments ?? {}),
    ),
  );
  server.setRequestHandler(
    'completion/complete',
    track(async (request, extra) => ({
      completion: complete(dispatcher, caller(extra), request.params.ref, request.params.argument),
    })),
  );
  // Our own level, so tool logs sent on the request's stream (not the SDK's per-session filter) obey it.
  server.setRequestHandler(
    'logging/setLevel',
    track(async (request) => {
      level = request.params.level;
      return {};
    }),
  );

  const log = (logLevel: LoggingLevel, data: unknown) => {
    if (modern || !heard(logLevel, level)) return;
    void server.sendLoggingMessage({ level: logLevel, logger: 'jumperless', data }).catch(() => {});
  };
  // A connection's server tells its client what changed: a legacy client hears of the URIs it
  // subscribed to; on a 2026-07-28 stdio connection the SDK's listen router passes each change to
  // the streams that asked for it. A server for one HTTP request follows nothing.
  const stopFollowing = options.perRequest
    ? () => {}
    : followChanges(dispatcher, {
        resourceUpdated: (uri) => {
          if (modern || subscriptions.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {});
        },
        toolsChanged: () => void server.sendToolListChanged().catch(() => {}),
        // What the boards' links do (unplugged, back, a reset), as log messages (2025 era only).
        log,
      });
  server.onclose = stopFollowing;

  return {
    server,
    era,
    get inFlight() {
      return work.count;
    },
    idle: work.idle,
    log,
    async close() {
      stopFollowing();
      await server.close();
    },
  };
}

/** Counts the requests being handled, and wakes who waits for none. */
function requestsInFlight() {
  let count = 0;
  let waiters: Array<() => void> = [];
  return {
    get count() {
      return count;
    },
    track:
      <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        count++;
        try {
          return await handler(...args);
        } finally {
          count--;
          if (count === 0) {
            for (const wake of waiters) wake();
            waiters = [];
          }
        }
      },
    idle: (): Promise<void> =>
      count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)),
  };
}
