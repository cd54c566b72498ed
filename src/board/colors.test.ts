import { describe, expect, it } from 'vitest';
import {
  COLOR_TYPE_ERROR,
  colorName,
  firmwareColorName,
  firmwareParseColor,
  fwHsvToRgb,
  fwRgbToHsv,
  parseColor,
  scaleBrightness,
} from './colors.js';

describe('parseColor', () => {
  it.each([
    ['red', 0xff0000, 'red'],
    ['  Blue ', 0x0000ff, 'blue'],
    ['#FF0000', 0xff0000, 'red'],
    ['0xff0000', 0xff0000, 'red'],
    ['00ff00', 0x00ff00, 'green'],
    ['#123456', 0x123456, '#123456'],
  ])('%s', (input, rgb, name) => {
    expect(parseColor(input)).toEqual({ ok: true, color: { rgb, name } });
  });

  it('takes integers and (r, g, b)', () => {
    expect(parseColor(0xff0080)).toEqual({ ok: true, color: { rgb: 0xff0080, name: 'pink' } });
    expect(parseColor([255, 0, 0])).toEqual({ ok: true, color: { rgb: 0xff0000, name: 'red' } });
    expect(parseColor([1, 2, 3])).toEqual({ ok: true, color: { rgb: 0x010203, name: '#010203' } });
  });

  it.each([
    ['chartreuse-ish'],
    ['#12345'],
    [-1],
    [0x1000000],
    [1.5],
    [[1, 2]],
    [[1, 2, 256]],
    [[1, 2, 3, 4]],
  ])('refuses %j with a clear error', (input) => {
    const out = parseColor(input as never);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error.length).toBeGreaterThan(10);
  });

  it('gives the firmware message for a value of the wrong kind', () => {
    expect(parseColor({} as never)).toEqual({ ok: false, error: COLOR_TYPE_ERROR });
  });

  it('names colours', () => {
    expect(colorName(0x0000ff)).toBe('blue');
    expect(colorName(0xabcdef)).toBe('#ABCDEF');
  });
});

describe('the firmware colour arithmetic (LEDs.cpp, Colors.cpp, States.cpp:2407)', () => {
  it('converts RGB and HSV with 8-bit hues', () => {
    expect(fwRgbToHsv(0xff0000)).toEqual({ h: 0, s: 255, v: 255 });
    expect(fwRgbToHsv(0xff0080)).toEqual({ h: 235, s: 255, v: 255 });
    expect(fwRgbToHsv(0x808080)).toEqual({ h: 0, s: 0, v: 128 });
    expect(fwHsvToRgb({ h: 0, s: 255, v: 32 })).toBe(0x200000);
    expect(fwHsvToRgb({ h: 174, s: 255, v: 32 })).toBe(0x010020);
  });

  it('dims by scaling the HSV value in float, truncated', () => {
    expect(scaleBrightness(0xff0000, -80)).toBe(0x320000);
    expect(scaleBrightness(0x400000, -50)).toBe(0x200000);
    expect(scaleBrightness(0x123456, 0)).toBe(0x123456);
  });

  it.each([
    ['red', 0x200000],
    ['  RED ', 0x200000],
    ['royal blue', 0x010020],
    ['0xFF0000', 0x320000],
    // '#' skips two characters too, so the first hex digit is lost.
    ['#FF0000', 0x020000],
    ['16711680', 0x7f0000],
  ])('parses %j as set_net_color does', (text, rgb) => {
    expect(firmwareParseColor(text)).toBe(rgb);
  });

  it.each([['ff0000'], ['teal'], ['gray'], ['']])('refuses %j', (text) => {
    expect(firmwareParseColor(text)).toBeUndefined();
  });

  it('names colours as colorToName does', () => {
    expect(firmwareColorName(0)).toBe('black');
    expect(firmwareColorName(0x808080)).toBe('white');
    expect(firmwareColorName(0x200000)).toBe('red');
    expect(firmwareColorName(0x0000ff)).toBe('royal blue');
    expect(firmwareColorName(0x123456)).toBe('blue');
    expect(firmwareColorName(0xff0080)).toBe('pink');
  });
});
