/**
 * The `get_state()` / `set_state()` JSON of spec §7 [F `JsonState.cpp`]: types, a builder from a
 * `Connections` plus plain values owned by the simulator, the firmware's exact pretty-printing, and a
 * strict parser for what `set_state` accepts.
 *
 * Names go out as the firmware writes them, invalid JSON included: a net name escapes only `"`,
 * `\n` and `\r` (JsonState.cpp:30-35), an overlay name nothing at all (GraphicOverlays.cpp:485-487),
 * so the tools refuse names that would break the document. One deliberate difference: a non-finite
 * number prints as `null` (the firmware prints `nan`/`inf`).
 */

import { hex6 } from './colors.js';
import type { Connections, NetSpecial } from './connections.js';
import { DAC_SAFE, inRange, OVERLAY_COLS, OVERLAY_ROWS } from './limits.js';
import { GPIO_1, parseShortName, shortName, UART_RX, UART_TX } from './nodes.js';

export interface PowerState {
  readonly top_rail: number;
  readonly bottom_rail: number;
  readonly dac0: number;
  readonly dac1: number;
}

export interface StateNet {
  readonly index: number;
  readonly name: string;
  /** Short names (§6.2). */
  readonly nodes: readonly string[];
  readonly special: NetSpecial;
  /** Present for RAIL, DAC, ADC and FAKE_GPIO_IN nets. */
  readonly voltage?: number;
  /** Present for GPIO and UART nets. */
  readonly logic?: number;
}

export type GpioPinId = number | 'TX' | 'RX';
export type GpioDirection = 'INPUT' | 'OUTPUT';
export type GpioPullName = 'up' | 'down' | 'none' | 'keeper';
export type GpioReading = 'low' | 'high' | 'float' | 'unknown';

export interface StateGpio {
  readonly pin: GpioPinId;
  readonly net: number | null;
  readonly function: string;
  readonly direction: GpioDirection;
  readonly pull: GpioPullName;
  readonly reading: GpioReading;
  readonly floating_read: number;
}

export interface StateOverlay {
  readonly name: string;
  readonly row: number;
  readonly col: number;
  readonly width: number;
  readonly height: number;
  /** `RRGGBB`, one per pixel, row by row. */
  readonly colors: readonly string[];
}

export interface BoardState {
  readonly power: PowerState;
  readonly nets: readonly StateNet[];
  /** Pins 1-8, then `TX`, then `RX`. */
  readonly gpio: readonly StateGpio[];
  readonly overlays: readonly StateOverlay[];
}

export const GPIO_PIN_IDS: readonly GpioPinId[] = [1, 2, 3, 4, 5, 6, 7, 8, 'TX', 'RX'];

/** One GPIO's live values, as the simulator holds them. */
export interface GpioInput {
  readonly function?: string;
  readonly direction: GpioDirection;
  readonly pull: GpioPullName;
  readonly reading: GpioReading;
  readonly floatingRead: boolean;
}

export interface OverlayInput {
  readonly name: string;
  readonly row: number;
  readonly col: number;
  readonly width: number;
  readonly height: number;
  /** 0xRRGGBB per pixel, row by row. */
  readonly colors: readonly number[];
}

export interface StateInputs {
  readonly power: {
    readonly topRail: number;
    readonly bottomRail: number;
    readonly dac0: number;
    readonly dac1: number;
  };
  /** Last ADC readings by channel 0-7 (missing = 0). */
  readonly adc?: readonly number[];
  /** Pins 1-8, TX, RX; missing pins get the firmware defaults. */
  readonly gpio?: readonly GpioInput[];
  /** Voltages seen by fake GPIO inputs 0-23. */
  readonly fakeGpioVolts?: readonly number[];
  readonly overlays?: readonly OverlayInput[];
}

const DEFAULT_GPIO: GpioInput = { direction: 'INPUT', pull: 'none', reading: 'unknown', floatingRead: true };
const READING_LOGIC: Record<GpioReading, number> = { low: 0, high: 1, float: 2, unknown: 3 };
// §7 firmware detail: ADC and fake-input voltages within +-30 mV print as zero.
const deadband = (v: number): number => (v > -0.03 && v < 0.03 ? 0 : v);

/** JsonState.cpp:111-116: nodes from NANO_D0 (70) up print their short name, the rest their number. */
const stateNodeName = (id: number): string => (id >= 70 ? shortName(id) : String(id));

/**
 * How a firmware writes the document: 5.7.11 leaves out nets with fewer than two nodes (the
 * supplies nothing is wired to) and escapes names more strictly (see `FirmwareBehaviour`).
 */
