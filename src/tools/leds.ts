/**
 * LED overlays (spec §6.12): named rectangles of colour painted over the breadboard LEDs on a
 * 10-row x 30-column canvas (canvas rows 1-5 are the top half, 6-10 the bottom half; the column is
 * the breadboard row, or row - 30 in the bottom half). The board holds 8; `overlay_set_pixel`'s
 * full-canvas `_DIRECT_PIXELS_` overlay takes one of them (GraphicOverlays.cpp:213-236).
 *
 * Every change is read back. `overlay_serialize()` stops at 4095 characters without saying so
 * (JumperlessMicroPythonAPI.cpp:3172-3186; one full overlay is about 2.8 KB), so a longer list is
 * read from `get_state()`, whose overlays section is whole (JsonState.cpp:281-284): the whole state
 * comes back (33 KB on a full board), not a slice of it, which the board would hold next to it.
 * Names are written into that JSON unescaped (GraphicOverlays.cpp:485-487): the tools refuse `"`
 * and `\\`.
 */

import { z } from 'zod';
import { OVERLAY_COLS, OVERLAY_ROWS } from '../board/limits.js';
import { type StateDocumentOverlay, stateOverlaySchema } from '../board/stateDocument.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import { recordChange } from './journal.js';
import type { PythonPart } from './pythonParts.js';
import { hexColor } from './shapes.js';
import { defineDeviceTool } from './tool.js';

/** Board-side helpers, inside `_jlt`: the overlay list and its changes (undo reads the list too). */
export const ledsPython: PythonPart = {
  name: 'leds',
  source: `
def led_list():
    s = overlay_serialize()
    if len(s.encode()) < 4095:
        return s
    s = None
    return get_state()
def led_set(name, x, y, h, w, colors):
    i = overlay_set(name, x, y, h, w, colors)
    return [i, _jlt.led_list()]
def led_clear(name):
    r = overlay_clear(name)
    return [r, _jlt.led_list()]
def led_clear_all():
    overlay_clear_all()
    return _jlt.led_list()
def led_pixels(px):
    for i in range(0, len(px), 3):
        overlay_set_pixel(px[i], px[i + 1], px[i + 2])
    return len(px) // 3
`,
};

export const python: readonly PythonPart[] = [ledsPython];

const REQUIRES = ['overlay_serialize', 'get_state'] as const;

/** An overlay as the firmware lists it (`RRGGBB` per pixel, row by row). */

/**
 * The overlays from `_jlt.led_list()`: the `"overlays": [...]` fragment of the state JSON, key
 * included (spec §6.12), or the whole state when the fragment is too long for overlay_serialize; a
 * bare list is accepted too. Undefined when the text is not JSON, e.g. because an overlay name
 * holds a quote (the board writes names unescaped).
 */
