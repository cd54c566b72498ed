/** Net colours: names, the default palette and the parser behind `set_net_color` (§6.9). */

export const NAMED_COLORS: Readonly<Record<string, number>> = {
  red: 0xff0000,
  orange: 0xff8000,
  amber: 0xffbf00,
  yellow: 0xffff00,
  chartreuse: 0x80ff00,
  green: 0x00ff00,
  teal: 0x00ff80,
  cyan: 0x00ffff,
  azure: 0x0080ff,
  blue: 0x0000ff,
  violet: 0x8000ff,
  purple: 0x800080,
  magenta: 0xff00ff,
  pink: 0xff0080,
  white: 0xffffff,
  grey: 0x808080,
  gray: 0x808080,
  black: 0x000000,
};

/** Colours of the special nets 1-5 (GND, Top Rail, Bottom Rail, DAC 0, DAC 1). */
export const SPECIAL_NET_COLORS: readonly string[] = ['green', 'red', 'orange', 'amber', 'magenta'];

/** User nets cycle through this palette from net 6 on. */
export const USER_NET_PALETTE: readonly string[] = [
  'pink',
  'blue',
  'green',
  'amber',
  'cyan',
  'violet',
  'chartreuse',
  'azure',
  'orange',
  'teal',
  'magenta',
  'yellow',
];

export interface Color {
  readonly rgb: number;
  readonly name: string;
}

export type ColorInput = string | number | readonly number[];
export type ColorResult = { ok: true; color: Color } | { ok: false; error: string };

/** The firmware's message for a value of the wrong kind (§6.9). */
export const COLOR_TYPE_ERROR = 'Color must be string name, hex integer, or (r,g,b) tuple';

export const hex6 = (rgb: number): string => rgb.toString(16).toUpperCase().padStart(6, '0');

/** The colour's name if it has one, else `#RRGGBB`. */
export function colorName(rgb: number): string {
  for (const [name, value] of Object.entries(NAMED_COLORS)) if (value === rgb) return name;
  return `#${hex6(rgb)}`;
}

export function namedColor(name: string): Color {
  return { rgb: NAMED_COLORS[name] ?? 0xffffff, name };
}

const byte = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 255;

/**
 * Accepts a name (`red`), `#FF0000`, `0xFF0000`, `FF0000`, an integer 0..0xFFFFFF, or `[r, g, b]` with
 * bytes 0-255. A name keeps the name; other forms are named by `colorName`.
 */
export function parseColor(input: ColorInput): ColorResult {
  if (typeof input === 'number') {
    if (!Number.isInteger(input) || input < 0 || input > 0xffffff) {
      return { ok: false, error: `Color integer must be 0x000000..0xFFFFFF, got ${input}` };
    }
    return { ok: true, color: { rgb: input, name: colorName(input) } };
  }
  if (Array.isArray(input)) {
    const [r, g, b] = input;
    if (input.length !== 3 || !byte(r) || !byte(g) || !byte(b)) {
      return { ok: false, error: 'Color tuple must be (r, g, b) with each 0-255' };
    }
    const rgb = (r << 16) | (g << 8) | b;
    return { ok: true, color: { rgb, name: colorName(rgb) } };
  }
  if (typeof input !== 'string') return { ok: false, error: COLOR_TYPE_ERROR };
  const s = input.trim().toLowerCase();
  const named = NAMED_COLORS[s];
  if (named !== undefined) return { ok: true, color: { rgb: named, name: s } };
  const m = /^(?:#|0x)?([0-9a-f]{6})$/.exec(s);
  if (m?.[1]) {
    const rgb = Number.parseInt(m[1], 16);
    return { ok: true, color: { rgb, name: colorName(rgb) } };
  }
  return { ok: false, error: `Unknown color "${input}": use a name (red, blue...), #RRGGBB or 0xRRGGBB` };
}

// ---- The firmware's own colour arithmetic (set_net_color, get_net_color_name) ----------------

/** 8-bit HSV as the firmware keeps it (hue 0-255). */
export interface Hsv {
  readonly h: number;
  readonly s: number;
  readonly v: number;
}

const u8 = (x: number): number => x & 0xff;
/** C integer division (truncates toward zero). */
const cdiv = (a: number, b: number): number => Math.trunc(a / b);

/** LEDs.cpp:4439 RgbToHsv, with its unsigned-char wrap-around of negative hues. */
export function fwRgbToHsv(rgb: number): Hsv {
  const r = (rgb >> 16) & 0xff;
  const g = (rgb >> 8) & 0xff;
  const b = rgb & 0xff;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === 0) return { h: 0, s: 0, v: 0 };
  const s = u8(cdiv(255 * (max - min), max));
  if (s === 0) return { h: 0, s: 0, v: max };
  let h: number;
  if (max === r) h = cdiv(43 * (g - b), max - min);
  else if (max === g) h = 85 + cdiv(43 * (b - r), max - min);
  else h = 171 + cdiv(43 * (r - g), max - min);
  return { h: u8(h), s, v: max };
}

