/**
 * The behaviours where the tools used to be wrong on a real board, end to end: the real CLI over
 * stdio (`jumperless-mcp --sim`) driven by the SDK client, on a virtual board that follows the
 * firmware probes. One test per fixed behaviour, plus `selftest --device sim` as users run it.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

type Result = { structuredContent?: Record<string, unknown>; isError?: boolean; content?: unknown };

let client: Client;

async function call<T = Record<string, unknown>>(
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = (await client.callTool(
    { name, arguments: args },
    {
      timeout: 120_000,
    },
  )) as Result;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

const python = (code: string) =>
  call<{ ok: boolean; stdout: string; soft_reset: boolean }>('python_exec', { code });

type Bridge = { node1: string; node2: string; extra_parallel_paths: number };
const bridges = async () => (await call<{ bridges: Bridge[] }>('bridges_list')).bridges;
const pairsOf = (list: Bridge[]) => list.map((b) => `${b.node1}-${b.node2}`).sort();

beforeAll(async () => {
  client = new Client({ name: 'e2e-firmware-twin', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...CLI, '--sim'],
      cwd: ROOT,
      env: ENV,
      stderr: 'pipe',
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
});

describe('tools that are right on the firmware, through MCP', () => {
  it('switch then save keeps both slots right (switch_slot alone renumbers, and the next save wrote the old wiring over the target)', async () => {
    await call('nodes_clear');
    await call('connect', { pairs: [[10, 11]] });
    await call('slot_save', { slot: 0 });
    await call('slot_switch', { slot: 2 });
    await call('connect', { pairs: [[20, 21]] });
    await call('slot_save');
    expect(pairsOf(await bridges())).not.toContain('10-11');

    await call('slot_switch', { slot: 0 });
    const zero = pairsOf(await bridges());
    expect(zero).toContain('10-11');
    expect(zero).not.toContain('20-21');
    await call('slot_switch', { slot: 2 });
    const two = pairsOf(await bridges());
    expect(two).toContain('20-21');
    expect(two).not.toContain('10-11');
    await call('slot_switch', { slot: 0 });
  });

  it('after a soft reset from python_exec (the firmware re-imports only `from jumperless import *`), every tool group still works', async () => {
    for (const code of ['import sys\nsys.exit()', 'raise SystemExit']) {
      const reset = await python(code);
      expect(reset.soft_reset).toBe(true);
      expect((await python("print('jumperless' in globals())")).stdout).toBe('False\n');
      // One read-only tool per group file, each through the firmware-function check.
      await call('power_get');
      await call('gpio_get', { pin: 1 });
      await bridges();
      await call('current_measure', { window_ms: 0 });
      await call('overlay_list');
      await call('wavegen_status');
      await call('clickwheel_read');
      await call('slot_current');
      await call('state_get');
      await call('file_list', { path: '/' });
      await call('device_info');
      const oled = (await client.callTool({ name: 'oled_show', arguments: {} })) as Result;
      // The virtual board's OLED is not started, as a stock board's: a clear answer, not a failure of ours.
      expect(JSON.stringify(oled.content)).toMatch(oled.isError ? /no_display/ : /width/);
    }
  });

  it('sets, lists and clears overlays past the 4095 characters overlay_serialize() keeps', async () => {
    await call('overlay_clear');
    await call('overlay_set', {
      name: 'first',
      x_col: 1,
      y_row: 1,
      width: 30,
      height: 10,
      color: '#101010',
    });
    await call('overlay_set', {
      name: 'second',
      x_col: 1,
      y_row: 1,
      width: 30,
      height: 10,
      color: '#202020',
    });
    const serialized = await python('print(len(overlay_serialize()))');
    expect(serialized.stdout).toBe('4095\n');
    const listed = await call<{ overlays: Array<{ name: string; colors: string[] }> }>('overlay_list');
    expect(listed.overlays.map((o) => o.name).sort()).toEqual(['first', 'second']);
    expect(listed.overlays.every((o) => o.colors.length === 300)).toBe(true);
    await call('overlay_clear', { name: 'first' });
    expect((await call<{ overlays: unknown[] }>('overlay_list')).overlays).toHaveLength(1);
    await call('overlay_clear');
  });

  it('writes and reads back a 100 KB file through the tools, in 4 KB board jobs (the heap is 64 KB on 5.7.11)', async () => {
    expect((await python('import gc\nprint(gc.mem_free() + gc.mem_alloc())')).stdout).toBe('64000\n');
    const bytes = Buffer.alloc(100 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
    const written = await call<{ size_bytes: number }>('file_write', {
      path: '/big.bin',
      content: bytes.toString('base64'),
      encoding: 'base64',
      overwrite: true,
    });
    expect(written.size_bytes).toBe(bytes.length);
    // A read returns at most 32 KB (a result stays under 50 KB): the file comes back in parts.
    const parts: Buffer[] = [];
    for (let offset = 0, more = true; more; ) {
      const read = await call<{ content: string; read_bytes: number; truncated: boolean }>('file_read', {
        path: '/big.bin',
        offset_bytes: offset,
        max_bytes: 32768,
      });
      parts.push(Buffer.from(read.content, 'base64'));
      offset += read.read_bytes;
      more = read.truncated;
    }
    expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    await call('file_delete', { path: '/big.bin' });
  });

  it('state_set wires a net in one set_state, and net_set names it', async () => {
    const applied = await call<{
      applied: boolean;
      differences: string[];
      nets: Array<{ name: string; nodes: string[] }>;
    }>('state_set', { nets: [[30, '31']] });
    expect(applied).toMatchObject({ applied: true, differences: [] });
    expect(applied.nets.map((n) => n.nodes)).toContainEqual(['30', '31']);
    await call('net_set', { node: 30, name: 'signal' });
    const nets = await call<{ nets: Array<{ name: string; nodes: string[] }> }>('nets_list');
    expect(nets.nets.find((n) => n.nodes.includes('30'))?.name).toBe('signal');
    // The probe-power bridge survives clear_first.
    expect(pairsOf(await bridges())).toEqual(expect.arrayContaining([expect.stringMatching(/BUF|DAC/)]));
  });
});

describe('jumperless-mcp selftest --device sim', () => {
  it('passes every probe and reports in JSON, as a user with a board would run it', () => {
    const run = spawnSync(
      process.execPath,
      [
        ...CLI,
        'selftest',
        '--device',
        'sim',
        '--destructive',
        '--json',
        '--only',
        'repl',
        'slots.switch',
        'files.os',
      ],
      { cwd: ROOT, env: ENV, encoding: 'utf8', timeout: 240_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      firmware: string;
      summary: { passed: number; failed: number };
      checks: Array<{ id: string; ok: boolean; expected: string; got: string; source: string }>;
    };
    expect(report.firmware).toBe('5.7.11.0');
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(40);
    expect(report.checks.every((c) => c.ok && c.source.includes(':'))).toBe(true);
  }, 240_000);

  it('exits 1 with the reason when there is no board at the address', () => {
    const run = spawnSync(process.execPath, [...CLI, 'selftest', '--device', 'tcp://127.0.0.1:1'], {
      cwd: ROOT,
      env: ENV,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/127\.0\.0\.1:1/);
  }, 60_000);
});