export function readOverlays(text: unknown): StateDocumentOverlay[] | undefined {
  if (typeof text !== 'string') return undefined;
  const trimmed = text.trim();
  try {
    const doc: unknown = JSON.parse(trimmed.startsWith('"') ? `{${trimmed}}` : trimmed);
    const list = Array.isArray(doc) ? doc : (doc as { overlays?: unknown }).overlays;
    const parsed = z.array(stateOverlaySchema).safeParse(list);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const UNREADABLE =
  "The board's overlay list is not valid JSON: an overlay name holding a quote or a backslash (set outside these tools) breaks it, as the firmware writes names unescaped. overlay_clear without a name removes every overlay.";

/** readOverlays, or a bad_reply error for tools whose answer is the list itself. */
export function parseOverlays(text: unknown): StateDocumentOverlay[] {
  const overlays = readOverlays(text);
  if (!overlays)
    throw new ToolError('bad_reply', UNREADABLE, { details: { reply: String(text).slice(0, 120) } });
  return overlays;
}

const wrap = (v: number, size: number): number => ((((v - 1) % size) + size) % size) + 1;

/**
 * What the LEDs show: 300 colours row-major (`(row-1)*30 + (col-1)`), later overlays over earlier
 * ones, black (0) transparent, positions wrapping at the edges as the firmware does.
 */
export function overlayCanvas(overlays: readonly StateDocumentOverlay[]): Uint32Array {
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

const colorArg = hexColor;
const toInt = (color: string): number => Number.parseInt(color.slice(1), 16);
const toHex = (rgb: string): string => `#${rgb.toLowerCase().padStart(6, '0')}`;

/**
 * Overlay names: letters, digits, space, `_ . -`, 1-31 characters; a leading `_` is left to the
 * firmware's own. No quote or backslash (they corrupt the board's state JSON), and no more than 31
 * bytes: the board stores 31 but compares the whole name, so a longer one never matches again and
 * each set takes another of the 8 slots (GraphicOverlays.cpp:138-211).
 */
const OVERLAY_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,30}$/;
// A refinement, not a schema pattern: the charset protects the board's parser, and the error says
// what to change; the length the schema shows.
const nameArg = z
  .string()
  .min(1)
  .max(31)
  .refine((name) => OVERLAY_NAME.test(name), 'letters, digits, space, _ . - (1-31, not starting with _)');

/** A name to clear: any existing one the board can match (at most 31 bytes), without `"` or `\\`. */
const clearNameArg = z
  .string()
  .min(1)
  .max(31)
  .refine(
    (n) => !/["\\]/.test(n),
    'no quote or backslash: such names corrupt the board state (overlay_clear without a name removes every overlay)',
  )
  .refine((n) => Buffer.byteLength(n) <= 31, 'at most 31 bytes: the board never matches a longer name');

/**
 * Canvas coordinates: x_col is the breadboard row (31-60: minus 30), y_row 1-5 the top half's holes,
 * 6-10 the bottom's. overlay_set_pixels tells a model so; overlay_set's 600 bytes have no room.
 */
const canvasCol = z.number().int().min(1).max(OVERLAY_COLS);
const canvasRow = z.number().int().min(1).max(OVERLAY_ROWS);

const overlayOut = z.object({
  name: z.string(),
  x_col: z.number(),
  y_row: z.number(),
  width: z.number(),
  height: z.number(),
  colors: z.array(z.string()),
});
const toOut = (o: StateDocumentOverlay): z.infer<typeof overlayOut> => ({
  name: o.name,
  x_col: o.col,
  y_row: o.row,
  width: o.width,
  height: o.height,
  colors: o.colors.map(toHex),
});

/**
 * Sends one overlay and checks the board holds it as sent. `verified` is false when the read-back
 * was unreadable: the board accepted the overlay (it returned a slot), so that is not a failure.
 */
async function putOverlay(
  board: { call<T>(expression: string): Promise<T> },
  o: { name: string; x: number; y: number; width: number; height: number; colors: number[] },
): Promise<{ index: number; verified: boolean; after: StateDocumentOverlay[] | undefined }> {
  // Argument order per the firmware source (spec §6.12): name, x_col, y_row, height, width, colors.
  const [index, text] = z
    .tuple([z.number(), z.string()])
    .parse(
      await board.call(py`_jlt.led_set(${o.name}, ${o.x}, ${o.y}, ${o.height}, ${o.width}, ${o.colors})`),
    );
  if (index < 0) {
    throw new ToolError(
      'overlay_refused',
      'The board holds 8 overlays and all are taken (single LEDs set with overlay_set_pixels use one): clear some with overlay_clear.',
    );
  }
  const overlays = readOverlays(text);
  if (!overlays) return { index, verified: false, after: undefined };
  const stored = overlays.find((x) => x.name === o.name);
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
  return { index, verified: true, after: overlays };
}

/**
 * Runs an overlay change and writes it into the journal for undo, with the list before (one more
 * read) and the list after (the change's own read-back); unreadable lists are not journaled.
 */
async function journaled<T>(
  board: BoardClient,
  tool: string,
  label: string,
  run: () => Promise<{ result: T; after: StateDocumentOverlay[] | undefined }>,
): Promise<T> {
  const before = readOverlays(await board.call('_jlt.led_list()'));
  const { result, after } = await run();
  if (before && after && JSON.stringify(before) !== JSON.stringify(after)) {
    recordChange(board, { tool, label, overlays: { before, after } });
  }
  return result;
}

const verifiedField = z
  .boolean()
  .describe('false: the board took the change but its overlay list could not be read back');

export const overlaySet = defineDeviceTool({
  name: 'overlay_set',
  title: 'Paint an LED overlay',
  description: 'Fill a named LED rectangle (same name replaces).',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_set', ...REQUIRES],
  input: z.object({
    name: nameArg,
    x_col: canvasCol,
    y_row: canvasRow,
    width: z.number().int().min(1).max(OVERLAY_COLS),
    height: z.number().int().min(1).max(OVERLAY_ROWS),
    // One colour: a bitmap is single LEDs (overlay_set_pixels); two ways in one schema would not fit a model's budget.
    color: colorArg,
  }),
  output: overlayOut.extend({ index: z.number(), verified: verifiedField }),
  handle: async ({ name, x_col, y_row, width, height, color }, { board }) => {
    if (x_col + width - 1 > OVERLAY_COLS || y_row + height - 1 > OVERLAY_ROWS) {
      throw new ToolError(
        'out_of_canvas',
        `A ${width}x${height} overlay at column ${x_col}, row ${y_row} goes past the 30x10 canvas.`,
      );
    }
    const list = Array<string>(width * height).fill(color);
    return journaled(board, 'overlay_set', `overlay_set "${name}"`, async () => {
      const { index, verified, after } = await putOverlay(board, {
        name,
        x: x_col,
        y: y_row,
        width,
        height,
        colors: list.map(toInt),
      });
      const colors = list.map((c) => c.toLowerCase());
      return { result: { index, verified, name, x_col, y_row, width, height, colors }, after };
    });
  },
});

const remainingField = z
  .number()
  .nullable()
  .describe('Overlays left; null when the board list could not be read back');

/** One tool for both clears (it replaced overlay_clear_all): no name clears every overlay. */
export const overlayClear = defineDeviceTool({
  name: 'overlay_clear',
  title: 'Remove LED overlays',
  description:
    'Remove the overlay of that name (_DIRECT_PIXELS_: single LEDs), or all without one; the LEDs show the nets again.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_clear', 'overlay_clear_all', ...REQUIRES],
  requiresFor: ({ name }) => [name === undefined ? 'overlay_clear_all' : 'overlay_clear', ...REQUIRES],
  input: z.object({ name: clearNameArg.optional() }),
  output: z.object({ cleared: z.boolean(), remaining: remainingField }),
  handle: async ({ name }, { board }) =>
    journaled(
      board,
      'overlay_clear',
      name === undefined ? 'overlay_clear (all)' : `overlay_clear "${name}"`,
      async () => {
        if (name === undefined) {
          const left = parseOverlays(await board.call('_jlt.led_clear_all()'));
          if (left.length > 0) throw new ToolError('not_applied', `${left.length} overlays are still there.`);
          return { result: { cleared: true, remaining: 0 }, after: left };
        }
        const [removed, text] = z
          .tuple([z.number(), z.unknown()])
          .parse(await board.call(py`_jlt.led_clear(${name})`));
        const left = readOverlays(text);
        if (left?.some((o) => o.name === name)) {
          throw new ToolError('not_applied', `Overlay "${name}" is still there.`);
        }
        return { result: { cleared: removed === 1, remaining: left ? left.length : null }, after: left };
      },
    ),
});

export const overlayList = defineDeviceTool({
  name: 'overlay_list',
  title: 'List LED overlays',
  description: 'The LED overlays; _DIRECT_PIXELS_ holds single LEDs.',
  group: 'leds',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...REQUIRES],
  input: z.object({}),
  output: z.object({ overlays: z.array(overlayOut) }),
  handle: async (_args, { board }) => ({
    overlays: parseOverlays(await board.call('_jlt.led_list()')).map(toOut),
  }),
});

export const overlaySetPixels = defineDeviceTool({
  name: 'overlay_set_pixels',
  title: 'Set single LEDs',
  description:
    'Set single LEDs, in overlay _DIRECT_PIXELS_: x_col is the row (31-60: minus 30), y_row 1-5 top, 6-10 bottom.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_set_pixel', ...REQUIRES],
  input: z.object({
    pixels: z
      .array(z.object({ x_col: canvasCol, y_row: canvasRow, color: colorArg }))
      .min(1)
      .max(OVERLAY_ROWS * OVERLAY_COLS),
  }),
  output: z.object({
    set: z.number(),
    hidden: z
      .array(z.object({ x_col: z.number(), y_row: z.number() }))
      .nullable()
      .describe('Pixels under a later overlay; null when the board list could not be read back'),
  }),
  handle: async ({ pixels }, { board }) =>
    journaled(board, 'overlay_set_pixels', `overlay_set_pixels (${pixels.length})`, async () => {
      const result = await setPixels(board, pixels);
      return { result: result.result, after: result.overlays };
    }),
});

