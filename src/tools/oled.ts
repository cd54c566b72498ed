/**
 * The optional OLED (spec §6.11; 128x32 by default, 128x64 when configured): print, clear, and the
 * framebuffer as a picture. Without a display started, `oled_get_framebuffer()` is None and every
 * OLED call does nothing (JumperlessMicroPythonAPI.cpp:1692-1879). oled_print and oled_clear start
 * it themselves: `oled_connect()` (oled.cpp:503-663) bridges the display's I2C pins first, on a V5
 * GPIO_7 to NANO_D2 and GPIO_8 to NANO_D3 (oled.cpp:4145-4181, config.h:185-191), then asks the
 * display; so they refuse while those nodes carry the user's wiring, and take the bridges off again
 * when no display answers. oled_show only reads, and says how to start one.
 */
import { z } from 'zod';
import { GPIO_7, GPIO_8, nanoD } from '../board/nodes.js';
import { encodePng, rowBytes } from '../board/png.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import type { PythonPart } from './pythonParts.js';
import { type BridgeView, bridgeViews, readBridges, SNAPSHOT_REQUIRES, snapshotPython } from './snapshot.js';
import { defineDeviceTool } from './tool.js';

/**
 * Python run on the board, inside `_jlt`. The framebuffer travels as hex (width*height/8 bytes,
 * SSD1306 page layout) with its size; `oled_get_framebuffer()` gives None without a display.
 */
export const python: readonly PythonPart[] = [
  {
    name: 'oled',
    source: `
def oled_fb():
    import binascii
    b = oled_get_framebuffer()
    if b is None:
        return None
    s = oled_get_framebuffer_size()
    return [s[0], s[1], binascii.hexlify(b).decode()]
def oled_text(t, s):
    oled_print(t, size=s)
    return [len(t), _jlt.oled_fb()]
def oled_blank():
    oled_clear(True)
    return _jlt.oled_fb()
def oled_start():
    oled_connect()
    on = oled_get_framebuffer() is not None
    if not on:
        oled_disconnect()
    return [on, _jlt.snap_bridges()]
`,
  },
  snapshotPython,
];

const START_REQUIRES = ['oled_connect', 'oled_disconnect', ...SNAPSHOT_REQUIRES] as const;

/** Longer text cannot show on a 128x32 screen (4 lines of 21 characters at most). */
export const OLED_TEXT_MAX = 1024;

/**
 * Characters that fit a 128x32 screen at each size, about: 2 = 2 lines of 10, 1 and 0 = 4 lines
 * of 21 (0 scrolls). The firmware's fonts are proportional and it shrinks text to fit, so these
 * only guide the choice of size.
 */
const FITS = { 2: { perLine: 10, lines: 2 }, 1: { perLine: 21, lines: 4 } } as const;

