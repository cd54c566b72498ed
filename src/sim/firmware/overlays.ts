/**
 * LED overlays (spec §6.12): named rectangles of colours painted over the breadboard LEDs on a
 * 10-row x 30-column canvas (rows 1-5 top half, 6-10 bottom half; column = breadboard column).
 * Up to 8 overlays, each at most 30 x 10; colour 0 is transparent; positions wrap at the edges.
 */
import type { OverlayInput } from '../../board/state.js';
import { asInt } from './args.js';
import type { OverlayAccess } from './hardware.js';
import { type FirmwareFunctions, type Json, PyError } from './types.js';

export const CANVAS_ROWS = 10;
export const CANVAS_COLS = 30;
const MAX_OVERLAYS = 8;
/** GraphicOverlays.h:48: `char name[32]`, so a stored name keeps at most 31 bytes. */
const MAX_NAME_BYTES = 31;
/** JumperlessMicroPythonAPI.cpp:3172-3186: overlay_serialize copies into a 4096-byte static buffer. */
export const SERIALIZE_LIMIT = 4095;
/** `overlay_set_pixel` draws into this full-canvas overlay, created on first use. */
const DIRECT_PIXELS = '_DIRECT_PIXELS_';

export interface Overlay {
  name: string;
  row: number;
  col: number;
  width: number;
  height: number;
  /** Row-major, `height * width` entries of 0xRRGGBB (0 = transparent). */
  colors: number[];
}

export interface OverlayState {
  /** Indexed by overlay slot, which is what `overlay_set` returns. */
  slots: (Overlay | undefined)[];
}

export function createOverlayState(): OverlayState {
  return { slots: Array.from({ length: MAX_OVERLAYS }, () => undefined) };
}

const wrap = (v: number, size: number): number => ((((v - 1) % size) + size) % size) + 1;

/**
 * GraphicOverlays.cpp:202-211: lookups compare the FULL requested name with the stored (truncated)
 * one, so a name longer than 31 bytes never matches again.
 */
function findSlot(state: OverlayState, name: string): number {
  return state.slots.findIndex((o) => o?.name === name);
}

