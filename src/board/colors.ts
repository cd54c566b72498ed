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
