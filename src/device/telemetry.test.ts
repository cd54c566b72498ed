/**
 * The telemetry port (CDC3) as the board view reads it: the virtual board's backchannel, in process
 * and over its real pty found through a fake sysfs (no physical board can be plugged in here), the
 * REPL's session beside it. Answers are framed as the firmware frames them (Ser3Backchannel.cpp).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBoard } from '../../test/support/fakeSysfs.js';
import { PTY_MISSING } from '../../test/support/ptyAvailable.js';
import { SimBoard } from '../sim/index.js';
import { snapshotFromTelemetry } from '../tools/snapshot.js';
import { streamLink } from './link.js';
import { DeviceSession } from './session.js';
import { firstJsonObject, parseLeds, TelemetryPort } from './telemetry.js';
import { findTelemetryPort, telemetryCandidates } from './telemetryPort.js';

let board: SimBoard;
let root: string;

beforeAll(async () => {
  board = await SimBoard.start();
  root = mkdtempSync(join(tmpdir(), 'jl-cdc3-'));
});

afterAll(async () => {
  await board.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('answers as the firmware frames them', () => {
  it('finds the JSON object after the echoed line, strings with braces included', () => {
    expect(firstJsonObject('\r\n\r\n\r{"a": "}{", "b": {"c": 1}}\n\r')?.json).toBe(
      '{"a": "}{", "b": {"c": 1}}',
    );
    expect(firstJsonObject('\r\n{"a": {')).toBeUndefined();
  });

  it('reads leds{N:rrggbb...} and refuses a count that does not match', () => {
    expect(parseLeds('leds{2:ff000000ff00}\r\n')).toEqual([0xff0000, 0x00ff00]);
    expect(parseLeds('leds{2:ff00')).toBeUndefined();
    expect(() => parseLeds('leds{3:ff000000ff00}')).toThrow(/leds\{N:rrggbb/);
  });
});

describe('the virtual board serves CDC3 as the board does', () => {
  it('shows a bridge and a rail set at the REPL, with the row LEDs in the net colour', async () => {
    const replSession = new DeviceSession(
      streamLink('sim-repl', { connect: () => board.port('repl'), release: () => {} }),
    );
    await replSession.call('jumperless.connect(1, 5)');
    await replSession.call('jumperless.dac_set(2, 3.3)');
    const port = new TelemetryPort(
      streamLink('sim-cdc3', { connect: () => board.port('backchannel'), release: () => {} }),
    );
    const reading = await port.read();
    expect(reading.leds).toHaveLength(300);
    const snapshot = snapshotFromTelemetry(reading.state, reading.leds);
    expect(snapshot.state.power.top_rail).toBeCloseTo(3.3, 2);
    expect(snapshot.bridges.map((b) => [b.node1, b.node2])).toContainEqual([1, 5]);
    const net = snapshot.nets.find((n) => n.node_ids.includes(1));
    expect(net?.color).not.toBe('#000000');
    // Row 5, hole 2 and row 1, hole 2 share the net's colour.
    expect(reading.leds[4 * 5 + 2]).toBe(reading.leds[2]);
    expect(await port.power()).toMatchObject({ power: { top_rail: expect.any(Number) } });
    await port.close();
    await replSession.call('jumperless.nodes_clear()');
    await replSession.close();
  });
});

describe.skipIf(PTY_MISSING)('found beside the REPL by what it answers', () => {
  it('takes interface 6 when the OS names interfaces, else asks each unnamed port', async () => {
    const ptys = await board.servePty(join(root, 'pty'));
    const named = fakeBoard(root, 'named', '1-2', [
      [0, ptys.main],
      [4, ptys.repl],
      [6, ptys.backchannel],
    ]);
    const found = await findTelemetryPort(join(named.devRoot, 'ttyACM2'), { platform: 'linux', ...named });
    // Discovery compares where the tty links lead: the pty itself.
    const cdc3 = realpathSync(ptys.backchannel);
    expect(found?.address).toBe(cdc3);
    await found?.close();
    // No interface numbers: the REPL's neighbours are asked; only CDC3 answers :json:power.
    const unnamed = fakeBoard(
      root,
      'unnamed',
      '1-3',
      [
        [2, ptys.uart],
        [4, ptys.repl],
        [6, ptys.backchannel],
      ],
      {
        interfaceNumbers: false,
      },
    );
    const listed = [
      { path: ptys.uart, location: '1-3' },
      { path: ptys.repl, location: '1-3' },
      { path: ptys.backchannel, location: '1-3' },
    ];
    expect(telemetryCandidates(listed, ptys.repl).map((p) => p.path)).toEqual([ptys.uart, ptys.backchannel]);
    const byAnswer = await findTelemetryPort(join(unnamed.devRoot, 'ttyACM2'), {
      platform: 'linux',
      ...unnamed,
    });
    expect(byAnswer?.address).toBe(cdc3);
    await byAnswer?.close();
    // A board with no CDC3 beside its REPL has none.
    const none = fakeBoard(root, 'none', '1-4', [[4, ptys.repl]]);
    expect(
      await findTelemetryPort(join(none.devRoot, 'ttyACM2'), { platform: 'linux', ...none }),
    ).toBeUndefined();
  });
});
