import { describe, expect, it } from 'vitest';
import { COLOR_TYPE_ERROR, colorName, parseColor } from './colors.js';

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
