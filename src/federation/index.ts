/** What dispatch and the CLI use from federation (DESIGN.md §2). */
export { type AggregatorOptions, FederationAggregator } from './aggregator.js';
export {
  type ChildConfig,
  type FederationConfig,
  loadFederationConfig,
  parseFederationConfig,
} from './config.js';
export { FederationError, unavailable } from './errors.js';
export { type JumperlessOptions, JumperlessSubsystem, type OpenedBoard } from './jumperless.js';
export {
  DEFERRED_TOOLS,
  isListMode,
  LIST_MODES,
  type ListMode,
  listModeFor,
  nameOnly,
  parseListMode,
} from './listModes.js';
export { type LocalOptions, LocalSubsystem } from './local.js';
export {
  httpTransport,
  McpChild,
  type McpChildOptions,
  type StdioChildSpec,
  stdioTransport,
} from './mcpChild.js';
export {
  DESCRIBE_TOOL,
  type DiscoveryCatalog,
  META_TOOL_NAMES,
  metaTools,
  SEARCH_TOOL,
} from './metaTools.js';
export { keywordSearch, type SearchEngine, type SearchEntry, type ToolHit } from './search.js';
export { type FrameChannel, SocketChild, type SocketChildOptions } from './socketChild.js';
export {
  type ContentBlock,
  type HealthStatus,
  type InvokeContext,
  type JsonSchemaObject,
  type Subsystem,
  type SubsystemEvent,
  type SubsystemHealth,
  type SubsystemResult,
  type ToolDescriptor,
  worstStatus,
} from './subsystem.js';
export {
  checkSubsystemName,
  dotFormat,
  MAX_WIRE_NAME,
  separatorFormat,
  subsystemNameProblem,
  underscoreFormat,
  type WireFormatSpec,
  type WireNameTranslator,
  WireTable,
  wireFormat,
} from './wireNames.js';
