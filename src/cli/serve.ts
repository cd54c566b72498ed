/**
 * Builds the server from a Config and runs it on stdio or HTTP: the board, the dispatcher over the
 * catalog (plus fixtures when asked), resources and prompts, all shared by every connection.
 */

import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { SessionEvent } from '../device/session.js';
import {
  boardResources,
  CAPABILITIES,
  type Caller,
  type Capability,
  createDispatcher,
  type Dispatcher,
  discoveryTools,
  fileAuditSink,
} from '../dispatch/index.js';
import type { RunningHttpServer } from '../http/app.js';
import {
  conformancePrompts,
  conformanceResources,
  conformanceTemplates,
  conformanceTools,
} from '../mcp/conformance.js';
import { prompts } from '../mcp/prompts.js';
import { createMcpServer, type McpServerHandle } from '../mcp/server.js';
import { serveStdio } from '../mcp/stdio.js';
import type { ShareEvent } from '../share/shared.js';
import type { SocketServer } from '../socket/index.js';
import { catalog } from '../tools/index.js';
import { safetyPolicy } from '../tools/safety.js';
import { httpAccess } from './access.js';
import { openServedBoard, type ServedBoard } from './board.js';
import { type Config, isLoopback } from './config.js';
import { buildFederatedApp } from './federation.js';
import { startNativeSocket } from './nativeSocket.js';

/** The default anonymous HTTP set (the CLI takes `--anonymous-caps`); tests use it as is. */
export const ANONYMOUS: ReadonlySet<Capability> = new Set(
  CAPABILITIES.filter((c) => c !== 'jumperless.exec' && c !== 'jumperless.admin'),
);

/** Who calls, from one MCP request: its session and what the HTTP gate decided (absent on stdio). */
export type CallerOf = (sessionId: string | undefined, auth?: AuthInfo) => Caller;

/** What stdio, HTTP and the native socket serve: one MCP server per connection over shared state. */
export interface Served {
  /** The one registry and runTool every transport shares (the socket calls it directly). */
  dispatcher: Dispatcher;
  createServer(caller: CallerOf): McpServerHandle;
  close(): Promise<void>;
}

/** The single-board server. */
export interface App extends Served {
  board: ServedBoard;
}

/** A federation when the config names a file (`--config`), else the single board. */
export function buildServed(config: Config): Promise<Served> {
  return config.federation
    ? buildFederatedApp({ ...config, federation: config.federation })
    : buildApp(config);
}

export async function buildApp(config: Config): Promise<App> {
  const board = await openServedBoard(config.device, `jumperless-mcp ${process.argv[2] ?? 'server'}`);
  const audit = config.audit ? fileAuditSink(config.audit) : undefined;
  const tools = config.conformanceFixtures ? [...catalog, ...conformanceTools] : catalog;
  // tools_search and tools_describe: hidden, listed only in the names and discovery list modes.
  let dispatcher: Dispatcher | undefined;
  const meta = discoveryTools(() => (dispatcher as Dispatcher).registry);
  dispatcher = createDispatcher({
    tools: [...tools, ...meta],
    board: board.client,
    safety: safetyPolicy({ maxVolts: config.maxVolts, minVolts: config.minVolts }),
    ...(audit ? { audit } : {}),
  });
  const resources = [...boardResources(), ...(config.conformanceFixtures ? conformanceResources : [])];
  // Tell connected clients what the link does (unplugged, back, a reset), as log messages.
  const handles = new Set<McpServerHandle>();
  board.onEvent((event) => {
    const message = describeEvent(event);
    if (message) for (const handle of handles) handle.log(message.level, message.text);
  });
  const track = (handle: McpServerHandle) => {
    handles.add(handle);
    const previous = handle.server.onclose;
    handle.server.onclose = () => {
      handles.delete(handle);
      previous?.();
    };
    return handle;
  };
  return {
    board,
    dispatcher,
    createServer: (caller) =>
      track(
        createMcpServer({
          dispatcher,
          resources,
          templates: config.conformanceFixtures ? conformanceTemplates : [],
          prompts: config.conformanceFixtures ? [...prompts, ...conformancePrompts] : prompts,
          caller: (extra) => caller(extra.sessionId, extra.authInfo),
          ...(config.listMode ? { listMode: config.listMode } : {}),
        }),
      ),
    async close() {
      await board.close();
      await audit?.close();
    },
  };
}