async function setPixels(
  board: BoardClient,
  pixels: ReadonlyArray<{ x_col: number; y_row: number; color: string }>,
): Promise<{
  result: { set: number; hidden: Array<{ x_col: number; y_row: number }> | null };
  overlays: StateDocumentOverlay[] | undefined;
}> {
  // Flat [x, y, colour, ...] (300 small lists would take 10 KB of the board's heap), and the
  // list read back in a job of its own, so the board never holds both.
  await board.call(py`_jlt.led_pixels(${pixels.flatMap((p) => [p.x_col, p.y_row, toInt(p.color)])})`);
  const overlays = readOverlays(await board.call('_jlt.led_list()'));
  if (!overlays) return { result: { set: pixels.length, hidden: null }, overlays };
  const canvas = overlayCanvas(overlays);
  // Later pixels win over earlier ones at the same spot, as on the board.
  const last = new Map(pixels.map((p) => [`${p.x_col},${p.y_row}`, p]));
  const hidden = [...last.values()]
    .filter(
      (p) => toInt(p.color) !== 0 && canvas[(p.y_row - 1) * OVERLAY_COLS + p.x_col - 1] !== toInt(p.color),
    )
    .map((p) => ({ x_col: p.x_col, y_row: p.y_row }));
  return { result: { set: pixels.length, hidden }, overlays };
}