/** Size 2 when the text fits it, else 1. */
export function autoTextSize(text: string): 1 | 2 {
  const lines = text.split('\n');
  const { perLine, lines: max } = FITS[2];
  const fits = lines.length <= max && lines.every((line) => [...line].length <= perLine);
  return fits ? 2 : 1;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Lone UTF-16 surrogates have no UTF-8 form: refuse them rather than print a replacement. */
export function checkText(text: string, field: string): void {
  if (LONE_SURROGATE.test(text)) {
    throw new ToolError('bad_text', `${field} holds a lone UTF-16 surrogate; send well-formed Unicode text.`);
  }
}

export interface Framebuffer {
  width: number;
  height: number;
  /** SSD1306 page layout: byte `page*width + x`, bit `y % 8`. */
  bytes: Uint8Array;
}

/** `_jlt.oled_fb()`'s reply: undefined without a display. */
export function decodeFramebuffer(reply: unknown): Framebuffer | undefined {
  if (reply === null) return undefined;
  const parsed = z.tuple([z.number().int(), z.number().int(), z.string()]).safeParse(reply);
  const [width, height, hex] = parsed.success ? parsed.data : [0, 0, ''];
  const sane = width > 0 && width <= 128 && height > 0 && height <= 64 && height % 8 === 0;
  if (!sane || hex.length !== (width * height) / 4 || !/^[0-9a-f]*$/i.test(hex)) {
    throw new ToolError('bad_framebuffer', 'The board returned a framebuffer that does not match its size.', {
      details: { width, height, hex_chars: hex.length },
    });
  }
  return { width, height, bytes: Uint8Array.from(Buffer.from(hex, 'hex')) };
}

/** Pixel (x, y) of an SSD1306 page-layout buffer. */
const lit = (fb: Framebuffer, x: number, y: number): boolean =>
  (((fb.bytes[(y >> 3) * fb.width + x] ?? 0) >> (y & 7)) & 1) === 1;

export function countLit(fb: Uint8Array): number {
  let n = 0;
  for (const byte of fb) for (let b = byte; b; b &= b - 1) n++;
  return n;
}

/** The screen as a 1-bit PNG, each pixel `scale` x `scale`, white on black. */
export function framebufferPng(fb: Framebuffer, scale = 4): Uint8Array {
  const width = fb.width * scale;
  const height = fb.height * scale;
  const stride = rowBytes(width, 'gray1');
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!lit(fb, Math.floor(x / scale), Math.floor(y / scale))) continue;
      const i = y * stride + (x >> 3);
      pixels[i] = (pixels[i] ?? 0) | (0x80 >> (x & 7));
    }
  }
  return encodePng({ width, height, format: 'gray1', pixels });
}

const noDisplay = (): ToolError =>
  new ToolError(
    'no_display',
    'No OLED display is on: oled_print or oled_clear starts one (it takes GPIO_7-D2 and GPIO_8-D3 for its I2C).',
  );

/** The V5's OLED wiring (config.h:185-191): the I2C pins and the Nano pins they are bridged to. */
const OLED_PINS: ReadonlyArray<readonly [number, number]> = [
  [GPIO_7, nanoD(2)],
  [GPIO_8, nanoD(3)],
];

/**
 * Starts the display as oled_connect() does, when its pins are free: refused while GPIO_7, GPIO_8,
 * D2 or D3 carry other wiring (the bridges would join the display's bus to it). Returns the
 * bridges it made; throws `no_display` (bridges taken off) when no display answers.
 */
async function startDisplay(board: BoardClient): Promise<string[]> {
  const before = await readBridges(board);
  const oledBridge = (b: BridgeView) =>
    OLED_PINS.some(([x, y]) => (b.node1 === x && b.node2 === y) || (b.node1 === y && b.node2 === x));
  const busy = before.filter(
    (b) => !oledBridge(b) && OLED_PINS.flat().some((n) => b.node1 === n || b.node2 === n),
  );
  if (busy.length > 0) {
    throw new ToolError(
      'pins_in_use',
      `No OLED display is on, and starting one would bridge GPIO_7 to D2 and GPIO_8 to D3, which carry your wiring (${busy.map((b) => `${b.node1_name}-${b.node2_name}`).join(', ')}): the display's bus would join it. Nothing was changed. Free those pins (disconnect) to use the display.`,
    );
  }
  const [started, rows] = z.tuple([z.boolean(), z.unknown()]).parse(await board.call('_jlt.oled_start()'));
  board.seen.delete('connections.bridges');
  if (!started) {
    throw new ToolError(
      'no_display',
      'No OLED display answered on its I2C pins (GPIO_7/D2, GPIO_8/D3): is one plugged in?',
    );
  }
  const after = bridgeViews(rows);
  return after
    .filter((b) => !before.some((x) => x.node1 === b.node1 && x.node2 === b.node2))
    .map((b) => `${b.node1_name}-${b.node2_name}`);
}

/** Runs an OLED call, starting the display first when none is on. */
async function withDisplay<T>(
  board: BoardClient,
  run: () => Promise<T | undefined>,
): Promise<{ value: T; started: string[] | undefined }> {
  const first = await run();
  if (first !== undefined) return { value: first, started: undefined };
  const started = await startDisplay(board);
  const second = await run();
  if (second === undefined) throw noDisplay();
  return { value: second, started };
}

