/** The native socket transport, as cli/ uses it (DESIGN.md §2). */
export { dispatchHandler } from './dispatchHandler.js';
export {
  dryRunPreview,
  type RunToolOutcome,
  type SocketCallContext,
  type SocketToolHandler,
} from './handler.js';
export { parseRequest, type SocketRequest, type SocketResponse, type SocketToolSummary } from './messages.js';
export { type SocketServer, type SocketServerOptions, startSocketServer } from './server.js';
