/**
 * LED overlays (spec §6.12): named rectangles of colour painted over the breadboard LEDs on a
 * 10-row x 30-column canvas (canvas rows 1-5 are the top half, 6-10 the bottom half; the column is
 * the breadboard row, or row - 30 in the bottom half). Every change is read back with
 * `overlay_serialize()`.
 */
import { z } from 'zod';
import { OVERLAY_COLS, OVERLAY_ROWS } from '../board/limits.js';
import { py } from './py.js';
import { defineTool, ToolError } from './tool.js';

export const python = `
def led_set(name, x, y, h, w, colors):
    i = overlay_set(name, x, y, h, w, colors)
    return [i, overlay_serialize()]
def led_clear(name):
    r = overlay_clear(name)
    return [r, overlay_serialize()]
def led_clear_all():
    overlay_clear_all()
    return overlay_serialize()
def led_pixels(px):
    for p in px:
        overlay_set_pixel(p[0], p[1], p[2])
    return overlay_serialize()
`;

const REQUIRES = ['overlay_serialize'] as const;

export interface Overlay {
  name: string;
  row: number;
  col: number;
  width: number;
  height: number;
  /** `RRGGBB` per pixel, row by row (the firmware's form). */
  colors: string[];
}

const overlaySchema = z.object({
  name: z.string(),
  row: z.number().int(),
  col: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  colors: z.array(z.string()),
});

/**
 * `overlay_serialize()` returns the `"overlays": [...]` fragment of the state JSON, key included
 * (spec §6.12); a bare list or a whole object are accepted too.
 */
export function parseOverlays(text: unknown): Overlay[] {
  if (typeof text !== 'string') throw new ToolError('bad_reply', 'overlay_serialize() did not return text.');
  const trimmed = text.trim();
  const candidates = trimmed.startsWith('"') ? [`{${trimmed}}`] : [trimmed];
  for (const candidate of candidates) {
    try {
      const doc: unknown = JSON.parse(candidate);
      const list = Array.isArray(doc) ? doc : (doc as { overlays?: unknown }).overlays;
      return z.array(overlaySchema).parse(list);
    } catch {}
  }
  throw new ToolError(
    'bad_reply',
    `overlay_serialize() returned something unreadable: ${trimmed.slice(0, 120)}`,
  );
}

const wrap = (v: number, size: number): number => ((((v - 1) % size) + size) % size) + 1;

/**
 * What the LEDs show: 300 colours row-major (`(row-1)*30 + (col-1)`), later overlays over earlier
 * ones, black (0) transparent, positions wrapping at the edges as the firmware does.
 */
export function overlayCanvas(overlays: readonly Overlay[]): Uint32Array {
  const canvas = new Uint32Array(OVERLAY_ROWS * OVERLAY_COLS);
  for (const o of overlays) {
    for (let r = 0; r < o.height; r++) {
      for (let c = 0; c < o.width; c++) {
        const color = Number.parseInt(o.colors[r * o.width + c] ?? '0', 16) || 0;
        if (color === 0) continue;
        canvas[(wrap(o.row + r, OVERLAY_ROWS) - 1) * OVERLAY_COLS + wrap(o.col + c, OVERLAY_COLS) - 1] =
          color;
      }
    }
  }
  return canvas;
}

/** The five canvas cells of breadboard row 1-60 (its five holes, top to bottom). */
export function rowCells(row: number): Array<{ yRow: number; xCol: number }> {
  const top = row <= 30;
  const xCol = top ? row : row - 30;
  return Array.from({ length: 5 }, (_, i) => ({ yRow: (top ? 1 : 6) + i, xCol }));
}

const colorArg = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb')
  .describe('#rrggbb; #000000 is transparent. Dim colours (about 25%) are easier on the eyes');
const toInt = (color: string): number => Number.parseInt(color.slice(1), 16);
const toHex = (rgb: string): string => `#${rgb.toLowerCase().padStart(6, '0')}`;

/** Overlay names: letters, digits, space, `_ . -`; a leading `_` is left to the firmware's own. */
const nameArg = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,30}$/, 'letters, digits, space, _ . - (1-31, not starting with _)')
  .describe('Overlay name (replaces an overlay of the same name)');

const xCol = z
  .number()
  .int()
  .min(1)
  .max(OVERLAY_COLS)
  .describe('Column 1-30 (= breadboard row, or row - 30)');
const yRow = z
  .number()
  .int()
  .min(1)
  .max(OVERLAY_ROWS)
  .describe('Canvas row 1-10 (1-5 top half, 6-10 bottom)');