export interface StateStyle {
  readonly skipLonelyNets?: boolean;
  readonly nameEscape?: 'quote-newline' | 'bounded';
}

/** Assemble the §7 document from the connections and the simulator's live values. */
export function buildState(conns: Connections, inputs: StateInputs, style: StateStyle = {}): BoardState {
  const { power } = inputs;
  const gpio = inputs.gpio ?? [];
  const setpoint = [power.dac0, power.dac1, power.topRail, power.bottomRail];
  const listed = conns.nets().filter((net) => !style.skipLonelyNets || net.nodes.length >= 2);
  const nets: StateNet[] = listed.map((net) => {
    const base = {
      index: net.index,
      // 5.7.0.13 trims with Arduino String::trim (JsonState.cpp:99-100); 5.7.11's escape trims spaces.
      name: style.nameEscape === 'bounded' ? net.name : net.name.trim(),
      nodes: net.nodes.map(stateNodeName),
      special: net.special,
    };
    const ch = net.channel ?? 0;
    switch (net.special) {
      case 'RAIL':
      case 'DAC':
        return { ...base, voltage: setpoint[ch] ?? 0 };
      case 'ADC':
        return { ...base, voltage: deadband(inputs.adc?.[ch] ?? 0) };
      case 'FAKE_GPIO_IN':
        return { ...base, voltage: deadband(inputs.fakeGpioVolts?.[ch] ?? 0) };
      case 'GPIO':
        return { ...base, logic: READING_LOGIC[(gpio[ch] ?? DEFAULT_GPIO).reading] };
      case 'UART_TX':
      case 'UART_RX':
        return { ...base, logic: 0 };
      default:
        return base;
    }
  });
  const gpioNodes = [...Array.from({ length: 8 }, (_, i) => GPIO_1 + i), UART_TX, UART_RX];
  const gpioState: StateGpio[] = GPIO_PIN_IDS.map((pin, i) => {
    const g = gpio[i] ?? DEFAULT_GPIO;
    return {
      pin,
      net: conns.netOf(gpioNodes[i] as number) ?? null,
      function: g.function ?? 'SIO',
      // The firmware reports TX as OUTPUT and RX as INPUT whatever they are set to.
      direction: pin === 'TX' ? 'OUTPUT' : pin === 'RX' ? 'INPUT' : g.direction,
      pull: g.pull,
      reading: g.reading,
      floating_read: g.floatingRead ? 1 : 0,
    };
  });
  return {
    power: { top_rail: power.topRail, bottom_rail: power.bottomRail, dac0: power.dac0, dac1: power.dac1 },
    nets,
    gpio: gpioState,
    overlays: (inputs.overlays ?? []).map((o) => ({
      name: o.name,
      row: o.row,
      col: o.col,
      width: o.width,
      height: o.height,
      colors: Array.from({ length: o.width * o.height }, (_, i) => hex6((o.colors[i] ?? 0) & 0xffffff)),
    })),
  };
}

/** A float as Arduino `String(x, 3)` prints it: always three decimals. */
export function float3(x: number): string {
  if (!Number.isFinite(x)) return 'null';
  return x.toFixed(3);
}

const str = (s: string): string => JSON.stringify(s);
/** JsonState.cpp:30-35 escapes `"`, newline and CR only: a backslash or another control byte goes out raw. */
const netName = (s: string): string =>
  `"${s.replace(/["\n\r]/g, (c) => (c === '"' ? '\\"' : c === '\n' ? '\\n' : '\\r'))}"`;

/**
 * 5.7.11's escapeJson(name, 31) (JsonState.cpp@68195a0): at most 31 bytes, spaces trimmed at both
 * ends, `"` `\` LF CR tab escaped, every other byte outside printable ASCII dropped.
 */
export function boundedName(s: string): string {
  const bytes = [...new TextEncoder().encode(s).slice(0, 31)];
  let start = 0;
  while (start < bytes.length && bytes[start] === 0x20) start++;
  let end = start;
  for (let i = start; i < bytes.length && bytes[i] !== 0; i++) if (bytes[i] !== 0x20) end = i + 1;
  let out = '';
  for (let i = start; i < end && bytes[i] !== 0; i++) {
    const c = bytes[i] as number;
    if (c === 0x22 || c === 0x5c) out += `\\${String.fromCharCode(c)}`;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c >= 0x20 && c <= 0x7e) out += String.fromCharCode(c);
  }
  return `"${out}"`;
}
/** GraphicOverlays.cpp:485-487 writes an overlay's name between quotes as it is. */
const rawName = (s: string): string => `"${s}"`;
const int = (n: number): string => (Number.isFinite(n) ? String(Math.trunc(n)) : 'null');

