/**
 * What transports (mcp/, http/, socket/) use from the core: they import only this folder and the
 * shared contracts (DESIGN.md §2).
 */

export {
  DEFERRED_TOOLS,
  DESCRIBE_TOOL,
  type ListMode,
  listModeFor,
  nameOnly,
  SEARCH_TOOL,
} from '../federation/index.js';
export { type AnyTool, defineTool, type HandlerContext, ToolError } from '../tools/tool.js';
export type { AuditEvent, AuditOutcome, AuditSink } from './audit.js';
export { fileAuditSink } from './audit.js';
export {
  createDispatcher,
  type Dispatcher,
  type DispatcherOptions,
  type ServerExtras,
} from './dispatcher.js';
export {
  callableTools,
  hiddenTools,
  type ListedTool,
  type ListToolsOptions,
  listTools,
  type ToolList,
} from './listTools.js';
export { failureOf } from './mapError.js';
export type { Registry, ToolEntry } from './registry.js';
export { matchTemplate } from './resources.js';
export { type Caller, type CallRequest, runTool } from './runTool.js';