/** stdio: the client that launched us is the operator (DESIGN.md §4 "Trust"), within the allow-list. */
export async function runStdio(config: Config): Promise<void> {
  const app = await buildServed(config);
  const socket = await startNativeSocket(app.dispatcher, config).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  const granted = grantedOf(config.grant);
  const handle = app.createServer(() => ({ id: 'stdio', granted }));
  await serveStdio(handle, {
    shutdown: async () => {
      await socket?.close();
      await app.close();
    },
  });
}

/** `anyPortIfBusy`: when the port is taken, take a free one rather than fail (for `start`). */
export async function runHttp(
  config: Config,
  options: { anyPortIfBusy?: boolean } = {},
): Promise<{ app: Served; http: RunningHttpServer; socket: SocketServer | undefined }> {
  const where = config.http ?? { host: '127.0.0.1', port: 0 };
  // Refuses a bind off loopback without tokens, before anything is opened (DESIGN.md §4 "Trust").
  const access = await httpAccess(config, where.host);
  const app = await buildServed(config);
  // Loaded here so stdio servers do not pay for the HTTP stack at start.
  const [{ startHttpServer }, { httpCaller }] = await Promise.all([
    import('../http/app.js'),
    import('../http/caller.js'),
  ]);
  const listen = (port: number) =>
    startHttpServer({
      host: where.host,
      port,
      origins: config.origins,
      // Off loopback the Host is whatever name reaches us; bearers guard it instead.
      loopbackHostOnly: isLoopback(where.host),
      auth: access,
      createServer: () => app.createServer(httpCaller),
    });
  const http = await listen(where.port).catch(async (error: unknown) => {
    if (options.anyPortIfBusy && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') return listen(0);
    await app.close();
    throw error;
  });
  const socket = await startNativeSocket(app.dispatcher, config).catch(async (error: unknown) => {
    await http.close();
    await app.close();
    throw error;
  });
  const stop = async () => {
    setTimeout(() => process.exit(0), 3000).unref(); // a stuck client must not keep us alive
    await socket?.close();
    await http.close();
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  return { app, http, socket };
}

function grantedOf(names: readonly string[]): ReadonlySet<Capability> {
  const known = new Set<string>(CAPABILITIES);
  return new Set(names.filter((name): name is Capability => known.has(name)));
}

function describeEvent(
  event: SessionEvent | ShareEvent,
): { level: 'notice' | 'warning'; text: string } | undefined {
  if (event.type === 'owner') return { level: 'notice', text: `This server holds ${event.device}.` };
  if (event.type === 'client') {
    return {
      level: 'notice',
      text: `The board is held by jumperless-mcp process ${event.ownerPid}; calls go through it.`,
    };
  }
  if (event.type === 'owner_lost') {
    return {
      level: 'warning',
      text: `The process holding the board went away (${event.reason}); taking over.`,
    };
  }
  if (event.type === 'state') {
    if (event.state === 'reconnecting')
      return { level: 'warning', text: 'The board link dropped; reconnecting.' };
    if (event.state === 'ready') return { level: 'notice', text: 'The board is connected.' };
    return undefined;
  }
  if (event.type === 'reset')
    return { level: 'warning', text: `The board reset (${event.kind}); its state may have changed.` };
  return {
    level: 'notice',
    text: `A stuck board job was cleared (${event.step}, ${Math.round(event.ms)} ms).`,
  };
}