/** The firmware's exact layout: 2-space indents, 3-decimal floats, inline node and colour lists. */
export function formatState(state: BoardState, style: StateStyle = {}): string {
  const writeName = style.nameEscape === 'bounded' ? boundedName : netName;
  const p = state.power;
  let out = '{\n';
  out += '  "power": {\n';
  out += `    "top_rail": ${float3(p.top_rail)},\n`;
  out += `    "bottom_rail": ${float3(p.bottom_rail)},\n`;
  out += `    "dac0": ${float3(p.dac0)},\n`;
  out += `    "dac1": ${float3(p.dac1)}\n`;
  out += '  },\n';
  out += '  "nets": [\n';
  out += state.nets
    .map((n) => {
      let s = '    {\n';
      s += `      "index": ${int(n.index)},\n`;
      s += `      "name": ${writeName(n.name)},\n`;
      s += `      "nodes": [${n.nodes.map(str).join(', ')}],\n`;
      s += `      "special": ${str(n.special)}`;
      if (n.voltage !== undefined) s += `,\n      "voltage": ${float3(n.voltage)}`;
      else if (n.logic !== undefined) s += `,\n      "logic": ${int(n.logic)}`;
      return `${s}\n    }`;
    })
    .join(',\n');
  out += '\n  ],\n';
  out += '  "gpio": [\n';
  out += state.gpio
    .map((g) => {
      let s = '    {\n';
      s += `      "pin": ${typeof g.pin === 'number' ? int(g.pin) : str(g.pin)},\n`;
      s += `      "net": ${g.net === null ? 'null' : int(g.net)},\n`;
      s += `      "function": ${str(g.function)},\n`;
      s += `      "direction": ${str(g.direction)},\n`;
      s += `      "pull": ${str(g.pull)},\n`;
      s += `      "reading": ${str(g.reading)},\n`;
      s += `      "floating_read": ${int(g.floating_read)}`;
      return `${s}\n    }`;
    })
    .join(',\n');
  out += '\n  ],\n';
  out += '  "overlays": [';
  out += state.overlays
    .map(
      (o) =>
        `\n    {"name":${rawName(o.name)},"row":${int(o.row)},"col":${int(o.col)},"width":${int(o.width)},` +
        `"height":${int(o.height)},"colors":[${o.colors.map(str).join(',')}]}`,
    )
    .join(',');
  out += '\n  ]';
  out += '\n}';
  return out;
}

// ---- set_state input ----

/** What `set_state` accepts: every section optional, at least one present (§6.4, §7). */
export interface StateUpdate {
  readonly power?: Partial<PowerState>;
  readonly nets?: readonly NetUpdate[];
  readonly gpio?: readonly GpioUpdate[];
  readonly overlays?: readonly StateOverlay[];
}

export interface NetUpdate {
  readonly index?: number;
  readonly name?: string;
  /** Node ids, in the order given: the firmware bridges each consecutive pair. */
  readonly nodes: readonly number[];
  readonly voltage?: number;
}

export interface GpioUpdate {
  readonly pin: GpioPinId;
  readonly direction?: GpioDirection;
  readonly pull?: GpioPullName;
  readonly floating_read?: number;
}

export type ParseStateResult = { ok: true; state: StateUpdate } | { ok: false; error: string };

/** Longest document we accept; a full state is 10-20 KB. */
export const MAX_STATE_CHARS = 1_000_000;
const SECTIONS = ['power', 'nets', 'gpio', 'overlays'] as const;
const PULLS: readonly string[] = ['up', 'down', 'none', 'keeper'];

class ShapeError extends Error {}
const fail = (msg: string): never => {
  throw new ShapeError(msg);
};
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown, at: string): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : fail(`${at} must be a number`);
const intIn = (v: unknown, at: string, min: number, max: number): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
    ? v
    : fail(`${at} must be an integer ${min}..${max}`);
const string = (v: unknown, at: string): string =>
  typeof v === 'string' ? v : fail(`${at} must be a string`);
const array = (v: unknown, at: string): unknown[] => (Array.isArray(v) ? v : fail(`${at} must be an array`));

function parsePower(v: unknown): Partial<PowerState> {
  if (!isObject(v)) return fail('power must be an object');
  const out: Record<string, number> = {};
  for (const key of ['top_rail', 'bottom_rail', 'dac0', 'dac1'] as const) {
    if (v[key] === undefined) continue;
    const x = num(v[key], `power.${key}`);
    // The firmware's own message for this check [F `JsonState.cpp`].
    if (!inRange(DAC_SAFE, x))
      fail(`Power values out of range (${DAC_SAFE.min}V to +${DAC_SAFE.max}V): power.${key} = ${x}`);
    out[key] = x;
  }
  return out;
}

