/**
 * Enforces docs/architecture.md: each folder under src/ may import only itself and the folders
 * listed here (DESIGN.md §2: cli -> {mcp, http, socket} -> core -> {federation, auth, tools} ->
 * {device, board}). Run by `npm run check`.
 *
 * The layers under core (federation, tools, auth) use core's contracts: the core files that
 * import nothing but other such files (and no SDK), found here from the imports themselves. The
 * rest of core (registry, runTool, the tool adapter...) is above them, and they never see it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const allowed: Record<string, readonly string[]> = {
  board: [],
  device: ['board'],
  sim: ['board'],
  tools: ['device', 'board'],
  auth: [],
  federation: ['device', 'board'],
  core: ['federation', 'auth', 'tools', 'device', 'board'],
  mcp: ['core'],
  // Streamable HTTP is one of MCP's transports: it hands requests to mcp's servers.
  http: ['mcp', 'core', 'auth'],
  // The frames and the private socket the native protocol speaks are device's (board sharing speaks them too).
  socket: ['core', 'auth', 'device'],
  cli: ['mcp', 'http', 'socket', 'core', 'federation', 'auth', 'tools', 'device', 'sim', 'board'],
};
/** Layers that may use core's contracts though core is above them. */
const usesCoreContracts = new Set(['tools', 'federation', 'auth']);
/** Folders that must never see the MCP SDK (DESIGN.md §2). */
const sdkFree = new Set(['board', 'device', 'sim', 'tools', 'auth']);

const srcRoot = resolve('src');
const problems: string[] = [];

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const layerOf = (file: string) => relative(srcRoot, file).split(sep)[0] ?? '';
const importSpecs = (text: string) =>
  [
    ...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] ?? match[2] ?? '');
const resolveSpec = (file: string, spec: string) => resolve(dirname(file), spec).replace(/\.js$/, '.ts');

// Core's contracts: core files whose every import is another contract (or a package other than the SDK).
const contracts = new Map<string, boolean>();
function isContract(file: string, seen = new Set<string>()): boolean {
  const known = contracts.get(file);
  if (known !== undefined) return known;
  if (layerOf(file) !== 'core' || file.endsWith('.test.ts') || seen.has(file)) return false;
  seen.add(file);
  const specs = importSpecs(readFileSync(file, 'utf8'));
  const contract = specs.every((spec) =>
    spec.startsWith('.')
      ? isContract(resolveSpec(file, spec), seen)
      : !spec.startsWith('@modelcontextprotocol/'),
  );
  contracts.set(file, contract);
  return contract;
}

for (const file of walk(srcRoot)) {
  const layer = layerOf(file);
  const rules = allowed[layer];
  if (!rules) {
    problems.push(`${relative('.', file)}: folder src/${layer} has no layer rule in scripts/checkLayers.ts`);
    continue;
  }
  // Tests may reach a neighbour to build fixtures; product code never imports test support,
  // which lives under test/ (out of the package).
  const isTest = file.endsWith('.test.ts');
  for (const spec of importSpecs(readFileSync(file, 'utf8'))) {
    if (spec.startsWith('@modelcontextprotocol/') && sdkFree.has(layer) && !isTest) {
      problems.push(`${relative('.', file)}: src/${layer} must not import the MCP SDK`);
    }
    if (!spec.startsWith('.')) continue;
    const targetFile = resolveSpec(file, spec);
    const target = relative(srcRoot, targetFile);
    if (target.startsWith('..')) {
      if (!isTest) problems.push(`${relative('.', file)}: only tests may import from outside src/ (${spec})`);
      continue;
    }
    const targetLayer = target.split(sep)[0] ?? '';
    if (targetLayer === layer || rules.includes(targetLayer)) continue;
    if (targetLayer === 'core' && usesCoreContracts.has(layer) && isContract(targetFile)) continue;
    // Tests may reach a neighbour to build fixtures (a sim behind a device test, say).
    if (isTest) continue;
    const what =
      targetLayer === 'core' && usesCoreContracts.has(layer)
        ? `src/core beyond its contracts (${spec} imports more than contracts)`
        : `src/${targetLayer} (${spec})`;
    problems.push(`${relative('.', file)}: src/${layer} may not import ${what}`);
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
    if (spec.startsWith('.')) targets.push(resolveSpec(file, spec));
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
