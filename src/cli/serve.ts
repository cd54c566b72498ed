/**
 * Runs the server a Config describes on stdio or HTTP (plus the native socket when asked): the
 * app (src/cli/app.ts) is built once and shared by every connection.
 */

import { capabilitiesIn } from '../core/capabilities.js';
import type { ServerExtras } from '../core/dispatcher.js';
import type { RunningHttpServer } from '../http/app.js';
import { serveStdio } from '../mcp/stdio.js';
import type { SocketServer } from '../socket/index.js';
import { type App, buildApp } from './app.js';
import { type Config, isLoopback } from './config.js';
import { startNativeSocket } from './nativeSocket.js';

/** stdio: the client that launched us is the operator (DESIGN.md §4 "Trust"), within the allow-list. */
export async function runStdio(config: Config, extras?: ServerExtras): Promise<void> {
  const app = await buildApp(config, extras ? { extras } : {});
  const socket = await startNativeSocket(app.dispatcher, config).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  const granted = capabilitiesIn(config.grant);
  await serveStdio((era) => app.createServer(() => ({ id: 'stdio', granted }), { era }), {
    shutdown: async () => {
      await socket?.close();
      await app.close();
    },
  });
  // Started by hand, a stdio server otherwise says nothing: say once what it serves and waits for.
  const what = config.federation ? `the bench in ${config.federation}` : `the board ${config.device}`;
  process.stderr.write(`jumperless-mcp: serving ${what} over stdio; waiting for an MCP client on stdin\n`);
}

/**
 * `anyPortIfBusy`: when the port is taken, take a free one rather than fail (for `start`);
 * `extras`: what the server adds beside its root's tools.
 */
export async function runHttp(
  config: Config,
  options: { anyPortIfBusy?: boolean; extras?: ServerExtras } = {},
): Promise<{ app: App; http: RunningHttpServer; socket: SocketServer | undefined }> {
  const where = config.http ?? { host: '127.0.0.1', port: 0 };
  // Refuses a bind off loopback without tokens, before anything is opened (DESIGN.md §4 "Trust").
  const { httpAccess } = await import('./access.js');
  const access = await httpAccess(config, where.host);
  const app = await buildApp(config, options.extras ? { extras: options.extras } : {});
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
      ...(app.outsideLease ? { outsideLease: app.outsideLease } : {}),
      dispatcher: app.dispatcher,
      createServer: (_, era) => app.createServer(httpCaller, { era, perRequest: era === 'modern' }),
    });
  const http = await listen(where.port).catch(async (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (options.anyPortIfBusy && code === 'EADDRINUSE') return listen(0);
    await app.close();
    if (code === 'EADDRINUSE') {
      throw new Error(
        `${where.host}:${where.port} is already in use (another jumperless-mcp?): stop it, or choose another port`,
      );
    }
    if (code === 'EACCES')
      throw new Error(
        `${where.host}:${where.port}: not allowed to listen there (ports below 1024 need root)`,
      );
    if (code === 'EADDRNOTAVAIL') throw new Error(`${where.host}: not an address of this machine`);
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
