/**
 * Enforces the import direction of DESIGN.md §2: each folder under src/ may import only
 * itself and the folders listed here. Run by `npm run check`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';

const allowed: Record<string, readonly string[]> = {
  board: [],
  device: ['board'],
  sim: ['board'],
  tools: ['device', 'board'],
  auth: [],
  federation: ['tools', 'device', 'board', 'auth'],
  dispatch: ['federation', 'auth', 'tools', 'device', 'board'],
  mcp: ['dispatch'],
  http: ['dispatch', 'mcp', 'auth'],
  socket: ['dispatch', 'auth'],
  share: ['socket', 'tools', 'device', 'board'],
  cli: [
    'mcp',
    'http',
    'socket',
    'share',
    'dispatch',
    'federation',
    'auth',
    'tools',
    'device',
    'sim',
    'board',
  ],
};
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

for (const file of walk(srcRoot)) {
  const layer = relative(srcRoot, file).split(sep)[0] ?? '';
  const rules = allowed[layer];
  if (!rules) {
    problems.push(`${relative('.', file)}: folder src/${layer} has no layer rule in scripts/checkLayers.ts`);
    continue;
  }
  // Tests, and test support files (named `test*.ts`, e.g. tools/testHarness.ts), may reach a
  // neighbour to build fixtures; no other file may import test support.
  const isTest = file.endsWith('.test.ts') || /^test[A-Z]/.test(basename(file));
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const spec = match[1] ?? match[2] ?? '';
    if (spec.startsWith('@modelcontextprotocol/sdk') && sdkFree.has(layer) && !isTest) {
      problems.push(`${relative('.', file)}: src/${layer} must not import the MCP SDK`);
    }
    if (!spec.startsWith('.')) continue;
    if (!isTest && /^test[A-Z]/.test(basename(spec))) {
      problems.push(`${relative('.', file)}: only tests may import test support (${spec})`);
    }
    const target = relative(srcRoot, resolve(join(file, '..'), spec));
    if (target.startsWith('..')) continue;
    const targetLayer = target.split(sep)[0] ?? '';
    if (targetLayer === layer || rules.includes(targetLayer)) continue;
    // Tests may reach a neighbour to build fixtures (a sim behind a device test, say).
    if (isTest) continue;
    problems.push(`${relative('.', file)}: src/${layer} may not import src/${targetLayer} (${spec})`);
  }
}

if (problems.length > 0) {
  process.stderr.write(`Layer check failed:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('layers ok\n');
