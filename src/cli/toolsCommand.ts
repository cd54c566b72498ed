/**
 * `jumperless-mcp tools [--json] [--all]`: the tool catalog as a table (name, capability, the
 * first sentence of the description), read from the same registry a server builds. Needs no board.
 */

import { createDispatcher } from '../core/dispatcher.js';
import { firstSentence } from '../core/search.js';
import { ToolSubsystem } from '../core/toolSubsystem.js';
import { catalog } from '../tools/index.js';

export interface ToolsOptions {
  json?: boolean;
  /** Also hidden tools (callable by name, left out of tools/list); the catalog has none since issue 13. */
  all?: boolean;
}

export interface ToolRow {
  name: string;
  capability: string;
  kind: string;
  hidden: boolean;
  description: string;
}

export function toolRows(options: ToolsOptions = {}): ToolRow[] {
  const dispatcher = createDispatcher({
    root: new ToolSubsystem({ name: 'local', tools: catalog }),
    log: () => {},
  });
  try {
    return dispatcher.registry
      .all()
      .filter((entry) => !entry.own && (options.all || !entry.hidden))
      .map((entry) => ({
        name: entry.definition.name,
        capability: entry.capability,
        kind: entry.kind,
        hidden: entry.hidden,
        description: entry.definition.description,
      }));
  } finally {
    dispatcher.close();
  }
}

export function runTools(options: ToolsOptions, out: NodeJS.WritableStream & { columns?: number }): number {
  const rows = toolRows(options);
  if (options.json) {
    out.write(`${JSON.stringify({ tools: rows }, null, 2)}\n`);
    return 0;
  }
  const nameWidth = Math.max(4, ...rows.map((row) => row.name.length + (row.hidden ? 1 : 0)));
  const capWidth = Math.max(10, ...rows.map((row) => row.capability.length));
  const width = out.columns ?? 120;
  out.write(`${'TOOL'.padEnd(nameWidth)}  ${'CAPABILITY'.padEnd(capWidth)}  DESCRIPTION\n`);
  for (const row of rows) {
    const line = `${(row.name + (row.hidden ? '*' : '')).padEnd(nameWidth)}  ${row.capability.padEnd(capWidth)}  ${firstSentence(row.description)}`;
    out.write(`${line.length > width ? `${line.slice(0, width - 3)}...` : line}\n`);
  }
  out.write(
    `${rows.length} tools${options.all ? '; * hidden from tools/list, callable by name' : ' (--all adds the hidden ones)'}. Run one: jumperless-mcp call <tool> --args '{...}'\n`,
  );
  return 0;
}