const overlayOut = z.object({
  name: z.string(),
  x_col: z.number(),
  y_row: z.number(),
  width: z.number(),
  height: z.number(),
  colors: z.array(z.string()),
});
const toOut = (o: Overlay): z.infer<typeof overlayOut> => ({
  name: o.name,
  x_col: o.col,
  y_row: o.row,
  width: o.width,
  height: o.height,
  colors: o.colors.map(toHex),
});

/** Sends one overlay and checks the board holds it as sent. */
async function putOverlay(
  board: { call<T>(expression: string): Promise<T> },
  o: { name: string; x: number; y: number; width: number; height: number; colors: number[] },
): Promise<number> {
  // Argument order per the firmware source (spec §6.12): name, x_col, y_row, height, width, colors.
  const [index, text] = z
    .tuple([z.number(), z.string()])
    .parse(
      await board.call(py`_jlt.led_set(${o.name}, ${o.x}, ${o.y}, ${o.height}, ${o.width}, ${o.colors})`),
    );
  if (index < 0) {
    throw new ToolError(
      'overlay_refused',
      'The firmware refused the overlay (it holds a limited number, about 8): clear some with overlay_clear.',
    );
  }
  const stored = parseOverlays(text).find((x) => x.name === o.name);
  const expected = o.colors.map((c) => c.toString(16).toUpperCase().padStart(6, '0'));
  if (
    !stored ||
    stored.col !== o.x ||
    stored.row !== o.y ||
    stored.width !== o.width ||
    stored.height !== o.height ||
    stored.colors.join() !== expected.join()
  ) {
    throw new ToolError('not_applied', `Overlay "${o.name}" reads back differently from what was sent.`, {
      details: { stored: stored ? toOut(stored) : null },
    });
  }
  return index;
}

export const overlaySet = defineTool({
  name: 'overlay_set',
  title: 'Paint an LED overlay',
  description:
    'Paint a named rectangle of colours over the breadboard LEDs (canvas 30 columns x 10 rows; column = breadboard row, rows 1-5 top half, 6-10 bottom). colors: one #rrggbb for a solid fill, or width*height of them row by row.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_set', ...REQUIRES],
  input: z.object({
    name: nameArg,
    x_col: xCol,
    y_row: yRow,
    width: z.number().int().min(1).max(OVERLAY_COLS),
    height: z.number().int().min(1).max(OVERLAY_ROWS),
    colors: z
      .array(colorArg)
      .min(1)
      .max(OVERLAY_ROWS * OVERLAY_COLS),
  }),
  output: overlayOut.extend({ index: z.number() }),
  handle: async ({ name, x_col, y_row, width, height, colors }, { board }) => {
    if (x_col + width - 1 > OVERLAY_COLS || y_row + height - 1 > OVERLAY_ROWS) {
      throw new ToolError(
        'out_of_canvas',
        `A ${width}x${height} overlay at column ${x_col}, row ${y_row} goes past the 30x10 canvas.`,
      );
    }
    const cells = width * height;
    if (colors.length !== 1 && colors.length !== cells) {
      throw new ToolError(
        'invalid_arguments',
        `Give 1 colour or ${cells} (width*height); got ${colors.length}.`,
      );
    }
    const list = colors.length === 1 ? Array<string>(cells).fill(colors[0] as string) : colors;
    const index = await putOverlay(board, {
      name,
      x: x_col,
      y: y_row,
      width,
      height,
      colors: list.map(toInt),
    });
    return { index, name, x_col, y_row, width, height, colors: list.map((c) => c.toLowerCase()) };
  },
});

export const overlayClear = defineTool({
  name: 'overlay_clear',
  title: 'Remove an LED overlay',
  description: 'Remove one overlay by name; the LEDs under it show the nets again.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_clear', ...REQUIRES],
  input: z.object({ name: z.string().min(1).max(31).describe('Overlay name') }),
  output: z.object({ cleared: z.boolean(), remaining: z.number() }),
  handle: async ({ name }, { board }) => {
    const [removed, text] = z
      .tuple([z.unknown(), z.string()])
      .parse(await board.call(py`_jlt.led_clear(${name})`));
    const left = parseOverlays(text);
    if (left.some((o) => o.name === name)) {
      throw new ToolError('not_applied', `Overlay "${name}" is still there.`);
    }
    return { cleared: Boolean(removed), remaining: left.length };
  },
});

