#!/usr/bin/env node
/**
 * `npm run setup`: from a checkout, puts `jumperless-mcp` on the PATH. Installs the dependencies
 * when they are missing (`npm ci`), builds `dist/` when a source is newer (`npm run build`), then
 * links the package's bin
 * into npm's global prefix (`npm link`): /usr/local/bin or nvm's bin for root and most users; when
 * that prefix is not writable (a system Node run as a user), into ~/.local instead, and says so,
 * with the line to add to the shell when ~/.local/bin is not on the PATH. Run it again after
 * pulling: the link points at this checkout's `dist/`.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsFresh } from './distFresh.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const windows = process.platform === 'win32';
const say = (line) => process.stderr.write(`setup: ${line}\n`);

function npm(args, env = process.env) {
  const result = spawnSync('npm', args, { cwd: root, stdio: 'inherit', env, shell: windows });
  if (result.status !== 0) {
    say(`npm ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
}

function npmOutput(args) {
  const result = spawnSync('npm', args, { cwd: root, encoding: 'utf8', shell: windows });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function writable(path) {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where npm puts global bins for a prefix: `prefix/bin`, or the prefix itself on Windows. */
const binOf = (prefix) => (windows ? prefix : join(prefix, 'bin'));

if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) {
  say('installing the dependencies (npm ci)');
  npm(['ci', '--no-audit', '--no-fund']);
}
if (distIsFresh(root)) {
  say('dist/ is newer than the sources: not building again');
} else {
  say('building dist/ (npm run build)');
  npm(['run', 'build', '--silent']);
}

/** Whether this user may make `path` (or write in it): the nearest folder that exists decides. */
function mayWrite(path) {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return writable(at);
}

const globalPrefix = process.env.npm_config_prefix || npmOutput(['prefix', '--global']);
let prefix = globalPrefix;
if (!prefix || !mayWrite(windows ? prefix : join(prefix, 'lib', 'node_modules'))) {
  prefix = join(homedir(), '.local');
  say(
    `npm's global prefix ${globalPrefix ?? '(unknown)'} is not writable for this user: linking into ${prefix}`,
  );
  mkdirSync(windows ? prefix : join(prefix, 'lib'), { recursive: true });
}
npm(['link', '--no-audit', '--no-fund', '--loglevel=error'], { ...process.env, npm_config_prefix: prefix });

const bin = binOf(prefix);
const onPath = (process.env.PATH ?? '').split(delimiter).some((dir) => dir && resolve(dir) === resolve(bin));
say(`jumperless-mcp is ${join(bin, windows ? 'jumperless-mcp.cmd' : 'jumperless-mcp')}`);
if (!onPath) say(`${bin} is not on your PATH: add it, e.g.  export PATH="${bin}:$PATH"`);
say('try: jumperless-mcp tools, then jumperless-mcp exec --sim "print(1 + 1)"');
