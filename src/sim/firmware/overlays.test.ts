import { describe, expect, it } from 'vitest';
import {
  createOverlayState,
  overlayAccess,
  overlayFunctions,
  renderOverlays,
  SERIALIZE_LIMIT,
  serializeOverlays,
} from './overlays.js';

function setup() {
  const state = createOverlayState();
  const fns = overlayFunctions(state);
  const call = (name: string, ...args: unknown[]) => fns[name]?.(...(args as never[]));
  return { state, call };
}

describe('overlay_set (spec §6.12)', () => {
  it('takes (name, x_col, y_row, height, width, colors) and returns the slot', () => {
    const { state, call } = setup();
    expect(call('overlay_set', 'a', 5, 2, 1, 3, [1, 2, 3])).toBe(0);
    expect(call('overlay_set', 'b', 1, 1, 1, 1, [9])).toBe(1);
    expect(state.slots[0]).toMatchObject({
      name: 'a',
      row: 2,
      col: 5,
      width: 3,
      height: 1,
      colors: [1, 2, 3],
    });
    expect(call('overlay_set', 'a', 6, 2, 1, 1, [7])).toBe(0);
    expect(call('overlay_count')).toBe(2);
  });

  it('refuses a short colour list with the firmware error, ignores extra colours', () => {
    const { state, call } = setup();
    expect(() => call('overlay_set', 'a', 1, 1, 2, 2, [1, 2, 3])).toThrow('Color array too small');
    expect(call('overlay_set', 'a', 1, 1, 1, 2, [1, 2, 3, 4])).toBe(0);
    expect(state.slots[0]?.colors).toEqual([1, 2]);
  });

  it('returns -1 for bad sizes and positions, and when all 8 slots are taken', () => {
    const { call } = setup();
    expect(call('overlay_set', 'z', 1, 1, 0, 1, [])).toBe(-1);
    expect(call('overlay_set', 'z', 31, 1, 1, 1, [1])).toBe(-1);
    expect(call('overlay_set', 'z', 1, 11, 1, 1, [1])).toBe(-1);
    expect(call('overlay_set', 'z', 1, 1, 11, 1, new Array(11).fill(1))).toBe(-1);
    for (let i = 0; i < 8; i++) expect(call('overlay_set', `o${i}`, 1, 1, 1, 1, [1])).toBe(i);
    expect(call('overlay_set', 'o8', 1, 1, 1, 1, [1])).toBe(-1);
    expect(call('overlay_clear', 'o3')).toBe(1);
    expect(call('overlay_clear', 'o3')).toBe(0);
    expect(call('overlay_set', 'o8', 1, 1, 1, 1, [1])).toBe(3);
  });
});

