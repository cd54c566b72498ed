import { describe, expect, it } from 'vitest';
import { memoryFs } from '../../../test/support/firmwareEnv.js';
import { createOledState, getPixel } from './oled.js';
import { createScreensState, formatG, screensFunctions } from './oledScreens.js';

function setup(connected = true) {
  const files = new Map<string, Uint8Array>();
  const fs = memoryFs(files, new Set());
  const oled = createOledState();
  oled.connected = connected;
  let now = 0;
  const state = createScreensState();
  const fns = screensFunctions(state, {
    oled,
    fs: () => fs,
    gpio: (pin) => (pin === 1 ? 1 : 0),
    adc: (channel) => channel * 1.25,
    dac: () => 3.3,
    now: () => now,
  });
  const call = (name: string, ...args: unknown[]) => fns[name]?.(...(args as never[]));
  const lit = () => oled.panel.reduce((n, b) => n + (b ? 1 : 0), 0);
  return { state, oled, files, call, lit, advance: (ms: number) => (now += ms) };
}

describe('retained screens: handles (JumperlessMicroPythonAPI.cpp:1890-1965)', () => {
  it('screens 1-8 then 0; elements (screen << 8) | index, 16 per screen; -1 for a bad screen', () => {
    const { call } = setup();
    const handles = Array.from({ length: 9 }, () => call('oled_screen'));
    expect(handles).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 0]);
    const elems = Array.from({ length: 17 }, () => call('oled_add_text', 2, 't', 0, 0, null, 8, -1, -1, 0));
    expect([elems[0], elems[15], elems[16]]).toEqual([512, 527, -1]);
    expect(call('oled_add_shape', 9, 2, 0, 0, 0, 0, 0, 0)).toBe(-1);
    call('oled_screen_free', 2);
    expect(call('oled_screen')).toBe(2);
    call('oled_screen_reset');
    expect(call('oled_screen')).toBe(1);
  });

  it('oled_set: str for text/font, ints for the rest; False for a bad prop, index or screen', () => {
    const { call } = setup();
    const s = call('oled_screen') as number;
    const e = call('oled_add_text', s, 'hi', 0, 0, null, 8, -1, -1, 0) as number;
    expect(call('oled_set_str', e, 'text', 'yo')).toBe(true);
    expect(call('oled_set_int', e, 'visible', 0)).toBe(true);
    expect(call('oled_set_int', e, 'bogus', 1)).toBe(false);
    expect(call('oled_set_str', e, 'x', '5')).toBe(false);
    expect(call('oled_set_int', s * 256 + 9, 'x', 1)).toBe(false);
    expect(call('oled_set_int', -1, 'x', 1)).toBe(false);
  });
});

describe('drawing', () => {
  it('show draws the screen now; hide blanks the panel; without a display show is still True', () => {
    const { call, lit } = setup();
    const s = call('oled_screen') as number;
    call('oled_add_shape', s, 2, 0, 0, 10, 4, 0, 0);
    expect(lit()).toBe(0);
    expect(call('oled_screen_show', s, false)).toBe(true);
    expect(lit()).toBeGreaterThan(0);
    call('oled_screen_hide');
    expect(lit()).toBe(0);
    expect(setup(false).call('oled_screen_show', 1, false)).toBe(false);
    const off = setup(false);
    expect(off.call('oled_screen_show', off.call('oled_screen'), false)).toBe(true);
    expect(off.lit()).toBe(0);
  });

  it('texts fill {tokens} and pushed variables; a change redraws the shown screen', () => {
    const { state, oled, call, advance } = setup();
    const s = call('oled_screen') as number;
    call('oled_add_text', s, '{gpio:1} {adc:2} {name}', 0, 0, null, 8, 0, 0, 0);
    call('oled_screen_show', s, false);
    const before = oled.panel.slice();
    call('oled_set_var', 'name', 'abc');
    expect(oled.panel).not.toEqual(before);
    expect(state.vars).toEqual([{ name: 'name', value: 'abc' }]);
    call('oled_set_var_num', 'n', 2.5);
    call('oled_set_var_num', 'm', 0.1);
    expect(state.vars.slice(1).map((v) => v.value)).toEqual(['2.5', '0.1']);
    // The service redraws when a token's value changes ({uptime} here).
    call('oled_add_text', s, '{uptime}', 0, 20, null, 8, -1, -1, 0);
    call('oled_screen_show', s, false);
    const shown = oled.panel.slice();
    advance(61_000);
    call('_service');
    expect(oled.panel).not.toEqual(shown);
  });

  it('a filled rectangle fills; a line goes from (x, y) to (x + w, y + h)', () => {
    const { oled, call } = setup();
    const s = call('oled_screen') as number;
    call('oled_add_shape', s, 2, 4, 4, 3, 3, 0, 0);
    call('oled_add_shape', s, 0, 20, 0, 5, 5, 0, 0);
    call('oled_screen_show', s, false);
    expect(getPixel(oled.panel, 5, 5)).toBe(1);
    expect(getPixel(oled.panel, 7, 7)).toBe(0);
    expect(getPixel(oled.panel, 25, 5)).toBe(1);
  });
});

describe('save and load (OledGui.cpp:766-878)', () => {
  it('writes /screens/<name>.json and loads it into a new screen', () => {
    const { files, call } = setup();
    const s = call('oled_screen') as number;
    call('oled_add_text', s, 'T {ui}', 3, 4, 'Jokerman', 10, 1, 2, 1);
    call('oled_add_shape', s, 2, 1, 2, 5, 6, 0, 0);
    expect(call('oled_screen_save', s, 'dir/ui_tmp.json')).toBe(true);
    const doc = JSON.parse(Buffer.from(files.get('/screens/ui_tmp.json') ?? []).toString());
    expect(doc).toMatchObject({ version: 1, w: 128, h: 32 });
    expect(doc.elements[0]).toEqual({
      x: 3,
      y: 4,
      w: 0,
      h: 0,
      z: 1,
      visible: 1,
      anchor: 1,
      halign: 1,
      valign: 2,
      type: 'text',
      text: 'T {ui}',
      font: 'Jokerman',
      size: 10,
    });
    expect(doc.elements[1]).toMatchObject({ type: 'shape', shape: 2, filled: 1, w: 5, h: 6 });
    expect(call('oled_screen_load', 'ui_tmp')).toBe(2);
    expect(call('oled_screen_load', 'missing')).toBe(0);
    expect(call('oled_screen_save', 99, 'x')).toBe(false);
  });
});

describe('a VM restart', () => {
  it('frees every screen but the persistent one, which stays shown', () => {
    const { state, call, lit } = setup();
    const a = call('oled_screen') as number;
    const b = call('oled_screen') as number;
    call('oled_add_shape', b, 2, 0, 0, 8, 8, 0, 0);
    call('oled_screen_show', b, true);
    call('oled_screen_show', a, false);
    call('_boot');
    expect(state.slots.filter(Boolean)).toHaveLength(1);
    expect(state.active).toBe(state.slots[b - 1]);
    expect(lit()).toBeGreaterThan(0);
    call('oled_screen_hide');
    call('_boot');
    expect(state.slots.filter(Boolean)).toHaveLength(0);
  });
});

describe('%g', () => {
  it('prints like C', () => {
    expect([2.5, 3, 0.1, 1e6, 123456, 1234567, 0.0001, 0.00001, -0].map(formatG)).toEqual([
      '2.5',
      '3',
      '0.1',
      '1e+06',
      '123456',
      '1.23457e+06',
      '0.0001',
      '1e-05',
      '-0',
    ]);
    expect(formatG(Math.fround(0.1))).toBe('0.1');
  });
});