function parseNet(v: unknown, at: string): NetUpdate {
  if (!isObject(v)) return fail(`${at} must be an object`);
  const nodes = array(v.nodes, `${at}.nodes`).map((n, j) => {
    const name = string(n, `${at}.nodes[${j}]`);
    return parseShortName(name) ?? fail(`${at}.nodes[${j}]: unknown node "${name}"`);
  });
  const net: { -readonly [K in keyof NetUpdate]: NetUpdate[K] } = { nodes };
  if (v.index !== undefined) net.index = intIn(v.index, `${at}.index`, 0, 59);
  if (v.name !== undefined) net.name = string(v.name, `${at}.name`);
  if (v.voltage !== undefined) net.voltage = num(v.voltage, `${at}.voltage`);
  return net;
}

function parseGpio(v: unknown, at: string): GpioUpdate {
  if (!isObject(v)) return fail(`${at} must be an object`);
  const pin = v.pin === 'TX' || v.pin === 'RX' ? v.pin : intIn(v.pin, `${at}.pin`, 1, 8);
  const g: { -readonly [K in keyof GpioUpdate]: GpioUpdate[K] } = { pin };
  if (v.direction !== undefined) {
    const d = string(v.direction, `${at}.direction`).toUpperCase();
    g.direction = d === 'OUTPUT' || d === 'INPUT' ? d : fail(`${at}.direction must be "INPUT" or "OUTPUT"`);
  }
  if (v.pull !== undefined) {
    const p = string(v.pull, `${at}.pull`).toLowerCase();
    g.pull = PULLS.includes(p) ? (p as GpioPullName) : fail(`${at}.pull must be up, down, none or keeper`);
  }
  if (v.floating_read !== undefined) g.floating_read = intIn(v.floating_read, `${at}.floating_read`, 0, 1);
  return g;
}

function parseOverlay(v: unknown, at: string): StateOverlay {
  if (!isObject(v)) return fail(`${at} must be an object`);
  const name = string(v.name, `${at}.name`);
  if (name === '' || name.length > 31) fail(`${at}.name must be 1-31 characters`);
  const row = intIn(v.row, `${at}.row`, 1, OVERLAY_ROWS);
  const col = intIn(v.col, `${at}.col`, 1, OVERLAY_COLS);
  const width = intIn(v.width, `${at}.width`, 1, OVERLAY_COLS);
  const height = intIn(v.height, `${at}.height`, 1, OVERLAY_ROWS);
  const colors = array(v.colors, `${at}.colors`).map((c, j) => {
    const s = string(c, `${at}.colors[${j}]`);
    return /^[0-9a-fA-F]{1,6}$/.test(s)
      ? s.toUpperCase().padStart(6, '0')
      : fail(`${at}.colors[${j}] must be RRGGBB hex`);
  });
  if (colors.length > width * height)
    fail(`${at}.colors has ${colors.length} entries for ${width * height} pixels`);
  return { name, row, col, width, height, colors };
}

/** Parse a `set_state` document. Unknown keys are ignored, as the firmware does; wrong shapes are errors. */
export function parseState(text: string): ParseStateResult {
  if (typeof text !== 'string') return { ok: false, error: 'State must be a JSON string' };
  if (text.length > MAX_STATE_CHARS)
    return { ok: false, error: `State is larger than ${MAX_STATE_CHARS} characters` };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `Invalid JSON: ${(e as Error).message}` };
  }
  if (!isObject(doc)) return { ok: false, error: 'Invalid JSON: must be an object' };
  if (!SECTIONS.some((s) => doc[s] !== undefined)) {
    return { ok: false, error: 'Invalid JSON: no recognized sections (nets, power, gpio, overlays)' };
  }
  try {
    const state: { -readonly [K in keyof StateUpdate]: StateUpdate[K] } = {};
    if (doc.power !== undefined) state.power = parsePower(doc.power);
    if (doc.nets !== undefined) state.nets = array(doc.nets, 'nets').map((n, i) => parseNet(n, `nets[${i}]`));
    if (doc.gpio !== undefined)
      state.gpio = array(doc.gpio, 'gpio').map((g, i) => parseGpio(g, `gpio[${i}]`));
    if (doc.overlays !== undefined) {
      state.overlays = array(doc.overlays, 'overlays').map((o, i) => parseOverlay(o, `overlays[${i}]`));
    }
    return { ok: true, state };
  } catch (e) {
    if (e instanceof ShapeError) return { ok: false, error: e.message };
    throw e;
  }
}
