/**
 * The package as a user gets it: `npm pack` (which builds), installed from the tarball into a
 * temporary prefix, and its `jumperless-mcp` bin run from another folder against the virtual
 * board the same bin starts, over TCP and over a pty, with a PATH that has node and python3 but
 * no socat (the pty parts skip, saying why, where python3 is missing too). Also the two other ways
 * in (issue 24): `npm run setup` from this checkout into a temporary prefix, and the Claude Desktop
 * bundle of `npm run build:mcpb`, unpacked and run as a host runs it. The README's first lines
 * run as printed with both `jumperless-mcp`s.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
/** The official MCP Bundle tool (a dev dependency): what validated and packed the bundle. */
const MCPB_CLI = join(repo, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const work = mkdtempSync(join(tmpdir(), 'jl-package-'));
const prefix = join(work, 'prefix');
const bin = join(prefix, 'node_modules', '.bin', 'jumperless-mcp');
/** Where `npm run setup` links the checkout's `jumperless-mcp` (its npm_config_prefix). */
const setupPrefix = join(work, 'setup');
const bundleFile = join(work, 'jumperless-mcp.mcpb');
const bundle = join(work, 'bundle');
const home = join(work, 'home');
/** node and python3, and nothing else: socat is not there. */
const pathDir = join(work, 'path');
const python3 = realPython();
const PTY_SKIP = python3 ? undefined : 'python3 is not on PATH, so the tarball test has no pty';
if (PTY_SKIP) process.stderr.write(`skipping the package's pty tests: ${PTY_SKIP}\n`);

let tarball = '';
const sims: ChildProcess[] = [];

/** Starts `jumperless-mcp sim` from the installed bin; what it prints about its ports. */
function startSim(args: string[]): Promise<string> {
  const sim = spawn(bin, ['sim', ...args], { cwd: work, env: env(), stdio: ['pipe', 'pipe', 'inherit'] });
  sims.push(sim);
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sim did not start: ${text}`)), 60_000);
    sim.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('Try:')) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    sim.on('exit', (code) => reject(new Error(`sim exited ${code}: ${text}`)));
  });
}
let ports: { tcpRepl: string; tcpMain: string; ptyRepl: string | undefined; ptyBoardTcpRepl: string } = {
  tcpRepl: '',
  tcpMain: '',
  ptyRepl: undefined,
  ptyBoardTcpRepl: '',
};

/** The python3 binary itself: a wrapper (a pyenv shim is a bash script) needs more than this PATH has. */
function realPython(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !existsSync(join(dir, 'python3'))) continue;
    try {
      return execFileSync(
        join(dir, 'python3'),
        ['-c', 'import os, sys; print(os.path.realpath(sys.executable))'],
        {
          encoding: 'utf8',
        },
      ).trim();
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const env = () => ({ HOME: home, PATH: pathDir, XDG_RUNTIME_DIR: join(work, 'run') });

/** Runs a command to its end; rejects with its output when it fails. Resolves with its stdout and stderr. */
function exec(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd: options.cwd ?? work, env: options.env ?? process.env, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
        else resolve(`${stdout}${stderr}`);
      },
    );
  });
}

function run(
  args: string[],
  options: { command?: string; input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command ?? bin, options.command ? args : args, {
      cwd: options.cwd ?? work,
      env: { ...env(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

beforeAll(async () => {
  mkdirSync(pathDir, { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(join(work, 'run'), { recursive: true, mode: 0o700 });
  symlinkSync(process.execPath, join(pathDir, 'node'));
  if (python3) symlinkSync(python3, join(pathDir, 'python3'));
  // prepack builds dist from the sources, so the tarball is what `npm publish` would send.
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
    cwd: repo,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  tarball = join(work, packed.trim().split('\n').at(-1) as string);
  // The three ways in need only dist/ (built by the pack above) and not each other: side by side.
  const bundled = async () => {
    // build:mcpb reports on stdout and stderr; both are kept for the error below.
    const built = await exec('npm', ['run', 'build:mcpb', '--silent', '--', '--out', bundleFile], {
      cwd: repo,
    });
    if (!existsSync(bundleFile)) throw new Error(`npm run build:mcpb made no bundle: ${built}`);
    await exec(process.execPath, [MCPB_CLI, 'unpack', bundleFile, bundle]);
  };
  await Promise.all([
    exec(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--loglevel=error',
        tarball,
      ],
      { cwd: work },
    ),
    // The checkout's own way in: it finds dist/ fresh and links it.
    exec('npm', ['run', 'setup', '--silent'], {
      cwd: repo,
      env: { ...process.env, npm_config_prefix: setupPrefix },
    }),
    bundled(),
  ]);
  // Two virtual boards: one reached over TCP, one over its ptys (and its TCP URL).
  const [tcpBoard, ptyBoard] = await Promise.all([
    startSim([]),
    PTY_SKIP ? Promise.resolve('') : startSim(['--pty', join(work, 'ptys')]),
  ]);
  const line = (text: string, role: string) => text.split('\n').find((l) => l.includes(role)) ?? '';
  ports = {
    tcpRepl: /tcp:\/\/\S+/.exec(line(tcpBoard, 'CDC2'))?.[0] ?? '',
    tcpMain: /tcp:\/\/\S+/.exec(line(tcpBoard, 'CDC0'))?.[0] ?? '',
    ptyRepl: PTY_SKIP ? undefined : line(ptyBoard, 'CDC2').trim().split(/\s+/).at(-1),
    // The same board's URL: a port takes one host at a time, whichever way it comes in.
    ptyBoardTcpRepl: /tcp:\/\/\S+/.exec(line(ptyBoard, 'CDC2'))?.[0] ?? '',
  };
}, 480_000);

afterAll(() => {
  for (const sim of sims) sim.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('ships the built entry, LICENSE and server.json, no sources and no source maps', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(files).toEqual(
      expect.arrayContaining(['package/LICENSE', 'package/server.json', 'package/dist/cli/main.js']),
    );
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(
      files.filter(
        (f) => /^package\/(src|test|bench)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
    const installed = join(prefix, 'node_modules', 'jumperless-mcp');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const server = JSON.parse(readFileSync(join(installed, 'server.json'), 'utf8'));
    // What the MCP registry checks: the name matches mcpName, versions match, a short description.
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.packages[0]).toMatchObject({
      registryType: 'npm',
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: 'stdio' },
    });
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.$schema).toMatch(
      /^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\/server\.schema\.json$/,
    );
    expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\//);
  });

  it('prints a stdio setup whose command runs from anywhere', async () => {
    const { code, stdout } = await run(['config', 'claude-desktop']);
    expect(code).toBe(0);
    const server = JSON.parse(stdout).mcpServers.jumperless;
    expect(server.command).toBe(process.execPath);
    expect(server.args[0]).toBe(join(prefix, 'node_modules', 'jumperless-mcp', 'dist', 'cli', 'main.js'));
    const version = await run([...server.args, '--version'], { command: server.command });
    expect(version.stdout.trim()).toBe('0.1.0');
    const tools = await run(['tools']);
    expect(tools.stdout).toMatch(/^state_get +jumperless\.read /m);
  });
});

describe('the installed CLI against the virtual board', () => {
  it('exec over TCP: the output, exit 1 with the traceback on a Python error, 2 without code', async () => {
    const ok = await run(['exec', '--device', ports.tcpRepl, 'print(6 * 7)']);
    expect(ok).toMatchObject({ code: 0, stdout: '42\n' });
    const failed = await run(['exec', '--device', ports.tcpRepl, 'print("before")\n1/0']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('before\n');
    expect(failed.stderr).toMatch(/ZeroDivisionError/);
    const stdin = await run(['exec', '--device', ports.tcpRepl, '--stdin'], { input: 'print("from stdin")' });
    expect(stdin).toMatchObject({ code: 0, stdout: 'from stdin\n' });
    const none = await run(['exec', '--device', ports.tcpRepl]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give the code as an argument, or --file F, or --stdin/);
  }, 60_000);

  it.skipIf(PTY_SKIP !== undefined)(
    'call, state and exec over the pty',
    async () => {
      const set = await run([
        'call',
        'dac_set',
        '--device',
        ports.ptyRepl as string,
        '--args',
        '{"channel":"DAC1","volts":2.5}',
      ]);
      expect(set.code).toBe(0);
      const state = await run(['state', '--json', '--device', ports.ptyRepl as string]);
      expect(state.code).toBe(0);
      expect(JSON.parse(state.stdout).power.dac1).toBe(2.5);
      const exec = await run(['exec', '--device', ports.ptyRepl as string, 'print(1 + 1)']);
      expect(exec).toMatchObject({ code: 0, stdout: '2\n' });
    },
    60_000,
  );

  it('doctor names the menu port as not the REPL, and the missing socat', async () => {
    const menu = await run(['doctor', '--device', ports.tcpMain]);
    expect(menu.code).toBe(1);
    expect(menu.stdout).toMatch(/^FAIL {2}tcp:\/\/\S+ answers, but not as a MicroPython raw REPL/m);
    expect(menu.stdout).toMatch(/fix: the REPL is CDC2, USB interface 4/);
    const good = await run(['doctor', '--json', '--device', ports.tcpRepl]);
    expect(good.code).toBe(0);
    const findings = JSON.parse(good.stdout).findings as Array<{
      check: string;
      severity: string;
      message: string;
    }>;
    expect(findings.find((f) => f.check === 'repl')).toMatchObject({ severity: 'ok' });
    expect(findings.find((f) => f.check === 'pty_helpers')?.message).toBe(
      PTY_SKIP
        ? expect.stringMatching(/neither socat nor python3/)
        : 'virtual ptys for sim --pty: python3 (no socat)',
    );
  }, 60_000);

  it.skipIf(PTY_SKIP !== undefined)(
    'draws progress in place on a terminal and as lines on a pipe',
    async () => {
      writeFileSync(join(work, 'p.bin'), Buffer.alloc(40 * 1024, 7));
      const piped = await run(['fs', 'put', 'p.bin', '/p.bin', '--device', ports.tcpRepl]);
      expect(piped.code).toBe(0);
      expect(piped.stderr).toMatch(/^put \/p\.bin: 40960\/40960 \(100%\)$/m);
      expect(piped.stderr).not.toMatch(/[\r\x1b]/);
      // The same command with a terminal on its stdout and stderr (Python's pty module).
      const spawnInPty = 'import pty, sys\nsys.exit(pty.spawn(sys.argv[1:]) >> 8)';
      const tty = await run(
        ['-c', spawnInPty, bin, 'fs', 'put', 'p.bin', '/p.bin', '--overwrite', '--device', ports.tcpRepl],
        {
          command: join(pathDir, 'python3'),
        },
      );
      expect(tty.code).toBe(0);
      expect(tty.stdout).toMatch(/\rput \/p\.bin \[#+\.*\] \d+%\x1b\[K/);
      expect(tty.stdout).toContain('\r\x1b[K');
      expect(tty.stdout).not.toMatch(/^put \/p\.bin: \d+\/\d+/m);
    },
    60_000,
  );
});

/** The lines of the README's "Try it without a board" block, comments off. */
function readmeFirstLines(): string[] {
  const text = readFileSync(join(repo, 'README.md'), 'utf8');
  const block = /### Try it without a board\n\n```sh\n([\s\S]*?)```/.exec(text)?.[1];
  if (!block) throw new Error('the README has no "Try it without a board" block');
  return block
    .split('\n')
    .map((line) => line.replace(/\s+# .*$/, '').trim())
    .filter(Boolean);
}

describe("the README's first lines (issue 24: jumperless-mcp on the PATH, from an install and from a checkout)", () => {
  it('puts jumperless-mcp on the PATH with npm run setup, linked to this checkout', () => {
    const linked = join(setupPrefix, 'bin', 'jumperless-mcp');
    expect(realpathSync(linked)).toBe(join(repo, 'dist', 'cli', 'main.js'));
  });

  for (const [where, binDir] of [
    ['installed', () => join(prefix, 'node_modules', '.bin')],
    ['from the checkout', () => join(setupPrefix, 'bin')],
  ] as const) {
    it(`run as printed with the jumperless-mcp ${where}`, async () => {
      const lines = readmeFirstLines();
      expect(lines.length).toBeGreaterThanOrEqual(5);
      const cwd = mkdtempSync(join(work, 'readme-'));
      for (const line of lines) {
        expect(line.startsWith('jumperless-mcp ')).toBe(true);
        const ran = await run(['-c', line], {
          command: '/bin/sh',
          env: { PATH: `${binDir()}${delimiter}${pathDir}` },
          cwd,
        });
        expect(ran, `${line}\n${ran.stderr}`).toMatchObject({ code: 0 });
        expect(ran.stdout, line).not.toBe('');
        if (line.includes("exec --sim 'print(1 + 1)'")) expect(ran.stdout).toBe('2\n');
      }
      expect(readFileSync(join(cwd, 'board.png')).subarray(1, 4).toString()).toBe('PNG');
    }, 180_000);
  }
});

describe('the installed CLI, as a new user meets it (issue 24)', () => {
  it('runs exec on the virtual board however it is asked for', async () => {
    for (const [args, extra] of [
      [['--sim', 'exec', 'print(1 + 2)'], {}],
      [['--device', 'sim', 'exec', 'print(1 + 2)'], {}],
      [['exec', '--sim', 'print(1 + 2)'], {}],
      [['exec', 'print(1 + 2)'], { JUMPERLESS_MCP_DEVICE: 'sim' }],
    ] as const) {
      const ran = await run([...args], { env: extra });
      expect(ran, args.join(' ')).toMatchObject({ code: 0, stdout: '3\n' });
    }
  }, 120_000);

  it('says in one line why exec found no board, naming flags that exist', async () => {
    const none = await run(['exec', 'print(1)']);
    expect(none.code).toBe(1);
    expect(none.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(none.stderr).toMatch(/no Jumperless V5 found .* --sim/);
    const missing = await run(['exec', '--device', join(work, 'ttyNONE'), 'print(1)']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trimEnd().split('\n')).toHaveLength(1);
  }, 60_000);

  it('exits 2 on a mistyped flag or command, a missing --file, bad --caps, naming the nearest command', async () => {
    const typo = await run(['exce', 'print(1)']);
    expect(typo).toMatchObject({ code: 2, stdout: '' });
    expect(typo.stderr).toBe("jumperless-mcp: unknown command 'exce' (did you mean exec?)\n");
    const flag = await run(['exec', '--sim', '--bogus', 'print(1)']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--bogus'/);
    const file = await run(['exec', '--sim', '--file', 'nope.py']);
    expect(file).toMatchObject({ code: 2, stderr: 'jumperless-mcp exec: --file nope.py: no such file\n' });
    const caps = await run(['tokens', 'create', '--caps', 'jumperless.bogus']);
    expect(caps.code).toBe(2);
    expect(caps.stderr).toMatch(/^jumperless-mcp: --caps: unknown capability jumperless\.bogus/);
    const noArg = await run(['call']);
    expect(noArg.code).toBe(2);
    expect(noArg.stderr).toMatch(/missing required argument 'tool'/);
  }, 60_000);

  it("refuses exec as call python_exec is refused when the operator's grant leaves out jumperless.exec", async () => {
    const grant = { JUMPERLESS_MCP_GRANT: 'jumperless.read' };
    const exec = await run(['exec', '--sim', 'print(1)'], { env: grant });
    expect(exec).toMatchObject({ code: 2, stdout: '' });
    expect(exec.stderr).toMatch(/refused: running Python needs jumperless\.exec/);
    const call = await run(['call', 'python_exec', '--sim', '--args', '{"code": "print(1)"}'], {
      env: grant,
    });
    expect(call.code).toBe(2);
  }, 60_000);

  it('stops at once, in one line, on a parts file that is missing or malformed', async () => {
    writeFileSync(join(work, 'bad-parts.json'), '{"parts": [{"kind": "resistor"}]}');
    const server = await run(['--sim', 'no-such-parts.json']);
    expect(server).toMatchObject({ code: 2, stdout: '' });
    expect(server.stderr).toBe('jumperless-mcp: parts file no-such-parts.json: no such file\n');
    const command = await run(['exec', '--device', 'sim:bad-parts.json', 'print(1)']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/^jumperless-mcp: parts file bad-parts\.json refused: /);
    expect(command.stderr.trimEnd().split('\n')).toHaveLength(1);
  }, 60_000);

  it("shows a tool's arguments: tools TOOL, help call TOOL, tools --json with the input schemas", async () => {
    const tools = await run(['tools', 'dac_set']);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/^ {2}\* volts +number, -8 to 8/m);
    const help = await run(['help', 'call', 'dac_set']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: jumperless-mcp call \[options\] <tool>/);
    expect(help.stdout).toContain(tools.stdout);
    const json = await run(['tools', '--json']);
    const dacSet = JSON.parse(json.stdout).tools.find((t: { name: string }) => t.name === 'dac_set');
    expect(dacSet.inputSchema.properties.volts).toMatchObject({ minimum: -8, maximum: 8 });
  }, 60_000);

  it.skipIf(PTY_SKIP !== undefined)(
    "reaches a `sim --pty` board through its printed tcp:// URL on every call, the pty's too",
    async () => {
      for (let i = 0; i < 6; i++) {
        const viaTcp = await run(['exec', '--device', ports.ptyBoardTcpRepl, `print(${i})`]);
        expect(viaTcp, `call ${i} over ${ports.ptyBoardTcpRepl}`).toMatchObject({
          code: 0,
          stdout: `${i}\n`,
        });
        if (i === 2) {
          const viaPty = await run(['exec', '--device', ports.ptyRepl as string, 'print("pty")']);
          expect(viaPty).toMatchObject({ code: 0, stdout: 'pty\n' });
        }
      }
    },
    120_000,
  );
});

describe('the Claude Desktop bundle (npm run build:mcpb)', () => {
  const manifest = () => JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));

  it('holds the package, its production dependencies and a valid manifest; no dev dependencies, no tests', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    execFileSync(process.execPath, [MCPB_CLI, 'validate', join(bundle, 'manifest.json')], {
      stdio: 'ignore',
    });
    expect(manifest()).toMatchObject({ name: pkg.name, version: pkg.version, server: { type: 'node' } });
    for (const dependency of Object.keys(pkg.dependencies)) {
      expect(existsSync(join(bundle, 'node_modules', dependency, 'package.json')), dependency).toBe(true);
    }
    for (const dependency of Object.keys(pkg.devDependencies)) {
      expect(existsSync(join(bundle, 'node_modules', dependency)), dependency).toBe(false);
    }
    expect(readdirSync(bundle).sort()).toEqual(
      ['LICENSE', 'README.md', 'dist', 'manifest.json', 'node_modules', 'package.json', 'server.json'].sort(),
    );
    const files = execFileSync('find', [bundle, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
    expect(
      files.filter(
        (f) =>
          /\.test\.[jt]s$|\/(src|test|bench)\//.test(f.slice(bundle.length)) && !f.includes('/node_modules/'),
      ),
    ).toEqual([]);
    // The size the README gives, to the MB.
    const size = statSync(bundleFile).size;
    const said = /`jumperless-mcp\.mcpb` \(about (\d+) MB\)/.exec(
      readFileSync(join(repo, 'README.md'), 'utf8'),
    )?.[1];
    expect(Number(said), `the bundle is ${size} bytes`).toBe(Math.round(size / 1_000_000));
    // Its tools are the server's.
    expect(manifest().tools.map((t: { name: string }) => t.name)).toEqual(
      JSON.parse(execFileSync(bin, ['tools', '--json'], { encoding: 'utf8', env: env() })).tools.map(
        (t: { name: string }) => t.name,
      ),
    );
  });

  it('carries serialport bindings that node-gyp-build finds on Windows x64, macOS x64 and arm64, Linux x64 and arm64', () => {
    const bindings = join(bundle, 'node_modules', '@serialport', 'bindings-cpp');
    const nodeGypBuild = join(bundle, 'node_modules', 'node-gyp-build');
    // node-gyp-build reads the platform and arch a build is for from npm_config_platform/arch.
    const find = (platform: string, arch: string, libc = 'glibc') =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `process.stdout.write(require(${JSON.stringify(nodeGypBuild)}).path(${JSON.stringify(bindings)}))`,
        ],
        {
          encoding: 'utf8',
          env: { PATH: pathDir, npm_config_platform: platform, npm_config_arch: arch, LIBC: libc },
        },
      );
    const prebuilt = (folder: string) => expect.stringContaining(join(bindings, 'prebuilds', folder));
    expect(find('win32', 'x64')).toEqual(prebuilt('win32-x64'));
    expect(find('darwin', 'x64')).toEqual(prebuilt('darwin-x64+arm64'));
    expect(find('darwin', 'arm64')).toEqual(prebuilt('darwin-x64+arm64'));
    expect(find('linux', 'x64')).toEqual(prebuilt('linux-x64'));
    expect(find('linux', 'arm64')).toEqual(prebuilt('linux-arm64'));
    expect(find('linux', 'x64', 'musl')).toEqual(prebuilt('linux-x64'));
    expect(manifest().compatibility.platforms.sort()).toEqual(['darwin', 'linux', 'win32']);
    // And on this machine the binding loads (the package loads its native addon as it is required).
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        `const b = require(${JSON.stringify(bindings)}); console.log(typeof b.autoDetect().list, Object.keys(require.cache).find((f) => f.endsWith('.node')))`,
      ],
      { encoding: 'utf8', env: { PATH: pathDir } },
    );
    expect(loaded.trim()).toMatch(
      new RegExp(`^function ${join(bindings, 'prebuilds', `${process.platform}-`)}`),
    );
  });

  it("runs its server over stdio as a host does: the manifest's command and args, the user's settings, a tool call on the virtual board", async () => {
    const { getMcpConfigForManifest } = await import('@anthropic-ai/mcpb');
    const config = await getMcpConfigForManifest({
      manifest: manifest(),
      extensionPath: bundle,
      systemDirs: {},
      userConfig: { device: 'sim', max_volts: 3 },
      pathSeparator: '/',
    });
    if (!config) throw new Error('no MCP config for this manifest');
    expect(config.command).toBe('node');
    expect(config.args).toEqual([join(bundle, 'dist', 'cli', 'main.js')]);
    expect(config.env).toEqual({
      JUMPERLESS_MCP_DEVICE: 'sim',
      JUMPERLESS_MCP_MAX_VOLTS: '3',
      JUMPERLESS_MCP_MIN_VOLTS: '-8',
      // The confirmation policy's default: ask before a hazard when the host can ask.
      JUMPERLESS_MCP_CONFIRM: 'hazards',
    });
    // A host runs "node" with its own Node: here, this one, with nothing else on the PATH.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: config.args ?? [],
      env: { ...config.env, HOME: home, PATH: pathDir },
      cwd: home,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'mcpb-host', version: '0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(manifest().tools.map((t: { name: string }) => t.name));
      const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 2.5 } });
      expect(set.isError).toBeFalsy();
      expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 2.5 });
      // The user's limit holds: 3 V at most.
      const over = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 3.3 } });
      expect(over.isError).toBe(true);
      const state = await client.callTool({ name: 'power_get', arguments: {} });
      expect(JSON.stringify(state.structuredContent)).toContain('2.5');
    } finally {
      await client.close();
    }
  }, 120_000);
});
