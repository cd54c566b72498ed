/**
 * Whether `dist/` is a whole build newer than everything the build reads, so `npm run setup` and
 * `npm run build:mcpb` build only when something changed.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the build reads: the sources, its scripts, the compiler's settings, the dependencies. */
const INPUTS = [
  'src',
  'scripts',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
/** Written first and last by `npm run build` (which starts by removing dist/). */
const OUTPUTS = ['dist/cli/main.js', 'dist/tools/jsonSchemas.json'];

/** The newest modification time of the files under `path` (0 when there is none). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

export function distIsFresh(root) {
  if (!OUTPUTS.every((file) => existsSync(join(root, file)))) return false;
  return newest(join(root, 'dist')) >= Math.max(...INPUTS.map((input) => newest(join(root, input))));
}
