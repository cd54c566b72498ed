/**
 * The optional OLED (spec §6.11; 128x32 by default, 128x64 when configured): print, clear, and the
 * framebuffer as a picture. Without a display started, `oled_get_framebuffer()` is None and every
 * OLED call does nothing (JumperlessMicroPythonAPI.cpp:1692-1879): the tools say `no_display`.
 */
import { z } from 'zod';
import { encodePng, rowBytes } from '../board/png.js';
import { ToolError } from '../core/errors.js';
import { py } from './py.js';
import type { PythonPart } from './pythonParts.js';
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
`,
  },
];

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
    "No OLED display is on: the firmware ignores OLED calls until one is started (at boot with the config's [top_oled] connect_on_boot, or by oled_connect() in python_exec, which on a V5 also bridges GPIO_7/GPIO_8 to Nano D2/D3; oled_disconnect() removes those bridges).",
  );

export const oledPrint = defineDeviceTool({
  name: 'oled_print',
  title: 'Show text on the OLED',
  description:
    'Show text on the OLED (\\n breaks lines). size 2 fits 2 lines of 10 characters, 1 four of 21; 0 scrolls; default picks. Fails with no_display when none is on.',
  group: 'oled',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['oled_print', 'oled_get_framebuffer', 'oled_get_framebuffer_size'],
  input: z.object({
    text: z.string().max(OLED_TEXT_MAX),
    size: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  }),
  output: z.object({ characters: z.number(), size: z.number(), lit_pixels: z.number() }),
  handle: async ({ text, size }, { board }) => {
    checkText(text, 'text');
    const chosen = size ?? autoTextSize(text);
    const reply = z
      .tuple([z.number(), z.unknown()])
      .parse(await board.call(py`_jlt.oled_text(${text}, ${chosen})`));
    const fb = decodeFramebuffer(reply[1]);
    if (!fb) throw noDisplay();
    const characters = [...text].length;
    if (reply[0] !== characters) {
      throw new ToolError('not_applied', `The board received ${reply[0]} characters of ${characters}.`);
    }
    return { characters, size: chosen, lit_pixels: countLit(fb.bytes) };
  },
});

export const oledClear = defineDeviceTool({
  name: 'oled_clear',
  title: 'Clear the OLED',
  description: 'Blank the OLED.',
  group: 'oled',
  kind: 'write',
  capability: 'jumperless.io',
  requires: ['oled_clear', 'oled_get_framebuffer', 'oled_get_framebuffer_size'],
  input: z.object({}),
  output: z.object({ lit_pixels: z.number() }),
  handle: async (_args, { board }) => {
    const fb = decodeFramebuffer(await board.call('_jlt.oled_blank()'));
    if (!fb) throw noDisplay();
    const litPixels = countLit(fb.bytes);
    if (litPixels !== 0)
      throw new ToolError('not_applied', `${litPixels} pixels are still lit after clearing.`);
    return { lit_pixels: 0 };
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
