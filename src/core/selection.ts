/**
 * Which tools this server offers (github-mcp-server's toolsets, as data): the operator's toolsets,
 * single tools added by name, tools taken out by name, and read-only. A tool left out is neither
 * listed nor callable; `toolset_enable` turns a toolset on while the server runs, and the lists
 * change (`tools/list_changed`). Tools of no toolset (a bench's other servers, the server's own)
 * are always on unless excluded or, under read-only, not read-only.
 */
import { z } from 'zod';
import { isToolset, TOOLSET_NAMES, TOOLSETS, type Toolset, toolsetOf } from '../tools/toolsets.js';
import type { ToolEntry } from './registry.js';
import { type AnyTool, defineTool } from './toolDefinition.js';

export interface SelectionOptions {
  /** Toolsets on at start; undefined: all of them (unless `tools` names single tools). */
  toolsets?: readonly string[];
  /** Tools on by name, besides the toolsets'. */
  tools?: readonly string[];
  /** Tools off by name, whatever else says. */
  excludeTools?: readonly string[];
  /** Only tools that change nothing. */
  readOnly?: boolean;
}

export interface Selection {
  /** On now: listed (when the caller may call it) and callable. */
  enabled(entry: ToolEntry): boolean;
  /** Why a tool is off, for the caller's error; undefined when on. */
  whyOff(entry: ToolEntry): string | undefined;
  /** Turns a toolset on; false when it already was. */
  enable(toolset: Toolset): boolean;
  /** Each toolset and whether it is on. */
  toolsets(): Array<{ name: Toolset; enabled: boolean }>;
  /** Some toolset is off, so `toolset_enable` has something to do. */
  readonly partial: boolean;
}

/** Checks the names an operator gave (a typo should stop the server, not silently hide tools). */
export function checkToolsetNames(names: readonly string[], where: string): Toolset[] {
  const unknown = names.filter((name) => !isToolset(name));
  if (unknown.length > 0) {
    throw new Error(`${where}: unknown toolset ${unknown.join(', ')} (use ${TOOLSET_NAMES.join(', ')})`);
  }
  return names as Toolset[];
}

export function createSelection(options: SelectionOptions = {}): Selection {
  const named = new Set(options.tools ?? []);
  const excluded = new Set(options.excludeTools ?? []);
  const on = new Set<Toolset>(
    options.toolsets
      ? checkToolsetNames(options.toolsets, '--toolsets')
      : named.size > 0
        ? []
        : TOOLSET_NAMES,
  );
  const names = (entry: ToolEntry) => [entry.definition.name, entry.internal];
  // An entry's group never changes: its toolset is looked up once.
  const toolsets = new WeakMap<ToolEntry, Toolset | undefined>();
  const whyOff = (entry: ToolEntry): string | undefined => {
    if (names(entry).some((name) => excluded.has(name))) return 'excluded by the operator';
    if (options.readOnly && entry.kind !== 'read' && !entry.own) return 'the server is read-only';
    if (names(entry).some((name) => named.has(name))) return undefined;
    let toolset = toolsets.get(entry);
    if (toolset === undefined && !toolsets.has(entry)) {
      toolset = toolsetOf(entry.group);
      toolsets.set(entry, toolset);
    }
    if (toolset === undefined || on.has(toolset)) return undefined;
    return `in toolset ${toolset}, which is off: toolset_enable turns it on`;
  };
  return {
    enabled: (entry) => whyOff(entry) === undefined,
    whyOff,
    enable(toolset) {
      if (on.has(toolset)) return false;
      on.add(toolset);
      return true;
    },
    toolsets: () => TOOLSET_NAMES.map((name) => ({ name, enabled: on.has(name) })),
    get partial() {
      return on.size < TOOLSET_NAMES.length;
    },
  };
}

export const TOOLSET_TOOL = 'toolset_enable';

/** The meta-tool that turns a toolset on; `changed` tells the transports to send list_changed. */
export function toolsetTool(selection: Selection, changed: () => void): AnyTool {
  return defineTool({
    name: TOOLSET_TOOL,
    title: 'Turn on a toolset',
    description:
      'Turn on a toolset: its tools join the list (tools/list_changed). Without a toolset, lists them and which are on.',
    group: 'toolsets',
    kind: 'write',
    capability: 'jumperless.read',
    // Listed by listTools only while a toolset is off; callable by name always.
    hidden: true,
    input: z.object({ toolset: z.enum(TOOLSET_NAMES as [Toolset, ...Toolset[]]).optional() }),
    output: z.object({
      changed: z.boolean(),
      toolsets: z.array(z.object({ name: z.string(), enabled: z.boolean(), holds: z.string() })),
    }),
    handle: async ({ toolset }) => {
      const turned = toolset !== undefined && selection.enable(toolset);
      if (turned) changed();
      return {
        changed: turned,
        toolsets: selection
          .toolsets()
          .map(({ name, enabled }) => ({ name, enabled, holds: TOOLSETS[name].description })),
      };
    },
  });
}
