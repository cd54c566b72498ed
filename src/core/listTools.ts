/**
 * The answer to `tools/list`, built once for every transport (MCP over either SDK, the native
 * socket): the tools this caller may call (their capability granted), shown in the list mode
 * (listModes.ts), plus, for a gateway in front of us, the hidden tools it may call.
 */
import type { Capability } from './capabilities.js';
import type { Dispatcher } from './dispatcher.js';
import { DESCRIBE_TOOL, type ListMode, listModeFor, nameOnly, SEARCH_TOOL } from './listModes.js';
import type { ToolEntry } from './registry.js';
import { TOOLSET_TOOL } from './selection.js';
import {
  HIDDEN_TOOLS_META,
  listedAnnotations,
  TOOL_CAPABILITY_META,
  type ToolAnnotations,
  type ToolDefinition,
} from './toolDefinition.js';

export interface ListToolsOptions {
  caller: { readonly granted: ReadonlySet<Capability> };
  /** The operator's list mode; undefined lets the client choose (`x-deferred-tools`). */
  mode?: ListMode;
  /** The client's `experimental` capabilities, read when the operator chose no mode. */
  clientExperimental?: unknown;
  /** Output schemas in the list (`--output-schemas`); default the dispatcher's choice (off). */
  outputSchemas?: boolean;
  /** The client's capabilities' `extensions`: a host that renders MCP Apps gets `_meta.ui`. */
  clientExtensions?: unknown;
}

/** The MCP Apps extension (SEP-1865) as a client declares it in `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/**
 * Does the client render MCP Apps? Only then do tools carry `_meta.ui` (an extension is off unless
 * both sides declare it), so a client that cannot show the board pays no bytes for it.
 */
export function rendersApps(extensions: unknown): boolean {
  if (typeof extensions !== 'object' || extensions === null) return false;
  const ui = (extensions as Record<string, unknown>)[APPS_EXTENSION];
  if (typeof ui !== 'object' || ui === null) return false;
  const types = (ui as { mimeTypes?: unknown }).mimeTypes;
  return Array.isArray(types) && types.includes('text/html;profile=mcp-app');
}

/** A definition without `_meta.ui`, for a client that renders no apps. */
function withoutApp(definition: ToolDefinition): ToolDefinition {
  if (!definition._meta || !('ui' in definition._meta)) return definition;
  const { ui: _ui, ...meta } = definition._meta;
  const { _meta: _all, ...rest } = definition;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/** A tool as a list shows it: `names` mode leaves out all but the name, one line and an empty schema. */
export type ListedTool = Pick<ToolDefinition, 'name' | 'description' | 'inputSchema'> &
  Partial<Omit<ToolDefinition, 'annotations'>> & {
    annotations?: Partial<ToolAnnotations>;
    _meta?: Record<string, unknown>;
  };

/**
 * A definition as a list sends it: no title (for people; the name says it), annotations without
 * MCP's defaults (none when every hint is the default); the output schema only when
 * the operator asked. Models never see output schemas (the model APIs' tool definitions hold a name,
 * a description and an input schema), yet they were a third of the bytes: results still carry
 * `structuredContent`, and a client that wants the schema turns them back on.
 */
export function listedDefinition(
  definition: ToolDefinition,
  outputSchemas: boolean,
  capability?: Capability,
): ListedTool {
  const { outputSchema, annotations, title: _title, ...rest } = definition;
  const strict = capability === 'jumperless.exec' || capability === 'jumperless.admin';
  const hints = listedAnnotations(annotations);
  return {
    ...rest,
    ...(outputSchemas && outputSchema ? { outputSchema } : {}),
    // No hint differs from MCP's defaults: no annotations says the same as an empty object.
    ...(Object.keys(hints).length > 0 ? { annotations: hints } : {}),
    ...(strict ? { _meta: { ...rest._meta, [TOOL_CAPABILITY_META]: capability } } : {}),
  };
}

export interface ToolList {
  tools: ListedTool[];
  _meta?: Record<string, unknown>;
}

/**
 * The listed tools this caller may call, in catalog order (the socket lists these too): on in the
 * operator's selection, their capability granted; toolset_enable only while a toolset is off.
 */
export function callableTools(dispatcher: Dispatcher, granted: ReadonlySet<Capability>): ToolEntry[] {
  const { selection, registry } = dispatcher;
  const toolsets = registry.get(TOOLSET_TOOL);
  return [...(selection.partial && toolsets ? [toolsets] : []), ...registry.listed()].filter(
    (entry) => granted.has(entry.capability) && selection.enabled(entry),
  );
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
  const outputs = options.outputSchemas ?? dispatcher.outputSchemas;
  const callable = callableTools(dispatcher, granted);
  const shown = rendersApps(options.clientExtensions) ? (d: ToolDefinition) => d : withoutApp;
  if (mode === 'full') {
    const hidden = hiddenTools(dispatcher, granted).map((entry) => ({
      ...listedDefinition(shown(entry.definition), outputs),
      capability: entry.capability,
    }));
    return {
      tools: callable.map((entry) => listedDefinition(shown(entry.definition), outputs, entry.capability)),
      ...(hidden.length > 0 ? { _meta: { [HIDDEN_TOOLS_META]: hidden } } : {}),
    };
  }
  const meta = [SEARCH_TOOL, DESCRIBE_TOOL].flatMap((name) => {
    const entry = dispatcher.registry.get(name);
    return entry && granted.has(entry.capability) ? [listedDefinition(entry.definition, outputs)] : [];
  });
  if (mode === 'discovery') return { tools: meta };
  return { tools: [...callable.map((entry) => nameOnly(entry.definition)), ...meta] };
}
