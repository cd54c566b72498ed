/**
 * What transports (mcp/, http/) use from the core: they import only this folder (DESIGN.md §2),
 * so the tool contract types they need are re-exported here.
 */

export {
  DEFERRED_TOOLS,
  DESCRIBE_TOOL,
  type ListMode,
  listModeFor,
  nameOnly,
  SEARCH_TOOL,
} from '../federation/index.js';
export {
  type AnyTool,
  CAPABILITIES,
  type Capability,
  defineTool,
  type ToolContext,
  ToolError,
} from '../tools/tool.js';
export type { AuditEvent, AuditOutcome, AuditSink } from './audit.js';
export { fileAuditSink } from './audit.js';
export { boardResources } from './boardResources.js';
export { describeTool, type JsonSchemaObject, jsonSchemaOf, type ToolDefinition } from './describe.js';
export { discoveryTools } from './discovery.js';
export { createDispatcher, type Dispatcher, type DispatcherOptions } from './dispatcher.js';
export { DISPATCH, JSONRPC, RpcError } from './errors.js';
export {
  boardRunner,
  type FederatedRegistry,
  type FederatedRegistryOptions,
  federatedRegistry,
  toolDescriptor,
} from './federated.js';
export { failureOf } from './mapError.js';
export {
  matchTemplate,
  type Resource,
  type ResourceBody,
  type ResourceReadContext,
  type ResourceTemplate,
} from './resources.js';
export {
  type ContentBlock,
  renderFailure,
  renderResult,
  type ToolFailure,
  type ToolResult,
} from './result.js';
export {
  type Caller,
  type CallRequest,
  type ClientBridge,
  type DispatchContext,
  runTool,
} from './runTool.js';
