/** The real CLI over stdio (`jumperless-mcp --sim`) with the SDK Client, and raw stdout checks. */

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientConfigs } from '../../src/cli/clientConfigs.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/** StdioClientTransport passes only a few variables unless told (mcp notes §2.7 #10). */
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: 'e2e-stdio', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, ...args],
      cwd: ROOT,
      env: ENV,
      stderr: 'pipe',
    }),
  );
  return client;
}

describe('MCP over stdio', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(['--sim', '--max-volts', '3.3']);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists tools and calls power_get and dac_set on the virtual board', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['power_get', 'dac_set']));
    const set = await client.callTool({ name: 'dac_set', arguments: { channel: 'DAC1', volts: 2.5 } });
    expect(set.structuredContent).toMatchObject({ channel: 'DAC1', volts: 2.5 });
    const get = await client.callTool({ name: 'power_get', arguments: {} });
    expect(get.structuredContent).toMatchObject({ dac1_volts: 2.5 });
  });

  it('refuses a voltage past the operator limit as a tool error', async () => {
    const result = await client.callTool({ name: 'dac_set', arguments: { channel: 'TOP_RAIL', volts: 5 } });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toMatchObject({
      code: 'unsafe_voltage',
      retryable: false,
    });
  });

  it('lists python_exec, the escape hatch, for the operator (who holds jumperless.exec), and runs it', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('python_exec');
    const result = await client.callTool({ name: 'python_exec', arguments: { code: 'print(6 * 7)' } });
    expect(result.isError).toBeUndefined();
    expect(JSON.stringify(result.structuredContent)).toMatch(/42/);
  });
});

describe('toolsets over stdio', () => {
  it('serves the toolsets asked for, and toolset_enable adds one with tools/list_changed', async () => {
    const client = await connect(['--sim', '--toolsets', 'measure', '--exclude-tools', 'voltage_sweep']);
    try {
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', async () => {
        changed++;
      });
      const before = (await client.listTools()).tools.map((t) => t.name);
      expect(before).toEqual(['toolset_enable', 'voltage_measure', 'current_measure', 'resistance_measure']);
      const refused = await client.callTool({ name: 'power_get', arguments: {} }).then(
        () => undefined,
        (error: unknown) => error as { code?: number; message?: string },
      );
      expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/toolset power/) });
      await client.callTool({ name: 'toolset_enable', arguments: { toolset: 'power' } });
      await expect.poll(() => changed, { timeout: 5000 }).toBe(1);
      const after = (await client.listTools()).tools.map((t) => t.name);
      expect(after).toEqual(expect.arrayContaining(['power_get', 'dac_set', 'wavegen_configure']));
      expect(after).not.toContain('voltage_sweep');
      const get = await client.callTool({ name: 'power_get', arguments: {} });
      expect(get.isError).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

/** Runs the CLI to its exit; its code, stdout and stderr. */
async function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    env: ENV,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
  return { code, stdout, stderr };
}

