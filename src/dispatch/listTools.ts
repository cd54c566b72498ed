/**
 * The answer to `tools/list`, built once for every transport (MCP over either SDK, the native
 * socket): the tools this caller may call (their capability granted), shown in the list mode
 * (federation/listModes.ts), plus, for a gateway in front of us, the hidden tools it may call.
 */
import { type Capability, HIDDEN_TOOLS_META, type ToolDefinition } from '../contract/index.js';
import { DESCRIBE_TOOL, type ListMode, listModeFor, nameOnly, SEARCH_TOOL } from '../federation/index.js';
import type { Dispatcher } from './dispatcher.js';
import type { ToolEntry } from './registry.js';

export interface ListToolsOptions {
  caller: { readonly granted: ReadonlySet<Capability> };
  /** The operator's list mode; undefined lets the client choose (`x-deferred-tools`). */
  mode?: ListMode;
  /** The client's `experimental` capabilities, read when the operator chose no mode. */
  clientExperimental?: unknown;
}

/** A tool as a list shows it: `names` mode leaves out all but the name, one line and an empty schema. */
export type ListedTool = Pick<ToolDefinition, 'name' | 'description' | 'inputSchema'> &
  Partial<ToolDefinition>;

export interface ToolList {
  tools: ListedTool[];
  _meta?: Record<string, unknown>;
}

/** The listed tools this caller may call, in catalog order (the socket lists these too). */
export function callableTools(dispatcher: Dispatcher, granted: ReadonlySet<Capability>): ToolEntry[] {
  return dispatcher.registry.listed().filter((entry) => granted.has(entry.capability));
}

/** Hidden tools of the root this caller may call: a gateway offers them by name, no model sees them. */
export function hiddenTools(dispatcher: Dispatcher, granted: ReadonlySet<Capability>): ToolEntry[] {
  return dispatcher.registry
    .all()
    .filter((entry) => entry.hidden && !entry.own && granted.has(entry.capability));
}

export function listTools(dispatcher: Dispatcher, options: ListToolsOptions): ToolList {
  const { granted } = options.caller;
  const mode = listModeFor(options.mode, options.clientExperimental);
  const callable = callableTools(dispatcher, granted);
  if (mode === 'full') {
    const hidden = hiddenTools(dispatcher, granted).map((entry) => ({
      ...entry.definition,
      capability: entry.capability,
    }));
    return {
      tools: callable.map((entry) => entry.definition),
      ...(hidden.length > 0 ? { _meta: { [HIDDEN_TOOLS_META]: hidden } } : {}),
    };
  }
  const meta = [SEARCH_TOOL, DESCRIBE_TOOL].flatMap((name) => {
    const entry = dispatcher.registry.get(name);
    return entry && granted.has(entry.capability) ? [entry.definition] : [];
  });
  if (mode === 'discovery') return { tools: meta };
  return { tools: [...callable.map((entry) => nameOnly(entry.definition)), ...meta] };
}
