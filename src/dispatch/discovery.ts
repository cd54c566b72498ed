/**
 * The meta-tools of `names` and `discovery` list modes over a registry (federation/metaTools.ts):
 * they search and describe exactly what `tools/list` shows in full mode, never hidden tools.
 */
import { type DiscoveryCatalog, metaTools, type SearchEntry } from '../federation/index.js';
import type { AnyTool } from '../tools/tool.js';
import { describeTool } from './describe.js';
import type { Registry } from './registry.js';

/** `registry` is read on each call, so the tools can be built before the registry that holds them. */
export function discoveryTools(registry: () => Registry): AnyTool[] {
  let seen: readonly AnyTool[] | undefined;
  let entries: SearchEntry[] = [];
  let names = new Set<string>();
  const refresh = () => {
    const listed = registry().listed();
    if (listed !== seen) {
      seen = listed;
      entries = listed.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description }));
      names = new Set(listed.map((tool) => tool.name));
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
      return entry ? { ...describeTool(entry.tool) } : undefined;
    },
  };
  return metaTools(catalog);
}