describe('moving, pixels and serialization', () => {
  it('shift and place wrap around the 10 x 30 canvas', () => {
    const { state, call } = setup();
    call('overlay_set', 'a', 30, 10, 1, 1, [1]);
    expect(call('overlay_shift', 'a', 1, 1)).toBe(1);
    expect(state.slots[0]).toMatchObject({ col: 1, row: 1 });
    expect(call('overlay_place', 'a', -1, 0)).toBe(1);
    expect(state.slots[0]).toMatchObject({ col: 29, row: 10 });
    expect(call('overlay_shift', 'missing', 1, 1)).toBe(0);
  });

  it('set_pixel paints a full-canvas direct overlay', () => {
    const { state, call } = setup();
    call('overlay_set_pixel', 3, 2, 0xff0000);
    call('overlay_set_pixel', 31, 2, 0xff0000);
    expect(call('overlay_count')).toBe(1);
    expect(state.slots[0]?.name).toBe('_DIRECT_PIXELS_');
    const canvas = renderOverlays(state);
    expect(canvas[1 * 30 + 2]).toBe(0xff0000);
    expect(canvas.filter(Boolean)).toHaveLength(1);
  });

  it('serializes the "overlays" fragment as the firmware writes it', () => {
    const { call } = setup();
    expect(call('overlay_serialize')).toBe('  "overlays": [\n  ]');
    call('overlay_set', 'box', 1, 1, 1, 2, [0x550000, 0]);
    call('overlay_set', 'b2', 2, 3, 1, 1, [0xabcdef]);
    expect(call('overlay_serialize')).toBe(
      '  "overlays": [\n' +
        '    {"name":"box","row":1,"col":1,"width":2,"height":1,"colors":["550000","000000"]},\n' +
        '    {"name":"b2","row":3,"col":2,"width":1,"height":1,"colors":["ABCDEF"]}\n  ]',
    );
  });

  it('gives get_state and set_state their view of the overlays', () => {
    const { state, call } = setup();
    const access = overlayAccess(state);
    call('overlay_set', 'a', 4, 2, 1, 2, [0x1000001, 5]);
    expect(access.list()).toEqual([{ name: 'a', row: 2, col: 4, width: 2, height: 1, colors: [1, 5] }]);
    access.replace([
      { name: 'x', row: 1, col: 1, width: 1, height: 1, colors: [7] },
      { name: 'bad', row: 0, col: 1, width: 1, height: 1, colors: [7] },
    ]);
    expect(call('overlay_count')).toBe(1);
    expect(access.list()[0]?.name).toBe('x');
  });
});

describe('firmware quirks (GraphicOverlays.cpp, JumperlessMicroPythonAPI.cpp:3172-3186)', () => {
  it('overlay_serialize() stops at 4095 characters, mid-token; get_state keeps everything', () => {
    const { state, call } = setup();
    call('overlay_set', 'pa', 1, 1, 10, 30, new Array(300).fill(0x111111));
    call('overlay_set', 'pb', 1, 1, 10, 30, new Array(300).fill(0x222222));
    const full = serializeOverlays(state);
    expect(full).toHaveLength(5556);
    const cut = call('overlay_serialize') as string;
    expect(cut).toHaveLength(SERIALIZE_LIMIT);
    expect(cut.slice(-12)).toBe(',"222222","2');
    expect(full.startsWith(cut)).toBe(true);
    expect(
      overlayAccess(state)
        .list()
        .map((o) => o.colors.length),
    ).toEqual([300, 300]);
  });

  it('writes names unescaped, as the firmware does', () => {
    const { call } = setup();
    call('overlay_set', 'a"b\\', 1, 1, 1, 1, [1]);
    expect(call('overlay_serialize')).toContain('{"name":"a"b\\","row":1');
  });

  it('stores names cut to 31 bytes but looks them up whole: a longer name takes a new slot each time', () => {
    const { state, call } = setup();
    const long = 'x'.repeat(40);
    expect(call('overlay_set', long, 1, 1, 1, 1, [1])).toBe(0);
    expect(call('overlay_set', long, 1, 1, 1, 1, [1])).toBe(1);
    expect(state.slots[0]?.name).toBe('x'.repeat(31));
    expect(call('overlay_clear', long)).toBe(0);
    expect(call('overlay_clear', 'x'.repeat(31))).toBe(1);
    expect(call('overlay_count')).toBe(1);
    // A cut never keeps half a UTF-8 character: 30 ASCII bytes and a 2-byte letter keep 30.
    call('overlay_clear_all');
    call('overlay_set', `${'y'.repeat(30)}é`, 1, 1, 1, 1, [1]);
    expect(state.slots[0]?.name).toBe('y'.repeat(30));
  });

  it('set_pixel takes one of the 8 slots', () => {
    const { call } = setup();
    for (let i = 0; i < 7; i++) call('overlay_set', `o${i}`, 1, 1, 1, 1, [1]);
    call('overlay_set_pixel', 1, 1, 0x10);
    expect(call('overlay_count')).toBe(8);
    expect(call('overlay_set', 'late', 1, 1, 1, 1, [1])).toBe(-1);
  });
});
