/**
 * A full crossbar through every wiring tool: the board keeps a bridge it has no lanes for in its
 * net but closes nothing (NetsToChipConnections.cpp:4478-4547), and each tool must say so rather
 * than report the wiring done. A measurement's temporary bridge is wiring too: it must say it measured
 * nothing and leave the board as it was. Also the crossbar resource and the picture of such a board.
 */
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fillCrossbarPython } from '../../test/support/crossbarFill.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { NO_LANES_COLOR } from './boardPicture.js';
import { connect } from './connections.js';
import { voltageMeasure } from './measure.js';
import { boardResources, renderBoardPng } from './resources.js';
import { readBridges, readSnapshot } from './snapshot.js';
import { stateSet } from './stateSet.js';
import { wokwiImport } from './wokwi.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

/** The bridge that did not fit, taken out again after filling the board. */
let missing: [number, number];
beforeEach(async () => {
  const { stdout, stderr } = await h.session.exec(fillCrossbarPython(1));
  expect(stderr).toBe('');
  missing = JSON.parse(stdout.trim()) as [number, number];
  expect(missing).toHaveLength(2);
});

const routedOnBoard = (a: number, b: number) =>
  h.python<boolean>(`get_path_between(${a}, ${b})['x'][0] >= 0`);

/** Pixels of one colour in an 8-bit RGB PNG with filter 0 rows (what boardPicture writes). */
function countColor(png: Uint8Array, color: number): number {
  const buf = Buffer.from(png);
  const width = buf.readUInt32BE(16);
  const idat: Buffer[] = [];
  for (let at = 8; at < buf.length; ) {
    const length = buf.readUInt32BE(at);
    if (buf.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(buf.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 3 + 1;
  let n = 0;
  for (let row = 0; row * stride < raw.length; row++) {
    for (let x = 0; x < width; x++) {
      const i = row * stride + 1 + x * 3;
      if ((((raw[i] ?? 0) << 16) | ((raw[i + 1] ?? 0) << 8) | (raw[i + 2] ?? 0)) === color) n++;
    }
  }
  return n;
}

describe('a full crossbar', () => {
  it('connect reports the bridge stored but not connected (crossbar_full)', async () => {
    const [a, b] = missing;
    const { result } = await h.run(connect, { pairs: [[a, b]] });
    expect(result).toMatchObject({ added: 0, unrouted: 1 });
    expect((result as { results: unknown[] }).results[0]).toMatchObject({
      status: 'crossbar_full',
      reason: expect.stringMatching(/no free lanes/),
    });
    expect(await routedOnBoard(a, b)).toBe(false);
  });

  it('state_set says which bridge found no lanes instead of reporting the nets applied', async () => {
    const [a, b] = missing;
    const { result } = await h.run<{ applied: boolean; differences: string[] }>(stateSet, {
      nets: [[a, b]],
      clear_first: false,
    });
    expect(result.applied).toBe(false);
    expect(result.differences.some((d) => /no free lanes/.test(d))).toBe(true);
  });

  it('wokwi_import says so too', async () => {
    const [a, b] = missing;
    const hole = (row: number) => (row <= 30 ? `bb1:${row}t.a` : `bb1:${row - 30}b.f`);
    const diagram = JSON.stringify({
      version: 1,
      parts: [{ type: 'wokwi-breadboard', id: 'bb1', top: 0, left: 0, attrs: {} }],
      connections: [[hole(a), hole(b), 'green', []]],
    });
    const { result } = await h.run<{ applied: boolean; differences: string[] }>(wokwiImport, {
      diagram,
      clear_first: false,
    });
    expect(result.applied).toBe(false);
    expect(result.differences.some((d) => /no free lanes/.test(d))).toBe(true);
  });

  it('voltage_measure says its ADC found no lanes, measures nothing and leaves the bridges as they were', async () => {
    // A row the first free ADC (ADC0) cannot reach on this full board, found the way the tool routes.
    const { stdout } = await h.session.exec(
      [
        'for r in range(1, 61):',
        '    connect(ADC0, r)',
        '    p = get_path_between(ADC0, r)',
        '    disconnect(ADC0, r)',
        '    if p is not None and not _jlt.path_routed(p):',
        '        print(r)',
        '        break',
      ].join('\n'),
    );
    const row = Number(stdout.trim());
    expect(row).toBeGreaterThan(0);
    const before = await readBridges(h.client);
    await expect(h.run(voltageMeasure, { node: row })).rejects.toMatchObject({
      code: 'unrouted',
      message: expect.stringMatching(/could not route ADC0 to .*nothing was measured/),
    });
    expect(await readBridges(h.client)).toEqual(before);
  });

  it('the crossbar resource lists the unrouted bridge with why, and the lanes in use', async () => {
    const [a, b] = missing;
    await h.python(`connect(${a}, ${b})`);
    const crossbar = boardResources.find((r) => r.uri === 'jumperless://board/crossbar');
    if (!crossbar) throw new Error('no crossbar resource');
    const report = JSON.parse(((await crossbar.read(h.client)) as { text: string }).text);
    expect(report.chips).toHaveLength(12);
    expect(report.paths).toBeGreaterThan(30);
    expect(report.lanes_used).toBeGreaterThan(report.lanes_total / 2);
    expect(report.unrouted).toEqual([
      expect.objectContaining({
        route: 'no_free_lanes',
        why: expect.stringMatching(/^no free lanes: .* is on chip [A-L]/),
      }),
    ]);
    expect([report.unrouted[0].node1, report.unrouted[0].node2].sort()).toEqual(
      [String(a), String(b)].sort(),
    );
  });

  it('the picture draws the unrouted bridge in the no-lanes colour, and none without it', async () => {
    const [a, b] = missing;
    const without = renderBoardPng(await readSnapshot(h.client));
    expect(countColor(without, NO_LANES_COLOR)).toBe(0);
    await h.python(`connect(${a}, ${b})`);
    const snapshot = await readSnapshot(h.client);
    expect(snapshot.bridges.filter((x) => x.route === 'no_free_lanes')).toHaveLength(1);
    expect(countColor(renderBoardPng(snapshot), NO_LANES_COLOR)).toBeGreaterThan(50);
  });
});
