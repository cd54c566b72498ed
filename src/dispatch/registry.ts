/**
 * The tools a server offers, by name. Built once at start from the catalog (plus any extras such
 * as the conformance fixtures); a duplicate name is a configuration error and refuses to start.
 */
import type { AnyTool } from '../tools/tool.js';

export interface RegisteredTool {
  readonly tool: AnyTool;
  /** Calls running now (for `maxConcurrent`). */
  running: number;
  /** The handler returns an already rendered result (a federated tool), passed on as is. */
  passthrough?: boolean;
}

export interface Registry {
  get(name: string): RegisteredTool | undefined;
  /** Tools shown in lists: everything but hidden tools, in catalog order. */
  listed(): readonly AnyTool[];
  /** Every tool, hidden ones included. */
  all(): readonly AnyTool[];
  /** Catalogs that change while running (federation) tell listeners, who send `tools/list_changed`. */
  onChange?(listener: () => void): () => void;
}

export function createRegistry(tools: readonly AnyTool[]): Registry {
  const byName = new Map<string, RegisteredTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) {
      throw new Error(
        `two tools are named "${tool.name}" (groups ${byName.get(tool.name)?.tool.group} and ${tool.group})`,
      );
    }
    byName.set(tool.name, { tool, running: 0 });
  }
  const all = [...tools];
  const listed = all.filter((tool) => !tool.hidden);
  return {
    get: (name) => byName.get(name),
    listed: () => listed,
    all: () => all,
  };
}
