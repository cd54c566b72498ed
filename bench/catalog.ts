/**
 * What our `tools/list` costs a model, for one board (DESIGN.md §5 allows a tokenizer from npm
 * for this bench): bytes and o200k tokens in full, names and discovery modes, full mode with the
 * output schemas put back (`--output-schemas`), and the five largest tools.
 *
 *   npx tsx bench/catalog.ts [--json]
 *
 * Sizes, not times: the same every run. The budgets are enforced by src/core/budget.test.ts.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { CAPABILITIES, type Capability } from '../src/core/capabilities.js';
import { createDispatcher } from '../src/core/dispatcher.js';
import type { ListMode } from '../src/core/listModes.js';
import { listTools } from '../src/core/listTools.js';
import { ToolSubsystem } from '../src/core/toolSubsystem.js';
import { catalog } from '../src/tools/index.js';

const operator = { granted: new Set<Capability>(CAPABILITIES) };
const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });

interface Figure {
  bytes: number;
  tokens: number;
  tools: number;
}

function figure(value: { tools: readonly unknown[] }): Figure {
  return { ...measure(value), tools: value.tools.length };
}

/** One JSON value's bytes and tokens; a tool is measured as its entry alone, as budget.test.ts does. */
function measure(value: unknown): Omit<Figure, 'tools'> {
  const text = JSON.stringify(value);
  return { bytes: Buffer.byteLength(text), tokens: countTokens(text) };
}

const list = (mode: ListMode, extra: Record<string, unknown> = {}) =>
  listTools(dispatcher, { caller: operator, mode, ...extra });

const modes: Record<string, Figure> = {
  full: figure(list('full')),
  names: figure(list('names')),
  discovery: figure(list('discovery')),
  'full --output-schemas': figure(list('full', { outputSchemas: true })),
};
const largest = list('full')
  .tools.map((tool) => ({ name: tool.name, tools: 1, ...measure(tool) }))
  .sort((a, b) => b.bytes - a.bytes)
  .slice(0, Number(process.env.CATALOG_LARGEST ?? 5));

if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ modes, largest }, null, 2)}\n`);
} else {
  const row = (name: string, f: Figure) =>
    `${name.padEnd(24)} ${String(f.tools).padStart(5)} ${String(f.bytes).padStart(8)} ${String(f.tokens).padStart(8)}`;
  console.log(`${'tools/list'.padEnd(24)} tools    bytes   tokens`);
  for (const [name, f] of Object.entries(modes)) console.log(row(name, f));
  console.log(`\n${'largest tools'.padEnd(24)}`);
  for (const tool of largest) console.log(row(tool.name, tool));
}
dispatcher.close();
