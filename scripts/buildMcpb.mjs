#!/usr/bin/env node
/**
 * `npm run build:mcpb [-- --out FILE]`: the one-click install for Claude Desktop and other MCP
 * Bundle hosts, `jumperless-mcp.mcpb`. The bundle is the package as `npm pack` ships it, its
 * production dependencies (`npm ci --omit=dev`, no install scripts: nothing is compiled here) with
 * the serialport prebuilds for the platforms the manifest claims, and a manifest whose user
 * settings become the server's JUMPERLESS_MCP_* variables. The official packer
 * (`@anthropic-ai/mcpb`) validates the manifest and zips it. Prints the bundle's size.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { distIsFresh } from './distFresh.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const windows = process.platform === 'win32';
const say = (line) => process.stderr.write(`build:mcpb: ${line}\n`);
const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex > 0 ? (process.argv[outIndex + 1] ?? '') : join(root, 'jumperless-mcp.mcpb'));

/**
 * The prebuilt serialport bindings the bundle keeps (node-gyp-build's folder names in
 * @serialport/bindings-cpp/prebuilds); the others (Android, 32-bit ARM Linux, 32-bit Windows)
 * are dropped with the platforms the manifest does not claim.
 */
export const PREBUILDS = ['darwin-x64+arm64', 'linux-x64', 'linux-arm64', 'win32-x64', 'win32-arm64'];
/** What the manifest claims; each has its prebuilds above. */
export const PLATFORMS = ['darwin', 'linux', 'win32'];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: windows, ...options });
  if (result.status !== 0) {
    say(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
  return result;
}

if (!distIsFresh(root)) {
  say('building dist/ (npm run build)');
  run('npm', ['run', 'build', '--silent']);
}
const work = mkdtempSync(join(tmpdir(), 'jl-mcpb-'));
try {
  // The files `npm publish` would send: dist, README, LICENSE, server.json, package.json.
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
    cwd: root,
    encoding: 'utf8',
    shell: windows,
  });
  if (packed.status !== 0) {
    say(`npm pack failed: ${packed.stderr}`);
    process.exit(1);
  }
  const tarball = join(work, packed.stdout.trim().split('\n').at(-1));
  const bundle = join(work, 'bundle');
  mkdirSync(bundle);
  run('tar', ['-xzf', tarball, '-C', bundle, '--strip-components=1']);
  writeFileSync(join(bundle, 'package-lock.json'), readFileSync(join(root, 'package-lock.json')));
  say('installing the production dependencies (npm ci --omit=dev --ignore-scripts)');
  run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: bundle,
  });
  const prebuilds = join(bundle, 'node_modules', '@serialport', 'bindings-cpp', 'prebuilds');
  for (const name of readdirSync(prebuilds)) {
    if (!PREBUILDS.includes(name)) rmSync(join(prebuilds, name), { recursive: true, force: true });
  }
  const missing = PREBUILDS.filter((name) => !readdirSync(prebuilds).includes(name));
  if (missing.length > 0) {
    say(`@serialport/bindings-cpp has no prebuilds for ${missing.join(', ')}: the bundle would fail there`);
    process.exit(1);
  }
  const pkg = JSON.parse(readFileSync(join(bundle, 'package.json'), 'utf8'));
  const { catalog } = await import(pathToFileURL(join(bundle, 'dist', 'tools', 'index.js')).href);
  writeFileSync(join(bundle, 'manifest.json'), `${JSON.stringify(manifest(pkg, catalog), null, 2)}\n`);

  const mcpb = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
  run(process.execPath, [mcpb, 'validate', join(bundle, 'manifest.json')]);
  rmSync(out, { force: true });
  run(process.execPath, [mcpb, 'pack', bundle, out]);
  say(`${out}: ${statSync(out).size} bytes (${countFiles(bundle)} files unpacked)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The manifest (MCPB manifest_version 0.3, what @anthropic-ai/mcpb 2.1.2 validates). */
function manifest(pkg, tools) {
  const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  return {
    manifest_version: '0.3',
    name: pkg.name,
    display_name: 'Jumperless V5',
    version: pkg.version,
    description: pkg.description,
    long_description:
      'Wire, power, measure and script a Jumperless V5 breadboard from a chat: typed tools over the board\'s MicroPython REPL, with voltages checked against the board\'s limits before anything is sent. With no board plugged in, set the board to "sim" to try everything on the virtual Jumperless V5.',
    author: { name: 'jumperless-mcp contributors', url: pkg.homepage.replace(/#.*$/, '') },
    repository: { type: 'git', url: repository },
    homepage: pkg.homepage,
    documentation: pkg.homepage,
    support: pkg.bugs.url,
    license: pkg.license,
    keywords: pkg.keywords,
    server: {
      type: 'node',
      entry_point: 'dist/cli/main.js',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/dist/cli/main.js'],
        // Every flag has a JUMPERLESS_MCP_* variable (src/cli/config.ts); an empty one is unset.
        env: {
          JUMPERLESS_MCP_DEVICE: '${user_config.device}',
          JUMPERLESS_MCP_MAX_VOLTS: '${user_config.max_volts}',
          JUMPERLESS_MCP_MIN_VOLTS: '${user_config.min_volts}',
          JUMPERLESS_MCP_CONFIRM: '${user_config.confirm}',
        },
      },
    },
    tools: tools.map((tool) => ({ name: tool.name, description: firstSentence(tool.description) })),
    tools_generated: false,
    compatibility: {
      platforms: PLATFORMS,
      runtimes: { node: `${pkg.engines.node.replace(/^>=\s*/, '>=')}.0.0` },
    },
    user_config: {
      device: {
        type: 'string',
        title: 'Board',
        description:
          'auto finds the Jumperless on USB; or its serial port (COM5, /dev/ttyACM2, /dev/cu.usbmodem...), tcp://host:port, or sim for the virtual board',
        default: 'auto',
        required: false,
      },
      max_volts: {
        type: 'number',
        title: 'Highest supply voltage',
        description: 'The most any tool may set a supply to, in volts (the board allows up to +8 V)',
        default: 8,
        min: -8,
        max: 8,
        required: false,
      },
      confirm: {
        type: 'string',
        title: 'Ask before hazards',
        description:
          'hazards: ask you before a supply above 5 V, clearing the board, overwriting a slot or file, or running code; always: the same, and refuse when Claude cannot ask; never: do not ask',
        default: 'hazards',
        required: false,
      },
      min_volts: {
        type: 'number',
        title: 'Lowest supply voltage',
        description: 'The least any tool may set a supply to, in volts (the board allows down to -8 V)',
        default: -8,
        min: -8,
        max: 8,
        required: false,
      },
    },
  };
}

function firstSentence(text) {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

function countFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (n, entry) => n + (entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1),
    0,
  );
}
