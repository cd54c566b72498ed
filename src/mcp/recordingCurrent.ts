/**
 * Whether the recorded first answers (firstAnswers.ts) still describe the code that would give
 * them, told without loading that code: the SDK is the version that recorded them (an `npm
 * install` under an old dist changes how answers are encoded), and, in a checkout, no file of the
 * code's tree was written after the recording (the build writes it last; `tsc` alone rewrites
 * what it compiles). An installed package (under node_modules) is not rebuilt in place, and npm
 * gives its files the times of their extraction, in tar order, so its times say nothing and are
 * not asked. Node builtins only: this runs before anything else is loaded.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const SDK_SERVER = '@modelcontextprotocol/server';

/** The version of the SDK's server package as resolved from `from`; undefined when not found. */
export function sdkVersion(from: string | URL = import.meta.url): string | undefined {
  try {
    const entry = createRequire(from).resolve(SDK_SERVER);
    for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === SDK_SERVER) return typeof pkg.version === 'string' ? pkg.version : undefined;
    }
  } catch {
    // Not resolvable from here: nothing to compare, so not current.
  }
  return undefined;
}

/**
 * `recording` is current for the code under `root` (a folder) run with `sdk` (the version the
 * recording names): false when the SDK differs, or `root` is a checkout with a file newer than it.
 */
export function recordingIsCurrent(recording: string, root: string, sdk: string | undefined): boolean {
  try {
    if (sdk === undefined || sdk !== sdkVersion(pathToFileURL(join(root, 'index.js')))) return false;
    const recorded = statSync(recording).mtimeMs;
    return root.split(sep).includes('node_modules') || !newerThan(root, recorded, recording);
  } catch {
    return false;
  }
}

function newerThan(dir: string, time: number, except: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (newerThan(path, time, except)) return true;
    } else if (path !== except && statSync(path).mtimeMs > time) return true;
  }
  return false;
}
