/**
 * The meta-tools of `names` and `discovery` list modes over a registry (federation/metaTools.ts):
 * they search and describe exactly what `tools/list` shows in full mode, never hidden tools.
 */
import { type DiscoveryCatalog, metaTools, type SearchEntry } from '../federation/index.js';
import type { AnyTool } from '../tools/tool.js';
import { listedDefinition } from './listTools.js';
import type { Registry, ToolEntry } from './registry.js';

/** `registry` is read on each call, so the tools can be built before the registry that holds them. */
export function discoveryTools(registry: () => Registry, outputSchemas: boolean): AnyTool[] {
  let seen: readonly ToolEntry[] | undefined;
  let entries: SearchEntry[] = [];
  let names = new Set<string>();
  const refresh = () => {
    const listed = registry().listed();
    if (listed !== seen) {
      seen = listed;
      entries = listed.map(({ definition }) => ({
        name: definition.name,
        title: definition.title,
        description: definition.description,
      }));
      names = new Set(entries.map((entry) => entry.name));
    }
  };
  const catalog: DiscoveryCatalog = {
    entries: () => {
      refresh();
      return entries;
    },
    definition: (name) => {
      refresh();
      const entry = names.has(name) ? registry().get(name) : undefined;
      return entry ? { ...listedDefinition(entry.definition, outputSchemas) } : undefined;
    },
  };
  return metaTools(catalog);
}
