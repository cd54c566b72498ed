import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import type { AnyTool } from '../core/toolDefinition.js';
import {
  overlayCanvas,
  overlayClear,
  overlayList,
  overlaySet,
  overlaySetPixels,
  type parseOverlays,
  rowsHighlight,
} from './leds.js';
import { stateGet } from './state.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.python('overlay_clear_all()');
});

/** The overlays as get_state() lists them (whole, unlike overlay_serialize()). */
const stored = async () =>
  (JSON.parse(await h.python<string>('get_state()')) as { overlays: unknown }).overlays as ReturnType<
    typeof parseOverlays
  >;
const at = (canvas: Uint32Array, x: number, y: number) => canvas[(y - 1) * 30 + x - 1];

describe('overlay_set', () => {
  it('sends name, x_col, y_row, height, width in the firmware order and reads it back', async () => {
    const { result } = await h.run(overlaySet, {
      name: 'box',
      x_col: 5,
      y_row: 2,
      width: 3,
      height: 2,
      color: '#110022',
    });
    expect(result).toMatchObject({
      index: 0,
      verified: true,
      name: 'box',
      x_col: 5,
      y_row: 2,
      width: 3,
      height: 2,
    });
    const [box] = await stored();
    expect(box).toEqual({
      name: 'box',
      row: 2,
      col: 5,
      width: 3,
      height: 2,
      colors: Array(6).fill('110022'),
    });
    const canvas = overlayCanvas(await stored());
    expect(at(canvas, 5, 2)).toBe(0x110022);
    expect(at(canvas, 7, 3)).toBe(0x110022);
    expect(at(canvas, 8, 3)).toBe(0);
  });

  it('replaces an overlay of the same name', async () => {
    await h.run(overlaySet, { name: 'a', x_col: 1, y_row: 1, width: 2, height: 1, color: '#101010' });
    const { result } = await h.run(overlaySet, {
      name: 'a',
      x_col: 30,
      y_row: 10,
      width: 1,
      height: 1,
      color: '#ABCDEF',
    });
    expect(result).toMatchObject({ colors: ['#abcdef'] });
    expect(await stored()).toEqual([
      { name: 'a', row: 10, col: 30, width: 1, height: 1, colors: ['ABCDEF'] },
    ]);
  });

  it('refuses rectangles past the canvas, bad colours and names', async () => {
    await expect(
      h.run(overlaySet, { name: 'x', x_col: 29, y_row: 1, width: 3, height: 1, color: '#111111' }),
    ).rejects.toMatchObject({ code: 'out_of_canvas' });
    await expect(
      h.run(overlaySet, { name: 'x', x_col: 1, y_row: 9, width: 1, height: 3, color: '#111111' }),
    ).rejects.toMatchObject({ code: 'out_of_canvas' });
    for (const bad of [
      { name: 'a"b', x_col: 1, y_row: 1, width: 1, height: 1, color: '#111111' },
      { name: 'a\\b', x_col: 1, y_row: 1, width: 1, height: 1, color: '#111111' },
      { name: 'x'.repeat(32), x_col: 1, y_row: 1, width: 1, height: 1, color: '#111111' },
      { name: 'x', x_col: 0, y_row: 1, width: 1, height: 1, color: '#111111' },
      { name: 'x', x_col: 1, y_row: 11, width: 1, height: 1, color: '#111111' },
      { name: 'x', x_col: 1, y_row: 1, width: 1, height: 1, color: 'red' },
      { name: 'x', x_col: 1, y_row: 1, width: 1, height: 1, color: 0xff0000 },
      { name: '_DIRECT_PIXELS_', x_col: 1, y_row: 1, width: 1, height: 1, color: '#111111' },
    ]) {
      expect(overlaySet.input.safeParse(bad).success).toBe(false);
    }
    expect(await stored()).toEqual([]);
  });

  it('reports the firmware refusing a ninth overlay', async () => {
    for (let i = 0; i < 8; i++) {
      await h.run(overlaySet, {
        name: `o${i}`,
        x_col: i + 1,
        y_row: 1,
        width: 1,
        height: 1,
        color: '#010101',
      });
    }
    await expect(
      h.run(overlaySet, { name: 'o8', x_col: 9, y_row: 1, width: 1, height: 1, color: '#010101' }),
    ).rejects.toMatchObject({ code: 'overlay_refused' });
  });
});

