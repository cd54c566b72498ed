/**
 * Retained OLED screens (OledGui.cpp, JumperlessMicroPythonAPI.cpp:1883-2010): up to 8 screens of
 * up to 16 text or shape elements each, drawn onto the OLED while one is shown and redrawn when an
 * element, a pushed variable or a `{token}` value changes.
 *
 * Handles: screens are 1-8 (0 = none free); an element is `(screen << 8) | index`, -1 on failure.
 * Screens outlive raw-REPL jobs; a VM restart frees all but the persistent one (`show(s, True)`),
 * which becomes the shown screen (oledGuiShutdownTransient, Python_Proper.cpp:808-815).
 * Saved screens are `/screens/<name>.json` in the firmware's layout (OledGui.cpp:766-818).
 *
 * Text draws with our 5x7 font: point sizes of 12 and up at 2x, smaller at 1x (the firmware picks
 * a proportional font of that point size).
 */
import { asInt, asNum, truthy } from './args.js';
import { drawText, type OledState, setPixel, show, textSize } from './oled.js';
import type { FirmwareFunctions, Json, VirtualFs } from './types.js';

const MAX_SCREENS = 8;
const MAX_ELEMENTS = 16;
/** OledGui.h: text buffers of 64 bytes, font names of 20, resolved texts of 96 (one for the NUL). */
const TEXT_BYTES = 63;
const RESOLVED_BYTES = 95;
const FONT_BYTES = 19;
/** OledGui.cpp:54-56: 24 pushed variables, names of 23 bytes, values of 47. */
const MAX_VARS = 24;
const VAR_NAME_BYTES = 23;
const VAR_VALUE_BYTES = 47;
const DEFAULT_FONT = 'Pragmatism';
/** How often the idle main loop may redraw a shown screen whose `{token}`s changed. */
const SERVICE_REDRAW_MS = 160;

export interface ScreenElement {
  type: 'text' | 'shape';
  visible: boolean;
  /** Placed by halign/valign instead of x/y. */
  anchor: boolean;
  x: number;
  y: number;
  w: number;
  h: number;
  z: number;
  /** 0 left, 1 centre, 2 right, 3 free. */
  halign: number;
  /** 0 top, 1 middle, 2 bottom, 3 free. */
  valign: number;
  text: string;
  font: string;
  size: number;
  /** 0 line, 1 rectangle, 2 filled rectangle (3 draws as a rectangle). */
  shape: number;
  filled: boolean;
  /** Corner marks around a text (a selection highlight). */
  box: boolean;
}

export interface Screen {
  w: number;
  h: number;
  elements: ScreenElement[];
}

export interface ScreensState {
  slots: (Screen | undefined)[];
  /** The screen on the panel, if any. */
  active: Screen | undefined;
  /** The persistent screen (shown in place of the logo; survives a VM restart). */
  idle: Screen | undefined;
  /**
   * Pushed variables (at most 24). Stored names are cut to 23 bytes but looked up in full
   * (OledGui.cpp:62-84), so a longer name never matches again and takes a new entry each time.
   */
  vars: { name: string; value: string }[];
  /** The texts last drawn, to redraw only when a token's value changed. */
  drawn: string;
  lastServiceDraw: number;
}

export function createScreensState(): ScreensState {
  return {
    slots: Array.from({ length: MAX_SCREENS }, () => undefined),
    active: undefined,
    idle: undefined,
    vars: [],
    drawn: '',
    lastServiceDraw: 0,
  };
}

const int16 = (v: number): number => (v << 16) >> 16;
const int8 = (v: number): number => (v << 24) >> 24;

