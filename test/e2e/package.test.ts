/**
 * The package as a user gets it: `npm pack` (which builds), installed from the tarball into a
 * temporary prefix, and its `jumperless-mcp` bin run from another folder against the virtual
 * board the same bin starts, over TCP and over a pty, with a PATH that has node and python3 but
 * no socat (the pty parts skip, saying why, where python3 is missing too).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'jl-package-'));
const prefix = join(work, 'prefix');
const bin = join(prefix, 'node_modules', '.bin', 'jumperless-mcp');
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
let ports: { tcpRepl: string; tcpMain: string; ptyRepl: string | undefined } = {
  tcpRepl: '',
  tcpMain: '',
  ptyRepl: undefined,
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

function run(
  args: string[],
  options: { command?: string; input?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.command ?? bin, options.command ? args : args, {
      cwd: work,
      env: env(),
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
  execFileSync(
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
    { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  // Two virtual boards: one reached over TCP, one over its ptys (a port takes one host at a time,
  // as a USB port does, and the pty bridge is that host for the second board).
  const [tcpBoard, ptyBoard] = await Promise.all([
    startSim([]),
    PTY_SKIP ? Promise.resolve('') : startSim(['--pty', join(work, 'ptys')]),
  ]);
  const line = (text: string, role: string) => text.split('\n').find((l) => l.includes(role)) ?? '';
  ports = {
    tcpRepl: /tcp:\/\/\S+/.exec(line(tcpBoard, 'CDC2'))?.[0] ?? '',
    tcpMain: /tcp:\/\/\S+/.exec(line(tcpBoard, 'CDC0'))?.[0] ?? '',
    ptyRepl: PTY_SKIP ? undefined : line(ptyBoard, 'CDC2').trim().split(/\s+/).at(-1),
  };
}, 240_000);

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
