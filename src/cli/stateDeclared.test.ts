/**
 * A known state between jobs (issue 26 item 3): `state diff|apply FILE` against a virtual board over
 * TCP, through the real app and tools, and once through the real command line in its own process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimBoard } from '../sim/index.js';
import type { StateSummary } from '../tools/boardState.js';
import { runCall } from './callCommand.js';
import { boardFingerprint, declaredFingerprint, parseDesiredState } from './desiredState.js';
import { runState, runStateDeclared } from './stateCommand.js';

let board: SimBoard;
let device: string;
const dir = mkdtempSync(join(tmpdir(), 'jl-declared-'));

beforeAll(async () => {
  board = await SimBoard.start();
  device = `tcp://127.0.0.1:${(await board.serveTcp()).repl}`;
}, 60_000);
afterAll(async () => {
  await board.stop();
  rmSync(dir, { recursive: true, force: true });
});

function io() {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) =>
    ({
      write: (chunk: string | Buffer) => {
        add(chunk.toString());
        return true;
      },
    }) as unknown as NodeJS.WritableStream;
  return {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    out: () => out,
    err: () => err,
  };
}

const BASELINE = {
  supplies: { top_rail: 5, bottom_rail: 3.3 },
  nets: [
    ['TOP_RAIL', 10],
    ['GND', '30', 'GPIO_2'],
  ],
  gpio: [{ pin: 1, direction: 'OUTPUT', level: 'HIGH' }],
  overlays: [{ name: 'ready', x_col: 1, y_row: 1, width: 2, height: 1, color: '#00ff00' }],
};

async function call(tool: string, args: unknown): Promise<void> {
  const out = io();
  const code = await runCall(tool, { device, args: JSON.stringify(args) }, out);
  expect(code, out.err()).toBe(0);
}

async function stateJson(): Promise<StateSummary & { fingerprint: string }> {
  const out = io();
  expect(await runState({ device, json: true }, out)).toBe(0);
  return JSON.parse(out.out());
}

describe('a declared state', () => {
  it('fingerprints a declaration the same whatever its key and net order', () => {
    const a = parseDesiredState(JSON.stringify(BASELINE));
    const b = parseDesiredState(
      JSON.stringify({
        overlays: BASELINE.overlays,
        gpio: BASELINE.gpio,
        nets: [
          ['GPIO_2', 30, 'GND'],
          [10, 'TOP_RAIL'],
        ],
        supplies: { bottom_rail: 3.3, top_rail: 5 },
      }),
    );
    expect(declaredFingerprint(b)).toBe(declaredFingerprint(a));
    const c = parseDesiredState(JSON.stringify({ ...BASELINE, nets: [['TOP_RAIL', 11], BASELINE.nets[1]] }));
    expect(declaredFingerprint(c)).not.toBe(declaredFingerprint(a));
    expect(() => parseDesiredState('{"nets":[["A99","1"]]}')).toThrow(/unknown node "A99"/);
    expect(() => parseDesiredState('{"power":{}}')).toThrow(/power/);
  });

  it('dirties the board, applies the baseline, and gets its fingerprint back', async () => {
    const file = join(dir, 'baseline.json');
    writeFileSync(file, JSON.stringify(BASELINE));

    const first = io();
    expect(
      await runStateDeclared('apply', file, { device, json: true }, first),
      first.err() + first.out(),
    ).toBe(0);
    const applied = JSON.parse(first.out());
    expect(applied).toMatchObject({ same: true, differences: [] });
    expect(applied.fingerprint).toBe(applied.declared_fingerprint);
    const baseline = (await stateJson()).fingerprint;
    expect(baseline).toBe(applied.fingerprint);

    // A job leaves bridges, a supply, a GPIO output, an overlay.
    await call('gpio_config', { pin: 1, direction: 'INPUT' });
    await call('connect', {
      pairs: [
        [20, 25],
        [25, 40],
      ],
    });
    await call('dac_set', { channel: 'DAC1', volts: 1.5 });
    await call('gpio_config', { pin: 3, direction: 'OUTPUT', level: 'HIGH' });
    await call('overlay_set', { name: 'job', x_col: 5, y_row: 2, width: 3, height: 2, color: '#ff0000' });
    const dirty = await stateJson();
    expect(dirty.fingerprint).not.toBe(baseline);

    const diff = io();
    expect(await runStateDeclared('diff', file, { device }, diff)).toBe(1);
    const said = diff.out();
    expect(said).toMatch(/supply dac1: 1\.50 V on the board, 0\.00 V declared/);
    expect(said).toMatch(/net 20,25,40: on the board, not declared/);
    expect(said).toMatch(/gpio 1: INPUT pull \w+ on the board, OUTPUT HIGH declared/);
    expect(said).toMatch(/gpio 3: OUTPUT HIGH on the board, INPUT pull down declared/);
    expect(said).toMatch(/overlay job 3x2 .*: on the board, not declared/);
    expect(said).toMatch(`differs: board ${dirty.fingerprint}, declared ${baseline}`);
    // diff changed nothing.
    expect((await stateJson()).fingerprint).toBe(dirty.fingerprint);

    const again = io();
    expect(await runStateDeclared('apply', file, { device }, again), again.err()).toBe(0);
    expect(again.out()).toMatch(`same: fingerprint ${baseline}`);
    expect((await stateJson()).fingerprint).toBe(baseline);
  }, 120_000);

  it('refuses a file that is not a declaration, with the field, before touching the board', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ nets: [['1', '2']], gpio: [{ pin: 9, direction: 'INPUT' }] }));
    const out = io();
    expect(await runStateDeclared('apply', file, { device: 'tcp://127.0.0.1:1' }, out)).toBe(2);
    expect(out.err()).toMatch(/bad\.json: gpio\.0\.pin/);
  });

  it('stops at a call the board refuses, saying what went before; the wiring stays as it was', async () => {
    const file = join(dir, 'short.json');
    writeFileSync(file, JSON.stringify({ supplies: { dac1: 0.5 }, nets: [['TOP_RAIL', 'GND']] }));
    const before = await stateJson();
    const out = io();
    expect(await runStateDeclared('apply', file, { device }, out)).toBe(1);
    expect(out.out()).toMatch(/applied: dac_set \{"channel":"DAC1","volts":0\.5\}/);
    expect(out.out()).not.toMatch(/state_set/);
    expect(out.err()).toMatch(/state apply/);
    const after = await stateJson();
    expect(after.power.dac1).toBe(0.5);
    expect(after.nets.map((n) => n.nodes)).toEqual(before.nets.map((n) => n.nodes));
  }, 60_000);

  it('runs as `jumperless-mcp state diff FILE` from the command line', async () => {
    const file = join(dir, 'cli.json');
    const now = await stateJson();
    writeFileSync(file, JSON.stringify({ ...BASELINE, supplies: { ...BASELINE.supplies, dac1: 2 } }));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'state', 'diff', file, '--device', device],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, err).toBe(1);
    expect(out).toMatch(/supply dac1: \d\.\d\d V on the board, 2\.00 V declared/);
    expect(out).toMatch(`differs: board ${now.fingerprint}, declared`);
    expect(boardFingerprint(now)).toBe(now.fingerprint);
  }, 60_000);
});