const startedField = z
  .array(z.string())
  .optional()
  .describe('The display was off: started, with these bridges for its I2C');

/** Said with a start, so a model knows the pins stay taken and how to give them back (issue 20). */
const STARTED_NOTE =
  'These I2C bridges stay while the display is used; disconnect them (GPIO_7-D2, GPIO_8-D3) to free the pins, which turns the display off.';
const startedResult = (started: string[] | undefined) =>
  started ? { started_display: started, i2c_bridges: STARTED_NOTE } : {};

export const oledPrint = defineDeviceTool({
  name: 'oled_print',
  title: 'Show text on the OLED',
  description:
    'Show text on the OLED (\\n breaks lines). Off: starts it, bridging GPIO_7-D2, GPIO_8-D3 (I2C; refused if wired). size 2: 2 lines of 10 chars, 1: four of 21, 0 scrolls; default: largest that fits.',
  group: 'oled',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['oled_print', 'oled_get_framebuffer', 'oled_get_framebuffer_size', ...START_REQUIRES],
  input: z.object({
    text: z.string().max(OLED_TEXT_MAX),
    size: z.number().int().min(0).max(2).optional(),
  }),
  output: z.object({
    characters: z.number(),
    size: z.number(),
    lit_pixels: z.number(),
    started_display: startedField,
    i2c_bridges: z.string().optional(),
  }),
  handle: async ({ text, size }, { board }) => {
    checkText(text, 'text');
    const chosen = size ?? autoTextSize(text);
    const { value, started } = await withDisplay(board, async () => {
      const reply = z
        .tuple([z.number(), z.unknown()])
        .parse(await board.call(py`_jlt.oled_text(${text}, ${chosen})`));
      const fb = decodeFramebuffer(reply[1]);
      return fb ? { received: reply[0], fb } : undefined;
    });
    const characters = [...text].length;
    if (value.received !== characters) {
      throw new ToolError('not_applied', `The board received ${value.received} characters of ${characters}.`);
    }
    return {
      characters,
      size: chosen,
      lit_pixels: countLit(value.fb.bytes),
      ...startedResult(started),
    };
  },
});

export const oledClear = defineDeviceTool({
  name: 'oled_clear',
  title: 'Clear the OLED',
  description: 'Blank the OLED, starting it if off.',
  group: 'oled',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['oled_clear', 'oled_get_framebuffer', 'oled_get_framebuffer_size', ...START_REQUIRES],
  input: z.object({}),
  output: z.object({
    lit_pixels: z.number(),
    started_display: startedField,
    i2c_bridges: z.string().optional(),
  }),
  handle: async (_args, { board }) => {
    const { value: fb, started } = await withDisplay(board, async () =>
      decodeFramebuffer(await board.call('_jlt.oled_blank()')),
    );
    const litPixels = countLit(fb.bytes);
    if (litPixels !== 0)
      throw new ToolError('not_applied', `${litPixels} pixels are still lit after clearing.`);
    return { lit_pixels: 0, ...startedResult(started) };
  },
});

export const oledShow = defineDeviceTool({
  name: 'oled_show',
  title: 'Picture of the OLED',
  description: 'What the OLED shows, as a PNG.',
  group: 'oled',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['oled_get_framebuffer', 'oled_get_framebuffer_size'],
  input: z.object({}),
  output: z.object({
    width_px: z.number(),
    height_px: z.number(),
    lit_pixels: z.number(),
    png_bytes: z.number(),
  }),
  handle: async (_args, { board, attachImage }) => {
    const fb = decodeFramebuffer(await board.call('_jlt.oled_fb()'));
    if (!fb) throw noDisplay();
    const png = framebufferPng(fb);
    attachImage({ mimeType: 'image/png', data: Buffer.from(png).toString('base64') });
    return {
      width_px: fb.width,
      height_px: fb.height,
      lit_pixels: countLit(fb.bytes),
      png_bytes: png.length,
    };
  },
});

export default [oledPrint, oledClear, oledShow];
