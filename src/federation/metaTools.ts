/**
 * The two meta-tools of `names` and `discovery` list modes: `tools_search` (keyword search over
 * the listed tools, scores 0..1) and `tools_describe` (full definitions by name). They are
 * ordinary tools run through the same pipeline as every other; hidden, so `full` mode never
 * lists them, and they only ever see listed tools (never hidden ones).
 */
import { z } from 'zod';
import type { Capability } from '../contract/index.js';
import { type AnyTool, defineTool } from '../tools/tool.js';
import { keywordSearch, type SearchEngine, type SearchEntry } from './search.js';

export const SEARCH_TOOL = 'tools_search';
export const DESCRIBE_TOOL = 'tools_describe';
export const META_TOOL_NAMES: readonly string[] = [SEARCH_TOOL, DESCRIBE_TOOL];

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