describe('overlays in state_get', () => {
  it('tells each overlay by place and colour, not pixel by pixel (overlay_list has the pixels)', async () => {
    await h.run(overlaySet, { name: 'fill', x_col: 1, y_row: 1, width: 30, height: 10, color: '#0A0B0C' });
    await h.python(
      `overlay_set('mottled', 1, 1, 10, 30, [${Array.from({ length: 300 }, (_, i) => i).join(',')}])`,
    );
    const { result } = await h.run<{ overlays: unknown[] }>(stateGet);
    expect(result.overlays).toEqual([
      { name: 'fill', row: 1, col: 1, width: 30, height: 10, color: '#0a0b0c' },
      { name: 'mottled', row: 1, col: 1, width: 30, height: 10 },
    ]);
    expect(JSON.stringify(result).length).toBeLessThan(2000);
    const listed = (await h.run<{ overlays: Array<{ colors: string[] }> }>(overlayList)).result;
    expect(listed.overlays.map((o) => o.colors.length)).toEqual([300, 300]);
  });
});

describe('clear and list', () => {
  it('clears one overlay by name, then all', async () => {
    await h.run(overlaySet, { name: 'a', x_col: 1, y_row: 1, width: 1, height: 1, color: '#010101' });
    await h.run(overlaySet, { name: 'b', x_col: 2, y_row: 1, width: 1, height: 1, color: '#020202' });
    expect((await h.run(overlayList)).result).toMatchObject({
      overlays: [
        { name: 'a', x_col: 1, colors: ['#010101'] },
        { name: 'b', x_col: 2, colors: ['#020202'] },
      ],
    });
    expect((await h.run(overlayClear, { name: 'a' })).result).toEqual({ cleared: true, remaining: 1 });
    expect((await h.run(overlayClear, { name: 'a' })).result).toEqual({ cleared: false, remaining: 1 });
    expect((await h.run(overlayClear, {})).result).toEqual({ cleared: true, remaining: 0 });
    expect(await stored()).toEqual([]);
  });
});

describe('past the 4095 characters of overlay_serialize()', () => {
  it('sets, lists and clears two full 30x10 overlays (5.5 KB) through the tools', async () => {
    const a = await h.run(overlaySet, {
      name: 'pa',
      x_col: 1,
      y_row: 1,
      width: 30,
      height: 10,
      color: '#111111',
    });
    const b = await h.run(overlaySet, {
      name: 'pb',
      x_col: 1,
      y_row: 1,
      width: 30,
      height: 10,
      color: '#222222',
    });
    expect([a.result, b.result]).toMatchObject([
      { index: 0, verified: true },
      { index: 1, verified: true },
    ]);
    expect(((await h.python('overlay_serialize()')) as string).length).toBe(4095);
    const list = (await h.run(overlayList)).result as { overlays: Array<{ name: string; colors: string[] }> };
    expect(list.overlays.map((o) => [o.name, o.colors.length, o.colors[299]])).toEqual([
      ['pa', 300, '#111111'],
      ['pb', 300, '#222222'],
    ]);
    const pixels = await h.run(overlaySetPixels, { pixels: [{ x_col: 3, y_row: 3, color: '#00ff00' }] });
    expect(pixels.result).toEqual({ set: 1, hidden: [] });
    expect((await h.run(overlayClear, { name: 'pa' })).result).toEqual({ cleared: true, remaining: 2 });
    expect((await h.run(rowsHighlight, { rows: [1, 60] })).result).toMatchObject({ verified: true });
    expect((await h.run(overlayClear, {})).result).toEqual({ cleared: true, remaining: 0 });
    expect(await stored()).toEqual([]);
  });
});

describe('an unreadable overlay list (a name with a quote, made outside the tools)', () => {
  it('a write the board took is reported done, unverified; overlay_list says why it cannot list', async () => {
    await h.python(`overlay_set('a"b', 1, 1, 1, 1, [1])`);
    const { result } = await h.run(overlaySet, {
      name: 'ok',
      x_col: 2,
      y_row: 1,
      width: 1,
      height: 1,
      color: '#010101',
    });
    expect(result).toMatchObject({ index: 1, verified: false });
    expect((await h.run(overlayClear, { name: 'ok' })).result).toEqual({ cleared: true, remaining: null });
    await expect(h.run(overlayList)).rejects.toMatchObject({ code: 'bad_reply' });
    expect(overlayClear.input.safeParse({ name: 'a"b' }).success).toBe(false);
    expect(overlayClear.input.safeParse({ name: 'a\\b' }).success).toBe(false);
    expect(overlayClear.input.safeParse({ name: 'x'.repeat(32) }).success).toBe(false);
    expect((await h.run(overlayClear, {})).result).toEqual({ cleared: true, remaining: 0 });
  });
});

