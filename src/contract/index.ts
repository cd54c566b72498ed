/** The contracts every layer shares (issue 11 item 4): capabilities, results, errors, schemas, tools. */
export { CAPABILITIES, type Capability, capabilitiesIn, isCapability } from './capabilities.js';
export type {
  LogLevel,
  Prompt,
  PromptArgument,
  PromptContent,
  PromptMessage,
  Resource,
  ResourceBody,
  ResourceReadContext,
  ResourceTemplate,
} from './catalog.js';
export { userText } from './catalog.js';
export {
  type ContentBlock,
  renderFailure,
  renderResult,
  type ToolFailure,
  type ToolResult,
} from './content.js';
export { isModernProtocol, isRecord, MODERN_PROTOCOL } from './json.js';
export type { JsonSchemaObject } from './jsonSchema.js';
export { DISPATCH, JSONRPC, RpcError } from './rpc.js';
export {
  annotationsFor,
  type CallContext,
  type ClientBridge,
  HIDDEN_TOOLS_META,
  kindOf,
  listedAnnotations,
  TOOL_CAPABILITY_META,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolDescriptor,
  type ToolKind,
} from './tool.js';