/** LEDs.cpp:4374 HsvToRgb (43-wide regions, 8-bit fixed point). */
export function fwHsvToRgb({ h, s, v }: Hsv): number {
  if (s === 0) return (v << 16) | (v << 8) | v;
  const region = Math.floor(h / 43);
  const remainder = (h - region * 43) * 6;
  const p = u8((v * (255 - s)) >> 8);
  const q = u8((v * (255 - ((s * remainder) >> 8))) >> 8);
  const t = u8((v * (255 - ((s * (255 - remainder)) >> 8))) >> 8);
  const [r, g, b] = [
    [v, t, p],
    [q, v, p],
    [p, v, t],
    [p, q, v],
    [t, p, v],
  ][region] ?? [v, p, q];
  return ((r as number) << 16) | ((g as number) << 8) | (b as number);
}

/** LEDs.cpp:2912 scaleBrightness: the HSV value times (1 + factor/100) in float, truncated. */
export function scaleBrightness(rgb: number, factor: number): number {
  if (factor === 0) return rgb;
  const k = Math.fround(Math.fround(factor / 100) + 1);
  const hsv = fwRgbToHsv(rgb);
  return fwHsvToRgb({ ...hsv, v: u8(Math.trunc(Math.fround(hsv.v * k))) });
}

interface PaletteEntry {
  readonly name: string;
  readonly color: number;
  readonly dim: number;
  readonly hueStart: number;
  readonly hueEnd: number;
}

/** Colors.cpp:122 namedColors: the names set_net_color knows, in table order. */
export const FIRMWARE_COLORS: readonly PaletteEntry[] = [
  { name: 'red', color: 0xff0000, dim: 0x400000, hueStart: 253, hueEnd: 12 },
  { name: 'orange', color: 0xffa500, dim: 0x401000, hueStart: 13, hueEnd: 28 },
  { name: 'amber', color: 0xffbf00, dim: 0x403000, hueStart: 29, hueEnd: 35 },
  { name: 'yellow', color: 0xffff00, dim: 0x404000, hueStart: 36, hueEnd: 60 },
  { name: 'chartreuse', color: 0x7fff00, dim: 0x104000, hueStart: 61, hueEnd: 72 },
  { name: 'green', color: 0x00ff00, dim: 0x003000, hueStart: 73, hueEnd: 94 },
  { name: 'seafoam', color: 0x2e8b57, dim: 0x042040, hueStart: 95, hueEnd: 109 },
  { name: 'cyan', color: 0x00ffff, dim: 0x004040, hueStart: 110, hueEnd: 135 },
  { name: 'blue', color: 0x0000ff, dim: 0x000040, hueStart: 136, hueEnd: 164 },
  { name: 'royal blue', color: 0x4169e1, dim: 0x050040, hueStart: 165, hueEnd: 175 },
  { name: 'indigo', color: 0x8a2be2, dim: 0x100040, hueStart: 176, hueEnd: 190 },
  { name: 'violet', color: 0x800080, dim: 0x200040, hueStart: 191, hueEnd: 205 },
  { name: 'purple', color: 0x800080, dim: 0x200040, hueStart: 206, hueEnd: 215 },
  { name: 'pink', color: 0xffc0cb, dim: 0x400010, hueStart: 216, hueEnd: 235 },
  { name: 'magenta', color: 0xff00ff, dim: 0x400020, hueStart: 236, hueEnd: 252 },
  { name: 'brown', color: 0xa52a2a, dim: 0x200000, hueStart: 0, hueEnd: 0 },
  { name: 'white', color: 0xffffff, dim: 0x404040, hueStart: 0, hueEnd: 0 },
  { name: 'black', color: 0x000000, dim: 0x000000, hueStart: 0, hueEnd: 0 },
  { name: 'grey', color: 0x808080, dim: 0x202020, hueStart: 0, hueEnd: 0 },
];

