/**
 * Enforces docs/architecture.md: each folder under src/ may import only
 * itself and the folders listed here. Run by `npm run check`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const allowed: Record<string, readonly string[]> = {
  contract: [],
  board: [],
  device: ['board'],
  sim: ['board'],
  tools: ['device', 'board'],
  auth: [],
  federation: ['tools', 'device', 'board', 'auth'],
  dispatch: ['federation', 'auth', 'tools', 'device', 'board'],
  mcp: ['dispatch'],
  http: ['dispatch', 'mcp', 'auth'],
  // The frames and the private socket it listens on are device's (board sharing speaks them too).
  socket: ['dispatch', 'auth', 'device'],
  cli: ['mcp', 'http', 'socket', 'dispatch', 'federation', 'auth', 'tools', 'device', 'sim', 'board'],
};
/** Folders that must never see the MCP SDK (DESIGN.md §2). */
const sdkFree = new Set(['contract', 'board', 'device', 'sim', 'tools', 'auth']);

const srcRoot = resolve('src');
const problems: string[] = [];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

for (const file of walk(srcRoot)) {
  const layer = relative(srcRoot, file).split(sep)[0] ?? '';
  const rules = allowed[layer];
  if (!rules) {
    problems.push(`${relative('.', file)}: folder src/${layer} has no layer rule in scripts/checkLayers.ts`);
    continue;
  }
  // Tests may reach a neighbour to build fixtures; product code never imports test support,
  // which lives under test/ (out of the package).
  const isTest = file.endsWith('.test.ts');
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const spec = match[1] ?? match[2] ?? '';
    if (spec.startsWith('@modelcontextprotocol/') && sdkFree.has(layer) && !isTest) {
      problems.push(`${relative('.', file)}: src/${layer} must not import the MCP SDK`);
    }
    if (!spec.startsWith('.')) continue;
    const target = relative(srcRoot, resolve(join(file, '..'), spec));
    if (target.startsWith('..')) {
      if (!isTest) problems.push(`${relative('.', file)}: only tests may import from outside src/ (${spec})`);
      continue;
    }
    const targetLayer = target.split(sep)[0] ?? '';
    // The shared contracts (src/contract) are every layer's: they import nothing themselves.
    if (targetLayer === layer || targetLayer === 'contract' || rules.includes(targetLayer)) continue;
    // Tests may reach a neighbour to build fixtures (a sim behind a device test, say).
    if (isTest) continue;
    problems.push(`${relative('.', file)}: src/${layer} may not import src/${targetLayer} (${spec})`);
  }
}

// Import cycles between files, as they load: type-only imports are erased, so they do not count.
const graph = new Map<string, string[]>();
for (const file of walk(srcRoot)) {
  if (file.endsWith('.test.ts')) continue;
  const text = readFileSync(file, 'utf8');
  const targets: string[] = [];
  for (const match of text.matchAll(
    /(?:import|export)\s(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const spec = match[1] ?? match[2] ?? '';
    if (spec.startsWith('.')) targets.push(resolve(join(file, '..'), spec).replace(/\.js$/, '.ts'));
  }
  graph.set(file, targets);
}
const state = new Map<string, 'open' | 'done'>();
const cycles: string[] = [];
function visit(file: string, path: string[]): void {
  if (state.get(file) === 'done') return;
  if (state.get(file) === 'open') {
    const loop = path.slice(path.indexOf(file));
    cycles.push([...loop, file].map((f) => relative('.', f)).join(' -> '));
    return;
  }
  state.set(file, 'open');
  for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
  state.set(file, 'done');
}
for (const file of graph.keys()) visit(file, []);
for (const cycle of cycles) problems.push(`import cycle: ${cycle}`);

if (problems.length > 0) {
  process.stderr.write(`Layer check failed:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('layers ok\n');