describe('the stdio setup start prints', () => {
  it('runs as pasted, from any folder: node and absolute paths, no unpublished package', async () => {
    const printed = clientConfigs('http://127.0.0.1:8931/mcp');
    // The last block: between the "over stdio instead" line and the "--sim" hint, indented by two.
    const block = printed
      .slice(
        printed.indexOf('(this machine):\n') + '(this machine):\n'.length,
        printed.lastIndexOf('\n  (add'),
      )
      .replace(/^ {2}/gm, '');
    const snippet = JSON.parse(block) as { mcpServers: { jumperless: { command: string; args: string[] } } };
    const { command, args } = snippet.mcpServers.jumperless;
    expect(command).toBe(process.execPath);
    expect(printed).not.toMatch(/npx -y jumperless-mcp|"jumperless-mcp"\]/);
    const client = new Client({ name: 'pasted', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command,
        args: [...args, '--sim'],
        cwd: tmpdir(),
        env: ENV,
        stderr: 'ignore',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('power_get');
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('jumperless-mcp exec', () => {
  it('prints what the code printed and exits 0; a Python error: its traceback on stderr, exit 1', async () => {
    const ok = await runToExit(['exec', '--device', 'sim', 'print(6 * 7)']);
    expect(ok).toMatchObject({ code: 0, stdout: '42\n' });
    const failed = await runToExit(['exec', '--device', 'sim', 'x = 1\n1/0']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toBe(
      'Traceback (most recent call last):\n  File "<stdin>", line 2, in <module>\nZeroDivisionError: divide by zero\n',
    );
    const none = await runToExit(['exec', '--device', 'sim']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give the code as an argument, or --file F, or --stdin/);
  }, 30_000);
});

describe('start-up errors', () => {
  it('says in one line that an HTTP port asked for is taken, and exits 1', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const { port } = holder.address() as AddressInfo;
    try {
      const run = await runToExit(['--sim', '--http', `127.0.0.1:${port}`]);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        `jumperless-mcp: 127.0.0.1:${port} is already in use (another jumperless-mcp?): stop it, or choose another port`,
      ]);
      const start = await runToExit(['start', '--port', String(port)]);
      expect(start.code).toBe(1);
      expect(start.stderr).toContain(`127.0.0.1:${port} is already in use`);
    } finally {
      holder.close();
    }
  });

  it('refuses a serial device that does not exist at once, in one line, exit 1', async () => {
    const run = await runToExit(['--device', '/dev/ttyNOPE']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/\/dev\/ttyNOPE: no such device\./),
    ]);
  });
});

describe('stdio discipline', () => {
  it('writes only JSON-RPC to stdout, answers work in flight after stdin closes, then exits 0', async () => {
    const child = spawn(process.execPath, [...CLI, '--sim'], {
      cwd: ROOT,
      env: ENV,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    await expect.poll(() => stdout.includes('"id":1'), { timeout: 15_000 }).toBe(true);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope', arguments: {} } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'power_get', arguments: {} } });
    // What the SDK alone dropped (the client waited out its timeout) or answered with a schema dump.
    send({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: [] });
    send({ jsonrpc: '2.0', id: 6, method: 'tools/list', params: 'x' });
    send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'power_get', arguments: [] } });
    send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'power_get', arguments: null } });
    child.stdin.write('{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":NaN}}\n');
    child.stdin.write('{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":Infinity}}\n');
    send({ jsonrpc: '2.0', id: 11, method: 'ping' });
    child.stdin.end(); // EOF with calls still in flight
    expect(await exited).toBe(0);
    const lines = stdout.split('\n').filter((line) => line !== '');
    const messages = lines.map(
      (line) => JSON.parse(line) as { jsonrpc: string; id?: number; error?: { code: number } },
    );
    for (const message of messages) expect(message.jsonrpc).toBe('2.0');
    const answers = messages.filter((m) => m.id !== undefined && m.id !== null);
    expect(answers.map((m) => m.id).sort((a, b) => Number(a) - Number(b))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 11,
    ]);
    expect(messages.find((m) => m.id === 3)?.error?.code).toBe(-32602);
    for (const id of [5, 6, 7, 8])
      expect(messages.find((m) => m.id === id)?.error?.code, `id ${id}`).toBe(-32602);
    // A line that is not JSON has no id to answer with: -32700 with a null id, one per line.
    expect(messages.filter((m) => m.id === null).map((m) => m.error?.code)).toEqual([-32700, -32700]);
    expect(JSON.stringify(messages.find((m) => m.id === 4))).toMatch(/dac0_volts/);
  });
});

/** Resident memory of a process in bytes (Linux /proc), or undefined where there is none. */
function residentBytes(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

describe('the stdin line cap', () => {
  it('ends the connection at a line past 10 MiB without a newline, holding no more of it than that', async () => {
    const child = spawn(process.execPath, [...CLI, '--sim'], {
      cwd: ROOT,
      env: ENV,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdin.on('error', () => {}); // EPIPE once the server has closed the connection
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      })}\n`,
    );
    await expect.poll(() => stdout.includes('"id":1'), { timeout: 15_000 }).toBe(true);
    const pid = child.pid as number;
    const before = residentBytes(pid);
    let peak = before ?? 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentBytes(pid) ?? 0);
    }, 10);
    // 64 MiB of one line, never ended; the server must stop reading it at its cap.
    const chunk = Buffer.alloc(1 << 20, 'x');
    let written = 0;
    let running = true;
    void exited.then(() => {
      running = false;
    });
    while (running && written < 64) {
      if (!child.stdin.write(chunk)) await new Promise((done) => setTimeout(done, 5));
      written++;
    }
    expect(await exited).toBe(1);
    clearInterval(sampler);
    expect(stderr).toMatch(/a line on stdin is longer than 10485760 bytes; closing the connection/);
    // The old reader kept the whole line as a string: 64 MiB more at least.
    if (before !== undefined) expect(peak - before).toBeLessThan(40 * (1 << 20));
  }, 60_000);
});
