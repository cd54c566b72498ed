/**
 * The VM worker's script when the board runs from TypeScript sources (tests, `npm start`): the
 * worker's 55 modules bundled into one file by esbuild (the compiler tsx itself runs), kept on disk
 * while its sources are unchanged. A thread that loaded them one by one through tsx spent 1.7 to 4.3 s
 * of a 1.9 to 4.7 s boot doing so (measured on the shared two-core machine), and every test that boots
 * or reboots a board paid it again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface Cached {
  /** Each bundled source, relative to the entry's folder, with the hash of its text when bundled. */
  inputs: Record<string, string>;
}

const hashOf = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** Whether every source the bundle was made from still reads as it did. */
function stillFresh(bundle: string, base: string): boolean {
  try {
    const cached = JSON.parse(readFileSync(`${bundle}.json`, 'utf8')) as Cached;
    return (
      existsSync(bundle) &&
      Object.entries(cached.inputs).every(([file, hash]) => hashOf(readFileSync(join(base, file))) === hash)
    );
  } catch {
    return false;
  }
}

async function build(entry: string, bundle: string): Promise<void> {
  const tsxRequire = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
  const esbuild = (await import(
    pathToFileURL(tsxRequire.resolve('esbuild')).href
  )) as typeof import('esbuild');
  const base = dirname(entry);
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: base,
    plugins: [
      {
        name: 'as-loaded-from-sources',
        setup(on) {
          // Packages stay where they are installed, reached by absolute URL from wherever the bundle lives.
          on.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('node:')
              ? { path: args.path, external: true }
              : {
                  path: pathToFileURL(createRequire(args.importer).resolve(args.path)).href,
                  external: true,
                },
          );
          // Each module keeps its own import.meta.url (vm.ts finds the Python files beside it).
          on.onLoad({ filter: /\.ts$/ }, (args) => ({
            contents: readFileSync(args.path, 'utf8').replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(args.path).href),
            ),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  const [output] = result.outputFiles ?? [];
  if (!output) throw new Error(`esbuild made no bundle of ${entry}`);
  const inputs: Record<string, string> = {};
  for (const file of Object.keys(result.metafile?.inputs ?? {})) {
    inputs[file] = hashOf(readFileSync(join(base, file)));
  }
  // Written under another name first: another process may be reading or making the same bundle.
  const partial = `${bundle}.${process.pid}`;
  writeFileSync(partial, output.contents);
  writeFileSync(`${partial}.json`, JSON.stringify({ inputs } satisfies Cached));
  renameSync(partial, bundle);
  renameSync(`${partial}.json`, `${bundle}.json`);
}

/**
 * The file of `entry` (a .ts file) bundled: the one on disk when every source it was made from still
 * reads the same, else a new one. Returns its path.
 */
export async function bundleSources(entry: string): Promise<string> {
  const nodeModules = dirname(dirname(createRequire(import.meta.url).resolve('tsx/package.json')));
  const cache = join(nodeModules, '.cache', 'jumperless-mcp');
  mkdirSync(cache, { recursive: true });
  const bundle = join(cache, `${hashOf(entry).slice(0, 16)}.mjs`);
  if (!stillFresh(bundle, dirname(entry))) await build(entry, bundle);
  return bundle;
}

const made = new Map<string, Promise<URL>>();

/** `bundleSources` of a worker's entry, once per process: a thread started later runs the same code. */
export function sourceWorkerScript(entry: URL): Promise<URL> {
  let script = made.get(entry.href);
  if (!script) {
    script = bundleSources(fileURLToPath(entry)).then((path) => pathToFileURL(path));
    made.set(entry.href, script);
  }
  return script;
}

const LOADER_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/** Node options without the module loaders and preloads they name (`--import tsx`, `--require x.cjs`). */
export function withoutLoaders(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i] ?? '';
    if (LOADER_FLAGS.has(flag)) i++;
    else if (![...LOADER_FLAGS].some((name) => flag.startsWith(`${name}=`))) kept.push(flag);
  }
  return kept;
}
