/**
 * What `tools/list` shows (dispatch notes §6 "Discovery"): `full` (every listed tool with its
 * schemas, the default), `names` (names and one-line descriptions, no schemas, plus the
 * meta-tools to fetch them) or `discovery` (only `tools_search` and `tools_describe`). A client
 * that declares `x-deferred-tools` in its `experimental` capabilities gets `discovery`, unless
 * the operator chose a mode (flag, environment, config file). Hidden tools are never listed.
 */
import { firstSentence } from './search.js';
import type { JsonSchemaObject } from './toolDefinition.js';

export const LIST_MODES = ['full', 'names', 'discovery'] as const;
export type ListMode = (typeof LIST_MODES)[number];

/** The meta-tools `names` and `discovery` modes list (toolSearch.ts). */
export const SEARCH_TOOL = 'tools_search';
export const DESCRIBE_TOOL = 'tools_describe';

/** The `experimental` capability key by which a client asks for deferred tool loading. */
export const DEFERRED_TOOLS = 'x-deferred-tools';

export function isListMode(value: unknown): value is ListMode {
  return typeof value === 'string' && (LIST_MODES as readonly string[]).includes(value);
}

export function parseListMode(text: string, where: string): ListMode {
  if (!isListMode(text)) {
    throw new Error(`${where}: "${text}" is not a list mode (use ${LIST_MODES.join(', ')})`);
  }
  return text;
}

/** The operator's choice wins; otherwise the client's `x-deferred-tools` asks for discovery. */
export function listModeFor(operator: ListMode | undefined, clientExperimental: unknown): ListMode {
  if (operator) return operator;
  const asks =
    typeof clientExperimental === 'object' &&
    clientExperimental !== null &&
    DEFERRED_TOOLS in clientExperimental &&
    (clientExperimental as Record<string, unknown>)[DEFERRED_TOOLS] !== false;
  return asks ? 'discovery' : 'full';
}

/**
 * A tool as `names` mode lists it: its title (a few words, written for this) or else the first
 * sentence of its description; MCP requires an input schema, so it gets the emptiest one.
 */
export function nameOnly(tool: { name: string; title?: string; description: string }): {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
} {
  const line = tool.title && tool.title !== tool.name ? tool.title : firstSentence(tool.description);
  return { name: tool.name, description: line, inputSchema: { type: 'object' } };
}