/** The first `max` bytes of the UTF-8 text, without a trailing half character. */
function cutUtf8(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  let end = max;
  // bytes[end] is the first byte left out: while it continues a character, that character is cut.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** `strncpy(name, src, 31)` (GraphicOverlays.cpp:152-153). */
export const storedName = (name: string): string => cutUtf8(name, MAX_NAME_BYTES);

/** Adds or replaces an overlay; returns its slot or -1 (bad size or position, or no free slot). */
export function setOverlay(
  state: OverlayState,
  name: string,
  row: number,
  col: number,
  width: number,
  height: number,
  colors: readonly number[],
): number {
  if (width <= 0 || height <= 0) return -1;
  if (row < 1 || row > CANVAS_ROWS || col < 1 || col > CANVAS_COLS) return -1;
  if (width > CANVAS_COLS || height > CANVAS_ROWS) return -1;
  const overlay: Overlay = {
    name: storedName(name),
    row,
    col,
    width,
    height,
    colors: colors.slice(0, width * height).map((c) => c >>> 0),
  };
  const existing = findSlot(state, name);
  if (existing >= 0) {
    state.slots[existing] = overlay;
    return existing;
  }
  const free = state.slots.indexOf(undefined);
  if (free < 0) return -1;
  state.slots[free] = overlay;
  return free;
}

export function clearOverlay(state: OverlayState, name: string): boolean {
  const slot = findSlot(state, name);
  if (slot < 0) return false;
  state.slots[slot] = undefined;
  return true;
}

export function clearAllOverlays(state: OverlayState): void {
  state.slots.fill(undefined);
}

export function setOverlayPixel(state: OverlayState, row: number, col: number, color: number): void {
  if (row < 1 || row > CANVAS_ROWS || col < 1 || col > CANVAS_COLS) return;
  let slot = findSlot(state, DIRECT_PIXELS);
  if (slot < 0) {
    slot = setOverlay(state, DIRECT_PIXELS, 1, 1, CANVAS_COLS, CANVAS_ROWS, []);
    if (slot < 0) return;
  }
  const overlay = state.slots[slot];
  if (overlay) overlay.colors[(row - 1) * CANVAS_COLS + (col - 1)] = color >>> 0;
}

/** Moves an overlay to (row, col), wrapping around the canvas edges. */
export function placeOverlay(state: OverlayState, name: string, row: number, col: number): boolean {
  const overlay = state.slots[findSlot(state, name)];
  if (!overlay) return false;
  overlay.row = wrap(row, CANVAS_ROWS);
  overlay.col = wrap(col, CANVAS_COLS);
  return true;
}

export function shiftOverlay(state: OverlayState, name: string, dRow: number, dCol: number): boolean {
  const overlay = state.slots[findSlot(state, name)];
  if (!overlay) return false;
  return placeOverlay(state, name, overlay.row + dRow, overlay.col + dCol);
}

const hex6 = (c: number): string => (c & 0xffffff).toString(16).toUpperCase().padStart(6, '0');

/**
 * The `"overlays": [...]` fragment, byte for byte as the firmware's serializer writes it (spec §6.12:
 * the key is included, so it is not a JSON document on its own; `get_state` embeds it). The name is
 * written raw, unescaped (GraphicOverlays.cpp:485-487): a `"` or `\\` in it makes the text invalid JSON.
 */
export function serializeOverlays(state: OverlayState): string {
  const items = state.slots
    .filter((o): o is Overlay => o !== undefined)
    .map((o) => {
      const colors = Array.from({ length: o.width * o.height }, (_, i) => `"${hex6(o.colors[i] ?? 0)}"`);
      return (
        `\n    {"name":"${o.name}","row":${o.row},"col":${o.col},` +
        `"width":${o.width},"height":${o.height},"colors":[${colors.join(',')}]}`
      );
    });
  return `  "overlays": [${items.join(',')}\n  ]`;
}

/**
 * What `overlay_serialize()` returns: the fragment cut at 4095 bytes, mid-token and without an
 * error (JumperlessMicroPythonAPI.cpp:3172-3186). A cut inside a multi-byte character drops that
 * character (the board would hand MicroPython a broken UTF-8 tail).
 */
export function serializeOverlaysCapped(state: OverlayState): string {
  return cutUtf8(serializeOverlays(state), SERIALIZE_LIMIT);
}

/**
 * How `get_state` lists the overlays and `set_state` replaces them (hardware.ts `OverlayAccess`);
 * entries the firmware would refuse (bad size, position or name) are skipped.
 */
export function overlayAccess(state: OverlayState): OverlayAccess {
  return {
    list: (): OverlayInput[] =>
      state.slots
        .filter((o): o is Overlay => o !== undefined)
        .map((o) => ({
          ...o,
          colors: Array.from({ length: o.width * o.height }, (_, i) => (o.colors[i] ?? 0) & 0xffffff),
        })),
    replace: (overlays) => {
      clearAllOverlays(state);
      for (const o of overlays) {
        if (o.name !== '') setOverlay(state, o.name, o.row, o.col, o.width, o.height, o.colors);
      }
    },
  };
}

/**
 * The canvas as the LEDs show it: 300 colours, row-major (`(row-1)*30 + (col-1)`), later slots
 * painted over earlier ones, transparent pixels left 0.
 */
export function renderOverlays(state: OverlayState): Uint32Array {
  const canvas = new Uint32Array(CANVAS_ROWS * CANVAS_COLS);
  for (const o of state.slots) {
    if (!o) continue;
    for (let r = 0; r < o.height; r++) {
      for (let c = 0; c < o.width; c++) {
        const color = o.colors[r * o.width + c] ?? 0;
        if (color === 0) continue;
        const row = wrap(o.row + r, CANVAS_ROWS);
        const col = wrap(o.col + c, CANVAS_COLS);
        canvas[(row - 1) * CANVAS_COLS + (col - 1)] = color & 0xffffff;
      }
    }
  }
  return canvas;
}

const asStr = (x: Json | undefined): string => {
  if (typeof x !== 'string') throw new PyError('TypeError', "can't convert to str implicitly");
  return x;
};

export function overlayFunctions(state: OverlayState): FirmwareFunctions {
  return {
    // Python flattens the (possibly 2-D) colour list and sends the ints; argument order per §6.12.
    overlay_set: (name, xCol, yRow, height, width, colors) => {
      const w = asInt(width);
      const h = asInt(height);
      const list = Array.isArray(colors) ? colors.map((c) => asInt(c)) : [];
      if (w > 0 && h > 0 && list.length < w * h) throw new PyError('ValueError', 'Color array too small');
      return setOverlay(state, asStr(name), asInt(yRow), asInt(xCol), w, h, list);
    },
    overlay_clear: (name) => (clearOverlay(state, asStr(name)) ? 1 : 0),
    overlay_clear_all: () => {
      clearAllOverlays(state);
      return null;
    },
    overlay_set_pixel: (xCol, yRow, color) => {
      setOverlayPixel(state, asInt(yRow), asInt(xCol), asInt(color));
      return null;
    },
    overlay_count: () => state.slots.filter(Boolean).length,
    overlay_shift: (name, dx, dy) => (shiftOverlay(state, asStr(name), asInt(dy), asInt(dx)) ? 1 : 0),
    overlay_place: (name, x, y) => (placeOverlay(state, asStr(name), asInt(y), asInt(x)) ? 1 : 0),
    overlay_serialize: () => serializeOverlaysCapped(state),
    /** The rendered canvas, 300 ints row-major, for the backchannel and pictures of the board. */
    _overlay_canvas: () => Array.from(renderOverlays(state)),
  };
}
