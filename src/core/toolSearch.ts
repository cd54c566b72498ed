/**
 * The two meta-tools of `names` and `discovery` list modes (listModes.ts): `tools_search` (keyword
 * search over the listed tools, scores 0..1) and `tools_describe` (full definitions by name). They
 * are ordinary tools run through the same pipeline as every other; hidden, so `full` mode never
 * lists them, and they search and describe exactly what `tools/list` shows in full mode, never
 * hidden tools.
 */
import { z } from 'zod';
import type { Capability } from './capabilities.js';
import { DESCRIBE_TOOL, SEARCH_TOOL } from './listModes.js';
import { listedDefinition } from './listTools.js';
import type { Registry, ToolEntry } from './registry.js';
import { keywordSearch, type SearchEngine, type SearchEntry } from './search.js';
import type { Selection } from './selection.js';
import { type AnyTool, defineTool } from './toolDefinition.js';

/** What the meta-tools read: the listed tools by wire name, meta-tools and hidden tools excluded. */
export interface DiscoveryCatalog {
  /** The listed tools a caller holding `granted` may call (all of them when not known). */
  entries(granted?: ReadonlySet<Capability>): readonly SearchEntry[];
  /** The definition `tools/list` would show in full mode; undefined when not a listed tool for this caller. */
  definition(name: string, granted?: ReadonlySet<Capability>): Record<string, unknown> | undefined;
}

const hit = z.object({
  name: z.string(),
  description: z.string(),
  score: z.number().min(0).max(1),
});

export function metaTools(catalog: DiscoveryCatalog, engine: SearchEngine = keywordSearch): AnyTool[] {
  const search = defineTool({
    name: SEARCH_TOOL,
    title: 'Search the tools',
    description:
      'Find tools by what they do, e.g. "set a voltage". Returns names scored 0-1, best first; tools_describe gives their arguments.',
    group: 'discovery',
    kind: 'read',
    capability: 'jumperless.read',
    hidden: true,
    input: z.object({
      query: z.string().min(1).max(500).describe('What it should do'),
      limit: z.number().int().min(1).max(50).default(10).describe('Most hits to return'),
    }),
    output: z.object({ tools: z.array(hit) }),
    handle: async ({ query, limit }, context) => ({
      tools: engine.search(query, catalog.entries(context.granted), limit),
    }),
  });

  const describe = defineTool({
    name: DESCRIBE_TOOL,
    title: 'Describe tools',
    description: 'The full definitions of tools by name, as tools/list shows them.',
    group: 'discovery',
    kind: 'read',
    capability: 'jumperless.read',
    hidden: true,
    input: z.object({
      names: z.array(z.string().min(1).max(200)).min(1).max(50),
    }),
    output: z.object({
      tools: z.array(z.object({ name: z.string() }).catchall(z.unknown())),
      unknown: z.array(z.string()).describe('Names that are not listed tools'),
    }),
    handle: async ({ names }, context) => {
      const tools: Array<Record<string, unknown> & { name: string }> = [];
      const unknown: string[] = [];
      for (const name of new Set(names)) {
        const definition = catalog.definition(name, context.granted);
        if (definition) tools.push({ ...definition, name });
        else unknown.push(name);
      }
      return { tools, unknown };
    },
  });

  return [search, describe];
}

/** `registry` is read on each call, so the tools can be built before the registry that holds them. */
export function discoveryTools(
  registry: () => Registry,
  outputSchemas: boolean,
  selection: Selection,
): AnyTool[] {
  let seen: readonly ToolEntry[] | undefined;
  let entries: SearchEntry[] = [];
  let capabilities = new Map<string, string>();
  let on = '';
  const refresh = () => {
    const all = registry().listed();
    const listed = all.filter((entry) => selection.enabled(entry));
    const key = listed.map((entry) => entry.definition.name).join(',');
    if (all !== seen || key !== on) {
      seen = all;
      on = key;
      entries = listed.map(({ definition }) => ({
        name: definition.name,
        title: definition.title,
        description: definition.description,
      }));
      capabilities = new Map(listed.map((entry) => [entry.definition.name, entry.capability]));
    }
  };
  const may = (name: string, granted: ReadonlySet<string> | undefined) => {
    const capability = capabilities.get(name);
    return capability !== undefined && (granted === undefined || granted.has(capability));
  };
  const catalog: DiscoveryCatalog = {
    entries: (granted) => {
      refresh();
      return granted ? entries.filter((entry) => may(entry.name, granted)) : entries;
    },
    definition: (name, granted) => {
      refresh();
      const entry = may(name, granted) ? registry().get(name) : undefined;
      return entry ? { ...listedDefinition(entry.definition, outputSchemas) } : undefined;
    },
  };
  return metaTools(catalog);
}
