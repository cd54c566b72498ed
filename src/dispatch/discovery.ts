/**
 * The meta-tools of `names` and `discovery` list modes over a registry (federation/metaTools.ts):
 * they search and describe exactly what `tools/list` shows in full mode, never hidden tools.
 */
import { type DiscoveryCatalog, metaTools, type SearchEntry } from '../federation/index.js';
import type { AnyTool } from '../tools/tool.js';
import { listedDefinition } from './listTools.js';
import type { Registry, ToolEntry } from './registry.js';
import type { Selection } from './selection.js';

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