describe('overlay_set_pixels', () => {
  it('sets single LEDs, and reports those hidden under a later overlay', async () => {
    const first = await h.run(overlaySetPixels, { pixels: [{ x_col: 4, y_row: 7, color: '#0a0b0c' }] });
    expect(first.result).toEqual({ set: 1, hidden: [] });
    expect(at(overlayCanvas(await stored()), 4, 7)).toBe(0x0a0b0c);
    await h.run(overlaySet, { name: 'cover', x_col: 1, y_row: 6, width: 10, height: 2, color: '#200000' });
    const second = await h.run(overlaySetPixels, {
      pixels: [
        { x_col: 4, y_row: 7, color: '#00ff00' },
        { x_col: 20, y_row: 1, color: '#0000ff' },
      ],
    });
    expect(second.result).toEqual({ set: 2, hidden: [{ x_col: 4, y_row: 7 }] });
  });
});

describe('rows_highlight', () => {
  it('lights every hole of the given rows in both halves and nothing else', async () => {
    const { result } = await h.run(rowsHighlight, { rows: [5, 33, 3], color: '#302000' });
    expect(result).toMatchObject({ name: 'highlight', rows: [3, 5, 33], color: '#302000' });
    const canvas = overlayCanvas(await stored());
    const lit: string[] = [];
    for (let y = 1; y <= 10; y++) for (let x = 1; x <= 30; x++) if (at(canvas, x, y)) lit.push(`${x},${y}`);
    const expected = [
      ...[1, 2, 3, 4, 5].flatMap((y) => [`3,${y}`, `5,${y}`]),
      ...[6, 7, 8, 9, 10].map((y) => `3,${y}`),
    ];
    expect(lit.sort()).toEqual(expected.sort());
    expect(at(canvas, 5, 1)).toBe(0x302000);
  });

  it('replaces the previous highlight, and an empty list removes it', async () => {
    await h.run(rowsHighlight, { rows: [1] });
    await h.run(rowsHighlight, { rows: [60] });
    const canvas = overlayCanvas(await stored());
    expect(at(canvas, 1, 1)).toBe(0);
    expect(at(canvas, 30, 10)).toBe(0x402a00);
    expect((await h.run(rowsHighlight, { rows: [] })).result).toMatchObject({
      rows: [],
      index: null,
      verified: true,
    });
    expect(await stored()).toEqual([]);
  });
});

describe('hostile strings', () => {
  it('names and colours are refused by validation or used literally; nothing runs', async () => {
    let literal = 0;
    for (const s of hostileStrings()) {
      const cases: Array<[AnyTool, unknown]> = [
        [overlaySet, { name: s, x_col: 1, y_row: 1, width: 1, height: 1, color: '#010101' }],
        [overlaySet, { name: 'n', x_col: 1, y_row: 1, width: 1, height: 1, color: s }],
        [overlayClear, { name: s }],
        [rowsHighlight, { rows: [1], name: s }],
        [rowsHighlight, { rows: [1], color: s }],
        [overlaySetPixels, { pixels: [{ x_col: 1, y_row: 1, color: s }] }],
      ];
      for (const [tool, args] of cases) {
        if (!tool.input.safeParse(args).success) continue;
        try {
          await h.run(tool, args);
          literal++;
        } catch (error) {
          expect(error).toBeInstanceOf(ToolError);
        }
      }
      const names = (await stored()).map((o) => o.name);
      for (const name of names) expect(['n', 'highlight', '_DIRECT_PIXELS_', s.slice(0, 31)]).toContain(name);
      await h.python('overlay_clear_all()');
    }
    expect(literal).toBeGreaterThan(20);
    expect(await h.python('get_num_bridges()')).toBe(1);
  });
});

describe('what overlay_clear asks of the firmware', () => {
  it('needs overlay_clear for one name and overlay_clear_all for every overlay, not both', () => {
    const one = overlayClear.requiresFor?.({ name: 'a' }) ?? [];
    const all = overlayClear.requiresFor?.({}) ?? [];
    expect(one).toContain('overlay_clear');
    expect(one).not.toContain('overlay_clear_all');
    expect(all).toContain('overlay_clear_all');
    expect(all).not.toContain('overlay_clear');
    for (const name of [...one, ...all]) expect(overlayClear.requires).toContain(name);
  });
});
