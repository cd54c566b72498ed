/**
 * What dispatch and the CLI use from federation (DESIGN.md §2). A bench's config file and its
 * remote children (config.ts, mcpChild.ts with the SDK client, socketChild.ts) are imported from
 * their files, by the CLI only when it serves a bench, so a one-board server never loads them.
 */
export { type AggregatorOptions, FederationAggregator } from './aggregator.js';
export type { ChildConfig, FederationConfig } from './config.js';
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
export type { McpChildOptions, StdioChildSpec } from './mcpChild.js';
export {
  DESCRIBE_TOOL,
  type DiscoveryCatalog,
  META_TOOL_NAMES,
  metaTools,
  SEARCH_TOOL,
} from './metaTools.js';
export { keywordSearch, type SearchEngine, type SearchEntry, type ToolHit } from './search.js';
export type { FrameChannel, SocketChildOptions } from './socketChild.js';
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