/**
 * Colors.cpp:348 colorToName (trimmed, as colorValueToName returns it): black only for 0, white for
 * any grey level, else the first palette entry whose hue range holds the colour's hue, else the
 * nearest entry (RGB distance to the dim colours when the colour is dim, hue/saturation otherwise).
 */
export function firmwareColorName(rgb: number): string {
  const color = rgb & 0xffffff;
  if (color === 0) return 'black';
  const r = (color >> 16) & 0xff;
  const g = (color >> 8) & 0xff;
  const b = color & 0xff;
  if (r === g && g === b) return 'white';
  const hsv = fwRgbToHsv(color);
  for (const e of FIRMWARE_COLORS) {
    if (e.hueStart === 0 && e.hueEnd === 0 && hsv.s > 40 && hsv.v > 30) continue;
    const inRange =
      e.hueStart < e.hueEnd
        ? hsv.h >= e.hueStart && hsv.h <= e.hueEnd
        : e.hueStart > e.hueEnd && (hsv.h >= e.hueStart || hsv.h <= e.hueEnd);
    if (inRange) return e.name;
  }
  const dim = hsv.v < 70;
  let best = FIRMWARE_COLORS[0] as PaletteEntry;
  let bestDist = Number.POSITIVE_INFINITY;
  for (const e of FIRMWARE_COLORS) {
    let dist: number;
    if (dim) {
      const dr = r - ((e.dim >> 16) & 0xff);
      const dg = g - ((e.dim >> 8) & 0xff);
      const db = b - (e.dim & 0xff);
      dist = dr * dr + dg * dg + db * db;
    } else {
      const ref = fwRgbToHsv(e.color);
      let dh = hsv.h - ref.h;
      if (dh > 127) dh = 255 - dh;
      if (dh < -127) dh = 255 + dh;
      const ds = hsv.s - ref.s;
      dist = dh * dh + ds * ds;
    }
    if (dist < bestDist) {
      bestDist = dist;
      best = e;
    }
  }
  return best.name;
}

/** C `strtoul(s, 0, 16)`: leading spaces, an optional sign and 0x, then hex digits; 0 if none. */
function strtoulHex(s: string): number {
  const m = /^\s*([+-]?)(?:0x)?([0-9a-f]*)/i.exec(s);
  const digits = m?.[2] ?? '';
  if (digits === '') return 0;
  // Out of range saturates at ULONG_MAX (32 bits on the RP2350); a minus sign negates, modulo 2^32.
  const n = Math.min(Number.parseInt(digits, 16), 0xffffffff);
  return m?.[1] === '-' ? (2 ** 32 - n) % 2 ** 32 : n;
}

/** Arduino `String::toInt` (atol): leading digits, 0 if none, wrapped to 32 bits. */
function toInt(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m?.[1] ? Number(BigInt.asUintN(32, BigInt(m[1]))) : 0;
}

/**
 * States.cpp:2407 parseColorValue, what `set_net_color(n, "text")` stores: the text is trimmed and
 * lower-cased; `0x`/`#` skip two characters and read hex (so `#FF0000` reads `F0000`), a leading digit
 * reads decimal, a palette name takes its dim colour; each is then dimmed by scaleBrightness
 * (-80 for hex, -50 otherwise). Undefined when the text is none of these (the call returns False).
 */
export function firmwareParseColor(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (s.startsWith('0x') || s.startsWith('#')) return scaleBrightness(strtoulHex(s.slice(2)) & 0xffffff, -80);
  if (/^[0-9]/.test(s)) return scaleBrightness(toInt(s) & 0xffffff, -50);
  const entry = FIRMWARE_COLORS.find((e) => e.name === s);
  return entry ? scaleBrightness(entry.dim, -50) : undefined;
}
