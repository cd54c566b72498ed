/**
 * `jumperless-mcp tools [TOOL] [--json] [--all]`: the tool catalog as a table (name, capability,
 * the first sentence of the description), or one tool with its arguments (type, range, default,
 * description), read from the same registry a server builds. Needs no board.
 */

import { createDispatcher } from '../core/dispatcher.js';
import { firstSentence } from '../core/search.js';
import { ToolSubsystem } from '../core/toolSubsystem.js';
import { catalog } from '../tools/index.js';
import { toolsetOf } from '../tools/toolsets.js';

/** A JSON Schema as the tools give theirs (draft 2020-12 keywords, read loosely). */
type JsonSchema = Record<string, unknown>;

export interface ToolsOptions {
  json?: boolean;
  /** Also hidden tools (callable by name, left out of tools/list); the catalog has none since issue 13. */
  all?: boolean;
  /** One tool: its description and arguments. */
  tool?: string;
}

export interface ToolRow {
  name: string;
  capability: string;
  kind: string;
  toolset: string | undefined;
  hidden: boolean;
  description: string;
  /** The JSON Schema of its arguments, as tools/list gives it. */
  inputSchema: JsonSchema;
}

export function toolRows(options: Pick<ToolsOptions, 'all'> = {}): ToolRow[] {
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
        toolset: toolsetOf(entry.group),
        hidden: entry.hidden,
        description: entry.definition.description,
        inputSchema: entry.definition.inputSchema,
      }));
  } finally {
    dispatcher.close();
  }
}

export function runTools(
  options: ToolsOptions,
  io: { stdout: NodeJS.WritableStream & { columns?: number }; stderr: NodeJS.WritableStream },
): number {
  const rows = toolRows({ all: options.all || options.tool !== undefined });
  if (options.tool !== undefined) {
    const row = rows.find((r) => r.name === options.tool);
    if (!row) {
      io.stderr.write(`jumperless-mcp tools: ${unknownTool(options.tool, rows)}\n`);
      return 2;
    }
    io.stdout.write(options.json ? `${JSON.stringify(row, null, 2)}\n` : describeTool(row));
    return 0;
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ tools: rows }, null, 2)}\n`);
    return 0;
  }
  const out = io.stdout;
  const nameWidth = Math.max(4, ...rows.map((row) => row.name.length + (row.hidden ? 1 : 0)));
  const capWidth = Math.max(10, ...rows.map((row) => row.capability.length));
  const width = out.columns ?? 120;
  out.write(`${'TOOL'.padEnd(nameWidth)}  ${'CAPABILITY'.padEnd(capWidth)}  DESCRIPTION\n`);
  for (const row of rows) {
    const line = `${(row.name + (row.hidden ? '*' : '')).padEnd(nameWidth)}  ${row.capability.padEnd(capWidth)}  ${firstSentence(row.description)}`;
    out.write(`${line.length > width ? `${line.slice(0, width - 3)}...` : line}\n`);
  }
  out.write(
    `${rows.length} tools${options.all ? '; * hidden from tools/list, callable by name' : ' (--all adds the hidden ones)'}. A tool's arguments: jumperless-mcp tools <tool>. Run one: jumperless-mcp call <tool> --args '{...}'\n`,
  );
  return 0;
}

/** What `call TOOL --help` appends: the tool's arguments, or that there is no such tool. */
export function toolHelp(tool: string): string {
  const row = toolRows({ all: true }).find((r) => r.name === tool);
  return row ? describeTool(row) : `${unknownTool(tool, toolRows())}\n`;
}

function unknownTool(tool: string, rows: readonly ToolRow[]): string {
  const near = rows
    .map((row) => row.name)
    .filter((name) => name.includes(tool) || tool.includes(name) || sharesWord(name, tool));
  return `no tool named ${tool}${near.length > 0 ? ` (near: ${near.slice(0, 4).join(', ')})` : ''}; jumperless-mcp tools lists them`;
}

function sharesWord(a: string, b: string): boolean {
  const words = new Set(a.split('_'));
  return b.split('_').some((word) => word.length > 2 && words.has(word));
}

/** The tool as a person reads it: what it does, then one line per argument. */
export function describeTool(row: ToolRow): string {
  const properties = (row.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((row.inputSchema.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  const lines = [
    `${row.name}  (${[row.toolset, row.kind, `needs ${row.capability}`].filter(Boolean).join(', ')})`,
    '',
    ...wrap(row.description, 100).map((line) => `  ${line}`),
    '',
  ];
  if (names.length === 0) {
    lines.push('Arguments: none.', '', `Call it: jumperless-mcp call ${row.name}`);
  } else {
    lines.push('Arguments (the JSON object of --args; * required):');
    const width = Math.max(...names.map((name) => name.length)) + 2;
    for (const name of names) {
      const schema = properties[name] as JsonSchema;
      const mark = required.has(name) ? '*' : ' ';
      const about = [describeType(schema), withDefault(schema), schema.description]
        .filter((part) => part !== undefined && part !== '')
        .join('; ');
      lines.push(`  ${mark} ${name.padEnd(width)}${about}`);
    }
    const shown = names.filter((name) => required.has(name));
    const args = (shown.length > 0 ? shown : names.slice(0, 1)).map((name) => `"${name}": ...`).join(', ');
    lines.push('', `Call it: jumperless-mcp call ${row.name} --args '{${args}}'`);
  }
  return `${lines.join('\n')}\n`;
}

/** `number, -8 to 8`, `one of DAC0, DAC1`, `list (1-128) of: list (2) of: integer or string`. */
export function describeType(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((value) => String(value)).join(', ')}`;
  if ('const' in schema) return `exactly ${JSON.stringify(schema.const)}`;
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(options)) return options.map(describeType).join(', or ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const kind = types.filter((t): t is string => typeof t === 'string').join(' or ') || 'any JSON value';
  const range = (low: unknown, high: unknown, unit = '') => {
    if (typeof low === 'number' && typeof high === 'number') return `${low} to ${high}${unit}`;
    if (typeof low === 'number') return `at least ${low}${unit}`;
    if (typeof high === 'number') return `at most ${high}${unit}`;
    return undefined;
  };
  if (types.includes('array')) {
    const count = range(schema.minItems, schema.maxItems, ' items');
    const items = schema.items as JsonSchema | undefined;
    return `list${count ? ` (${count})` : ''}${items ? ` of: ${describeType(items)}` : ''}`;
  }
  const parts = [kind];
  if (types.includes('number') || types.includes('integer')) {
    const numbers = range(schema.minimum, schema.maximum);
    if (numbers) parts.push(numbers);
  }
  if (types.includes('string')) {
    const length = range(schema.minLength, schema.maxLength, ' characters');
    if (length) parts.push(length);
    if (typeof schema.pattern === 'string') parts.push(`matching ${schema.pattern}`);
  }
  return parts.join(', ');
}

function withDefault(schema: JsonSchema): string | undefined {
  return 'default' in schema ? `default ${JSON.stringify(schema.default)}` : undefined;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