export const overlayClearAll = defineTool({
  name: 'overlay_clear_all',
  title: 'Remove all LED overlays',
  description: 'Remove every overlay and pixel; the LEDs show the nets again.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_clear_all', ...REQUIRES],
  input: z.object({}),
  output: z.object({ remaining: z.number() }),
  handle: async (_args, { board }) => {
    const left = parseOverlays(await board.call('_jlt.led_clear_all()'));
    if (left.length > 0) throw new ToolError('not_applied', `${left.length} overlays are still there.`);
    return { remaining: 0 };
  },
});

export const overlayList = defineTool({
  name: 'overlay_list',
  title: 'List LED overlays',
  description:
    'List the overlays on the LEDs with their position, size and colours (#rrggbb, #000000 transparent).',
  group: 'leds',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...REQUIRES],
  input: z.object({}),
  output: z.object({ overlays: z.array(overlayOut) }),
  handle: async (_args, { board }) => ({
    overlays: parseOverlays(await board.call('overlay_serialize()')).map(toOut),
  }),
});

export const overlaySetPixels = defineTool({
  name: 'overlay_set_pixels',
  title: 'Set single LEDs',
  description:
    'Set single LEDs on the 30x10 overlay canvas (#000000 turns one back to transparent). Reports pixels hidden under a later overlay.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_set_pixel', ...REQUIRES],
  input: z.object({
    pixels: z
      .array(z.object({ x_col: xCol, y_row: yRow, color: colorArg }))
      .min(1)
      .max(OVERLAY_ROWS * OVERLAY_COLS),
  }),
  output: z.object({ set: z.number(), hidden: z.array(z.object({ x_col: z.number(), y_row: z.number() })) }),
  handle: async ({ pixels }, { board }) => {
    const text = await board.call(
      py`_jlt.led_pixels(${pixels.map((p) => [p.x_col, p.y_row, toInt(p.color)])})`,
    );
    const canvas = overlayCanvas(parseOverlays(text));
    // Later pixels win over earlier ones at the same spot, as on the board.
    const last = new Map(pixels.map((p) => [`${p.x_col},${p.y_row}`, p]));
    const hidden = [...last.values()]
      .filter(
        (p) => toInt(p.color) !== 0 && canvas[(p.y_row - 1) * OVERLAY_COLS + p.x_col - 1] !== toInt(p.color),
      )
      .map((p) => ({ x_col: p.x_col, y_row: p.y_row }));
    return { set: pixels.length, hidden };
  },
});

export const rowsHighlight = defineTool({
  name: 'rows_highlight',
  title: 'Highlight breadboard rows',
  description:
    'Light whole breadboard rows (all 5 holes) in one colour, e.g. to show a person where to place a part. Replaces the previous highlight of the same name; an empty list removes it.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_set', 'overlay_clear', ...REQUIRES],
  input: z.object({
    rows: z.array(z.number().int().min(1).max(60)).max(60).describe('Breadboard rows 1-60'),
    color: colorArg.default('#402a00'),
    name: nameArg.default('highlight'),
  }),
  output: z.object({
    name: z.string(),
    rows: z.array(z.number()),
    color: z.string(),
    index: z.number().nullable(),
  }),
  handle: async ({ rows, color, name }, { board }) => {
    const set = new Set(rows);
    const sorted = [...set].sort((a, b) => a - b);
    if (sorted.length === 0) {
      const [, text] = z
        .tuple([z.unknown(), z.string()])
        .parse(await board.call(py`_jlt.led_clear(${name})`));
      if (parseOverlays(text).some((o) => o.name === name)) {
        throw new ToolError('not_applied', `Highlight "${name}" is still there.`);
      }
      return { name, rows: [], color: color.toLowerCase(), index: null };
    }
    const cells = sorted.flatMap(rowCells);
    const x0 = Math.min(...cells.map((c) => c.xCol));
    const x1 = Math.max(...cells.map((c) => c.xCol));
    const y0 = Math.min(...cells.map((c) => c.yRow));
    const y1 = Math.max(...cells.map((c) => c.yRow));
    const width = x1 - x0 + 1;
    const height = y1 - y0 + 1;
    const lit = new Set(cells.map((c) => `${c.xCol},${c.yRow}`));
    const rgb = toInt(color);
    const colors = Array.from({ length: width * height }, (_, i) =>
      lit.has(`${x0 + (i % width)},${y0 + Math.floor(i / width)}`) ? rgb : 0,
    );
    const index = await putOverlay(board, { name, x: x0, y: y0, width, height, colors });
    return { name, rows: sorted, color: color.toLowerCase(), index };
  },
});

export default [overlaySet, overlayClear, overlayClearAll, overlayList, overlaySetPixels, rowsHighlight];