export const rowsHighlight = defineDeviceTool({
  name: 'rows_highlight',
  title: 'Highlight breadboard rows',
  description:
    'Light whole rows in one colour, e.g. where a part goes; same name replaces, no rows removes it.',
  group: 'leds',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['overlay_set', 'overlay_clear', ...REQUIRES],
  input: z.object({
    rows: z.array(z.number().int().min(1).max(60)).max(60),
    color: colorArg.default('#402a00'),
    name: nameArg.default('highlight'),
  }),
  output: z.object({
    name: z.string(),
    rows: z.array(z.number()),
    color: z.string(),
    index: z.number().nullable(),
    verified: verifiedField,
  }),
  handle: async ({ rows, color, name }, { board }) =>
    journaled(board, 'rows_highlight', `rows_highlight "${name}"`, () => highlight(board, rows, color, name)),
});

async function highlight(board: BoardClient, rows: readonly number[], color: string, name: string) {
  const set = new Set(rows);
  const sorted = [...set].sort((a, b) => a - b);
  if (sorted.length === 0) {
    const [, text] = z.tuple([z.unknown(), z.unknown()]).parse(await board.call(py`_jlt.led_clear(${name})`));
    const left = readOverlays(text);
    if (left?.some((o) => o.name === name)) {
      throw new ToolError('not_applied', `Highlight "${name}" is still there.`);
    }
    return {
      result: {
        name,
        rows: [] as number[],
        color: color.toLowerCase(),
        index: null as number | null,
        verified: left !== undefined,
      },
      after: left,
    };
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
  const { index, verified, after } = await putOverlay(board, { name, x: x0, y: y0, width, height, colors });
  return {
    result: { name, rows: sorted, color: color.toLowerCase(), index: index as number | null, verified },
    after,
  };
}

export default [overlaySet, overlayClear, overlayList, overlaySetPixels, rowsHighlight];