/** strncpy into a C buffer of `max` bytes plus NUL, without keeping half a UTF-8 character. */
function cut(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** C's `%g` of a float (OledVars::setNum, OledGui.cpp:97-102): six significant digits. */
export function formatG(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(Number(value.toPrecision(6)))));
  const strip = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (exp < -4 || exp >= 6) {
    const [mantissa = '', e = '0'] = value.toExponential(5).split('e');
    const n = Number(e);
    return `${strip(mantissa)}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return strip(value.toFixed(Math.max(0, 5 - exp)));
}

export interface ScreenSources {
  oled: OledState;
  fs: () => VirtualFs;
  /** `{gpio:N}`: 1 HIGH, 0 LOW, anything else `?`. */
  gpio(pin: number): number;
  /** `{adc:N}`: the last reading of channel 0-7, volts. */
  adc(channel: number): number;
  /** `{dac:N}`: the setpoint of channel 0-3 (DAC0, DAC1, top rail, bottom rail), volts. */
  dac(channel: number): number;
  now(): number;
}

function newElement(type: ScreenElement['type']): ScreenElement {
  return {
    type,
    visible: true,
    anchor: false,
    x: 0,
    y: 0,
    w: 0,
    h: 0,
    z: 0,
    halign: 0,
    valign: 0,
    text: '',
    font: '',
    size: 0,
    shape: 0,
    filled: false,
    box: false,
  };
}

function addText(s: Screen, text: string, x: number, y: number, font: string, size: number): number {
  if (s.elements.length >= MAX_ELEMENTS) return -1;
  const e = newElement('text');
  Object.assign(e, { x: int16(x), y: int16(y), text: cut(text, TEXT_BYTES), font: cut(font, FONT_BYTES) });
  e.size = size & 0xff || 8;
  return s.elements.push(e) - 1;
}

function addShape(
  s: Screen,
  kind: number,
  x: number,
  y: number,
  w: number,
  h: number,
  filled: boolean,
): number {
  if (s.elements.length >= MAX_ELEMENTS) return -1;
  const e = newElement('shape');
  Object.assign(e, { x: int16(x), y: int16(y), w: int16(w), h: int16(h), shape: kind });
  // OledGui.cpp:244: a filled-rectangle kind is always stored filled.
  e.filled = filled || kind === 2;
  return s.elements.push(e) - 1;
}

/** OledScreen::setIntProp (OledGui.cpp:332-351). */
function setIntProp(e: ScreenElement, prop: string, v: number): boolean {
  switch (prop) {
    case 'x':
    case 'y':
    case 'w':
    case 'h':
      e[prop] = int16(v);
      return true;
    case 'z':
      e.z = int8(v);
      return true;
    case 'size':
      e.size = v & 0xff;
      return true;
    case 'visible':
      e.visible = v !== 0;
      return true;
    case 'anchor':
      e.anchor = v !== 0;
      return true;
    case 'halign':
      e.halign = v & 3;
      return true;
    case 'valign':
      e.valign = v & 3;
      return true;
    case 'shape':
      e.shape = v & 3;
      return true;
    case 'filled':
      e.filled = v !== 0;
      return true;
    case 'box':
      e.box = v !== 0;
      return true;
    default:
      return false;
  }
}

/** OledScreen::setStrProp (OledGui.cpp:353-358): only text and font take a string. */
function setStrProp(e: ScreenElement, prop: string, v: string): boolean {
  if (prop === 'text') e.text = cut(v, TEXT_BYTES);
  else if (prop === 'font') e.font = cut(v, FONT_BYTES);
  else return false;
  return true;
}

function drawSegment(fb: Uint8Array, x0: number, y0: number, x1: number, y1: number): void {
  // Bresenham; bounded by the longer side, which is at most a few thousand for int16 ends.
  const dx = Math.abs(x1 - x0);
  const dy = -Math.abs(y1 - y0);
  const sx = x0 < x1 ? 1 : -1;
  const sy = y0 < y1 ? 1 : -1;
  let err = dx + dy;
  for (let x = x0, y = y0, n = 0; n <= dx - dy; n++) {
    setPixel(fb, x, y, 1);
    if (x === x1 && y === y1) return;
    const e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y += sy;
    }
  }
}

function fillRect(fb: Uint8Array, x: number, y: number, w: number, h: number): void {
  for (let j = Math.max(0, y); j < Math.min(32, y + h); j++) {
    for (let i = Math.max(0, x); i < Math.min(128, x + w); i++) setPixel(fb, i, j, 1);
  }
}

export function screensFunctions(state: ScreensState, src: ScreenSources): FirmwareFunctions {
  const screenOf = (handle: number): Screen | undefined =>
    handle >= 1 && handle <= MAX_SCREENS ? state.slots[handle - 1] : undefined;
  const elementOf = (elem: number): ScreenElement | undefined =>
    screenOf((elem >> 8) & 0xff)?.elements[elem & 0xff];

  const getVar = (name: string): string | undefined => state.vars.find((v) => v.name === name)?.value;

  /** OledVars::resolveToken (OledGui.cpp:114-170). */
  const token = (name: string): string => {
    const head = cut(name, VAR_NAME_BYTES);
    const colon = head.indexOf(':');
    const base = colon >= 0 ? head.slice(0, colon) : head;
    const n = colon >= 0 ? Number.parseInt(head.slice(colon + 1), 10) || 0 : 0;
    const seconds = Math.floor(src.now() / 1000);
    switch (base) {
      case 'gpio': {
        const v = src.gpio(n);
        return v === 1 ? 'HIGH' : v === 0 ? 'LOW' : '?';
      }
      case 'adc':
        return n < 0 || n >= 8 ? '?' : src.adc(n).toFixed(2);
      case 'dac':
        return n < 0 || n >= 4 ? '?' : src.dac(n).toFixed(2);
      case 'uptime':
        return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
      case 'millis':
        return String(Math.floor(src.now()));
      case 'freemem':
        return '180000';
      default:
        // The full token first (names without an argument), then the part before the colon.
        return getVar(name) ?? (colon >= 0 ? getVar(base) : undefined) ?? '';
    }
  };
  /** OledVars::expand (OledGui.cpp:172-200): `{name}` replaced; an unclosed `{` stays as it is. */
  const expand = (text: string): string =>
    cut(
      text.replace(/\{([^}]*)\}/g, (_, t: string) => token(cut(t, TEXT_BYTES))),
      RESOLVED_BYTES,
    );

  const clearPanel = () => {
    if (!src.oled.connected) return;
    src.oled.buffer.fill(0);
    show(src.oled);
  };

  /** OledScreen::render (OledGui.cpp:361-531), with our font. */
  const render = (s: Screen): void => {
    const fb = src.oled.buffer;
    fb.fill(0);
    // Stable by z, lower first.
    const order = s.elements.map((e, i) => ({ e, i })).sort((a, b) => a.e.z - b.e.z || a.i - b.i);
    for (const { e } of order) {
      if (!e.visible) continue;
      const free = (align: number) => !e.anchor || align === 3;
      if (e.type === 'text') {
        // OledGui.cpp:403-404: a text whose tokens all resolve to nothing shows its template.
        const text = expand(e.text) || e.text;
        if (text === '') continue;
        const scale = e.size >= 12 ? 2 : 1;
        const [tw, th] = textSize(text, scale);
        let left = free(e.halign) ? e.x : e.halign === 1 ? (128 - tw) >> 1 : e.halign === 2 ? 128 - tw : 0;
        let top = free(e.valign) ? e.y : e.valign === 1 ? (32 - th) >> 1 : e.valign === 2 ? 32 - th : 0;
        left = Math.max(0, left);
        top = Math.max(0, top);
        drawText(fb, text, left, top, scale);
        if (e.box) {
          const bx = Math.max(0, left - 2);
          const by = Math.max(0, top - 1);
          const bw = Math.min(tw + 3, 128 - bx);
          const bh = Math.min(th + 2, 32 - by);
          if (bw > 3 && bh > 3) {
            const m = Math.min(3, bw >> 1, bh >> 1);
            const [rx, yb] = [bx + bw - 1, by + bh - 1];
            for (const [x0, y0, x1, y1] of [
              [bx, by, bx + m, by],
              [bx, by, bx, by + m],
              [rx, by, rx - m, by],
              [rx, by, rx, by + m],
              [bx, yb, bx + m, yb],
              [bx, yb, bx, yb - m],
              [rx, yb, rx - m, yb],
              [rx, yb, rx, yb - m],
            ] as const) {
              drawSegment(fb, x0, y0, x1, y1);
            }
          }
        }
      } else {
        const line = e.shape === 0;
        const left =
          line || free(e.halign) ? e.x : e.halign === 1 ? (128 - e.w) >> 1 : e.halign === 2 ? 128 - e.w : 0;
        const top =
          line || free(e.valign) ? e.y : e.valign === 1 ? (32 - e.h) >> 1 : e.valign === 2 ? 32 - e.h : 0;
        if (line) drawSegment(fb, left, top, left + e.w, top + e.h);
        else if (e.shape === 2) fillRect(fb, left, top, e.w, e.h);
        else if (e.w > 0 && e.h > 0) {
          drawSegment(fb, left, top, left + e.w - 1, top);
          drawSegment(fb, left, top + e.h - 1, left + e.w - 1, top + e.h - 1);
          drawSegment(fb, left, top, left, top + e.h - 1);
          drawSegment(fb, left + e.w - 1, top, left + e.w - 1, top + e.h - 1);
        }
      }
    }
    show(src.oled);
  };

  /** What the shown screen's texts read now: a change means a redraw. */
  const resolved = (s: Screen): string =>
    s.elements.map((e) => (e.type === 'text' ? expand(e.text) : '')).join('\0');

  /** renderNow: draws the shown screen if the display is up (OledGui.cpp:640-704, gating left out). */
  const redraw = (): void => {
    const s = state.active;
    if (!s || !src.oled.connected) return;
    state.drawn = resolved(s);
    render(s);
  };

  const hideAndClear = (): void => {
    state.active = undefined;
    clearPanel();
  };

  const freeAll = (): void => {
    hideAndClear();
    state.idle = undefined;
    state.slots.fill(undefined);
  };

  const jsonPath = (name: string): string => {
    // OledGui.cpp:727-739: the base name, ".json" and what follows dropped, at most 47 bytes.
    const base = cut(name.slice(name.lastIndexOf('/') + 1), 47);
    const dot = base.indexOf('.json');
    const stem = dot >= 0 ? base.slice(0, dot) : base;
    return `/screens/${stem === '' ? 'screen' : stem}.json`;
  };

  const create = (): number => {
    const free = state.slots.indexOf(undefined);
    if (free < 0) return 0;
    state.slots[free] = { w: 128, h: 32, elements: [] };
    return free + 1;
  };

  const changed = (s: Screen | undefined, ok: boolean): boolean => {
    if (ok && s !== undefined && s === state.active) redraw();
    return ok;
  };

  const str = (x: Json | undefined): string => (typeof x === 'string' ? x : '');

  /** OledVars::setStr, then a redraw so `{name}` on the shown screen follows. */
  const setVar = (name: string, text: string): null => {
    if (name !== '') {
      let v = state.vars.find((x) => x.name === name);
      if (!v && state.vars.length < MAX_VARS) {
        v = { name: cut(name, VAR_NAME_BYTES), value: '' };
        state.vars.push(v);
      }
      if (v) v.value = cut(text, VAR_VALUE_BYTES);
    }
    redraw();
    return null;
  };

  return {
    oled_screen: () => create(),
    oled_screen_free: (handle) => {
      const h = asInt(handle);
      const s = screenOf(h);
      if (s) {
        if (state.active === s) hideAndClear();
        if (state.idle === s) state.idle = undefined;
        state.slots[h - 1] = undefined;
      }
      return null;
    },
    oled_screen_clear: (handle) => {
      const s = screenOf(asInt(handle));
      if (s) s.elements = [];
      return null;
    },
    oled_screen_show: (handle, persist) => {
      const s = screenOf(asInt(handle));
      if (!s) return false;
      state.active = s;
      if (persist !== undefined && truthy(persist)) state.idle = s;
      redraw();
      return true;
    },
    oled_screen_hide: () => {
      state.idle = undefined;
      hideAndClear();
      return null;
    },
    oled_screen_reset: () => {
      freeAll();
      return null;
    },
    // Python has parsed the arguments: (screen, text, x, y, font or None, size, halign, valign, z).
    oled_add_text: (screen, text, x, y, font, size, halign, valign, z) => {
      const h = asInt(screen);
      const s = screenOf(h);
      if (!s) return -1;
      const sz = asInt(size);
      const i = addText(
        s,
        str(text),
        asInt(x),
        asInt(y),
        font === null ? DEFAULT_FONT : str(font),
        sz > 0 ? sz : 8,
      );
      if (i < 0) return -1;
      const e = s.elements[i] as ScreenElement;
      if (asInt(z) !== 0) e.z = int8(asInt(z));
      const [ha, va] = [asInt(halign), asInt(valign)];
      if (ha >= 0 && va >= 0) Object.assign(e, { halign: ha & 3, valign: va & 3, anchor: true });
      changed(s, true);
      return (h << 8) | i;
    },
    oled_add_shape: (screen, kind, x, y, w, hgt, filled, z) => {
      const h = asInt(screen);
      const s = screenOf(h);
      if (!s) return -1;
      const i = addShape(s, asInt(kind) & 3, asInt(x), asInt(y), asInt(w), asInt(hgt), asInt(filled) !== 0);
      if (i < 0) return -1;
      if (asInt(z) !== 0) (s.elements[i] as ScreenElement).z = int8(asInt(z));
      changed(s, true);
      return (h << 8) | i;
    },
    oled_set_str: (elem, prop, value) => {
      const e = elementOf(asInt(elem));
      return changed(
        screenOf((asInt(elem) >> 8) & 0xff),
        e !== undefined && setStrProp(e, str(prop), str(value)),
      );
    },
    oled_set_int: (elem, prop, value) => {
      const e = elementOf(asInt(elem));
      return changed(
        screenOf((asInt(elem) >> 8) & 0xff),
        e !== undefined && setIntProp(e, str(prop), asInt(value)),
      );
    },
    oled_set_var: (name, value) => setVar(str(name), str(value)),
    // A number is held as a float32 and printed with %g (OledGui.cpp:97-102).
    oled_set_var_num: (name, value) => setVar(str(name), formatG(Math.fround(asNum(value)))),
    oled_screen_save: (handle, name) => {
      const s = screenOf(asInt(handle));
      if (!s) return false;
      const fs = src.fs();
      try {
        if (!fs.exists('/screens')) fs.mkdir('/screens');
      } catch {}
      const elements = s.elements.map((e) => {
        const common = {
          x: e.x,
          y: e.y,
          w: e.w,
          h: e.h,
          z: e.z,
          visible: e.visible ? 1 : 0,
          anchor: e.anchor ? 1 : 0,
          halign: e.halign,
          valign: e.valign,
        };
        return e.type === 'text'
          ? { ...common, type: 'text', text: e.text, font: e.font, size: e.size }
          : { ...common, type: 'shape', shape: e.shape, filled: e.filled ? 1 : 0 };
      });
      // ArduinoJson's serializeJsonPretty: two-space indents, no trailing newline.
      try {
        fs.writeFile(jsonPath(str(name)), JSON.stringify({ version: 1, w: s.w, h: s.h, elements }, null, 2));
        return true;
      } catch {
        return false;
      }
    },
    oled_screen_load: (name) => {
      let doc: unknown;
      try {
        doc = JSON.parse(new TextDecoder().decode(src.fs().readFile(jsonPath(str(name)))));
      } catch {
        return 0;
      }
      const handle = create();
      const s = screenOf(handle);
      if (!s) return 0;
      const d = (doc ?? {}) as Record<string, unknown>;
      const num = (v: unknown, dflt: number) => (typeof v === 'number' ? Math.trunc(v) : dflt);
      const text = (v: unknown, dflt: string) => (typeof v === 'string' ? v : dflt);
      s.w = num(d.w, 128);
      s.h = num(d.h, 32);
      for (const o of Array.isArray(d.elements) ? (d.elements as Record<string, unknown>[]) : []) {
        if (o === null || typeof o !== 'object') continue;
        const [x, y, w, h] = [num(o.x, 0), num(o.y, 0), num(o.w, 0), num(o.h, 0)];
        const i =
          text(o.type, 'text') === 'shape'
            ? addShape(s, num(o.shape, 1), x, y, w, h, num(o.filled, 0) !== 0)
            : addText(s, text(o.text, ''), x, y, text(o.font, DEFAULT_FONT), num(o.size, 8));
        if (i < 0) break;
        const e = s.elements[i] as ScreenElement;
        Object.assign(e, {
          w: int16(w),
          h: int16(h),
          z: int8(num(o.z, 0)),
          visible: num(o.visible, 1) !== 0,
        });
        if (num(o.anchor, 0) !== 0)
          Object.assign(e, { halign: num(o.halign, 0), valign: num(o.valign, 0), anchor: true });
      }
      return handle;
    },
    /** A VM restart (oledGuiShutdownTransient): all screens but the persistent one go. */
    _boot: () => {
      if (!state.idle) {
        freeAll();
        return null;
      }
      state.slots = state.slots.map((s) => (s === state.idle ? s : undefined));
      state.active = state.idle;
      redraw();
      return null;
    },
    /** The OledGui service: a shown screen follows its `{token}` values while the board idles. */
    _service: () => {
      const s = state.active;
      if (!s || !src.oled.connected || src.now() - state.lastServiceDraw < SERVICE_REDRAW_MS) return null;
      state.lastServiceDraw = src.now();
      if (resolved(s) !== state.drawn) redraw();
      return null;
    },
  };
}
