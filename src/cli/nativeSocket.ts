/**
 * The native socket next to stdio or HTTP (`--socket [path]`, DESIGN.md §4 Protocol): ATD frames
 * over a 0600 Unix socket, served by the same dispatcher (registry and runTool) as MCP. A `hello`
 * gets the capabilities it asks for within the operator allow-list.
 */
import type { Dispatcher } from '../core/dispatcher.js';
import { SERVER_INFO } from '../mcp/server.js';
import type { SocketServer } from '../socket/index.js';
import type { Config } from './config.js';

export async function startNativeSocket(
  dispatcher: Dispatcher,
  config: Pick<Config, 'socket' | 'grant'>,
): Promise<SocketServer | undefined> {
  if (config.socket === undefined) return undefined;
  // Loaded only when asked for, like the HTTP stack.
  const { dispatchHandler, startSocketServer } = await import('../socket/index.js');
  const socket = await startSocketServer({
    path: config.socket,
    handler: dispatchHandler(dispatcher),
    allowedCapabilities: config.grant,
    serverVersion: `${SERVER_INFO.name} ${SERVER_INFO.version}`,
  });
  // stderr: in stdio mode stdout is the protocol.
  process.stderr.write(`jumperless-mcp: native socket at ${socket.path}\n`);
  return socket;
}
