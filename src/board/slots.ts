/**
 * Slot files: `/slots/slotN.yaml` for slots 0-7 and `/slots/slotPython.yaml` for slot 99
 * (States.cpp:2709-2715). Written exactly as the firmware's toYAML writes them (States.cpp:1228-1255):
 *
 *   version: 2
 *   sourceOfTruth: bridges
 *
 *   bridges:                                   <- left out when there is no bridge
 *     - {n1: BUFFER_IN, n2: DAC0, dup: 0}       <- long node names, rows as numbers
 *     - {n1: 57, n2: NANO_D5, dup: 2}
 *
 *   nets:                                      <- nets of 2+ nodes, short node names
 *     - {num: 4, nodes: [DAC_0, BUF_IN], anim: true}
 *     - {num: 6, nodes: [57, D5], color: pink, name: "Power", user: true}
 *
 *   power:
 *     topRail: 0.00
 *     ...
 *
 *   config:
 *     routing: {stackPaths: 2, stackRails: 3, stackDacs: 0, railPriority: 1}
 *     gpio:
 *       direction:    [1,1,1,1,1,1,1,1,1,1]
 *       ...
 *   (overlays: after a blank line, only when there are any)
 *
 * and read as leniently as the firmware's fromYAML (States.cpp:1257-1433): line by line, a line it
 * cannot use is skipped, a bridge whose node is not on the board is dropped. Only supplies outside
 * -8..8 V make the whole file unusable (the board then loads an empty slot, main.cpp:1243-1254).
 */
import { type Connections, isForbiddenPair } from './connections.js';
import { DEFAULT_POWER, DEFAULT_STACK_PATHS, MAX_BRIDGES } from './limits.js';
import {
  ADC0,
  ADC1,
  ADC2,
  ADC3,
  ADC4,
  ADC7,
  BOTTOM_RAIL,
  BUFFER_IN,
  BUFFER_OUT,
  DAC0,
  DAC1,
  GND,
  ISENSE_MINUS,
  ISENSE_PLUS,
  isBridgeable,
  SUPPLY_3V3,
  SUPPLY_5V,
  shortName,
  TOP_RAIL,
  UART_RX,
  UART_TX,
  yamlName,
} from './nodes.js';
import type { OverlayInput } from './state.js';

export const isSlot = (n: unknown): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 7;

/** The Python slot of the isolated REPL context; `nodes_save(99)` writes it too. */
export const PYTHON_SLOT = 99;

/** Slots `nodes_save` accepts (States.cpp:2957-2961): 0-7 and 99. */
export const isSavableSlot = (n: number): boolean => isSlot(n) || n === PYTHON_SLOT;

export const slotPath = (slot: number): string =>
  slot === PYTHON_SLOT ? '/slots/slotPython.yaml' : `/slots/slot${slot}.yaml`;

export interface SlotBridge {
  readonly n1: number;
  readonly n2: number;
  readonly dup: number;
  /** A Wokwi colour name, as the board writes it; only for bridges that have one. */
  readonly color?: string;
}

export interface SlotNet {
  readonly num: number;
  /** The nodes listed (for reference only: the board rebuilds nets from the bridges). */
  readonly nodes: readonly number[];
  /** Written for nets that are not animated: a colour name or `0x...`. */
  readonly color?: string;
  readonly name?: string;
  /** The colour was set by the user; only then does loading restore it (States.cpp:1804-1818). */
  readonly user?: boolean;
  /** The net holds an animated node (rails, GND, GPIO, UART, DACs, buffer, current sense, ADCs). */
  readonly anim?: boolean;
}

export interface SlotPower {
  readonly topRail: number;
  readonly bottomRail: number;
  readonly dac0: number;
  readonly dac1: number;
}

/** `config: gpio:`, 10 entries each (GPIO_1..8, UART TX, UART RX). */
export interface SlotGpioConfig {
  /** 0 OUTPUT, 1 INPUT. */
  readonly direction: readonly number[];
  /** 0 pull-down, 1 pull-up, 2 none, 3 bus keeper. */
  readonly pulls: readonly number[];
  readonly pwmFrequency: readonly number[];
  readonly pwmDutyCycle: readonly number[];
  readonly pwmEnabled: readonly boolean[];
  readonly readFloating: readonly number[];
}

export interface SlotConfig {
  readonly routing: {
    readonly stackPaths: number;
    readonly stackRails: number;
    readonly stackDacs: number;
    readonly railPriority: number;
  };
  readonly gpio: SlotGpioConfig;
  readonly uart: { readonly txFunction: number; readonly rxFunction: number };
  readonly oled: { readonly connected: boolean; readonly lockConnection: boolean };
  /** The `fakeGpio:` lines as written (`{slot: 0, node: 20, mode: 1, ...}`), kept verbatim. */
  readonly fakeGpio: readonly string[];
}

/** An overlay as a slot file holds it: the same shape the state document uses. */

export interface SlotData {
  readonly version: number;
  readonly sourceOfTruth: 'bridges' | 'nets';
  readonly bridges: readonly SlotBridge[];
  readonly nets: readonly SlotNet[];
  readonly power: SlotPower;
  readonly config: SlotConfig;
  readonly overlays: readonly OverlayInput[];
}

export type ParseSlotResult =
  | { ok: true; slot: SlotData /** Lines the board would skip, with why. */; skipped: string[] }
  | { ok: false; error: string };

const GPIO_COUNT = 10;

/** ConfigState::setDefaults (States.cpp:506-530). */
export function defaultSlotConfig(): SlotConfig {
  return {
    routing: { stackPaths: DEFAULT_STACK_PATHS, stackRails: 3, stackDacs: 0, railPriority: 1 },
    gpio: {
      direction: Array(GPIO_COUNT).fill(1),
      pulls: Array(GPIO_COUNT).fill(0),
      pwmFrequency: Array(GPIO_COUNT).fill(1),
      pwmDutyCycle: Array(GPIO_COUNT).fill(0.5),
      pwmEnabled: Array(GPIO_COUNT).fill(false),
      readFloating: Array.from({ length: GPIO_COUNT }, (_, i) => (i < 8 ? 1 : 0)),
    },
    uart: { txFunction: 0, rxFunction: 1 },
    oled: { connected: false, lockConnection: false },
    fakeGpio: [],
  };
}

/**
 * The board at power-on with no slot file: the probe-power bridge BUFFER_IN-DAC0 with duplicates 0
 * (main.cpp:704, Probing.cpp:5389), default supplies (States.cpp:199-230) and config.
 */
export function powerOnSlot(): SlotData {
  return {
    version: 2,
    sourceOfTruth: 'bridges',
    bridges: [{ n1: BUFFER_IN, n2: DAC0, dup: 0 }],
    nets: [{ num: 4, nodes: [DAC0, BUFFER_IN], anim: true }],
    power: { ...DEFAULT_POWER },
    config: defaultSlotConfig(),
    overlays: [],
  };
}

/** Graphics.cpp:1897-1922 animationOrder: a net holding one of these is written `anim: true`. */
const ANIMATED_NODES = new Set<number>([
  TOP_RAIL,
  GND,
  BOTTOM_RAIL,
  131,
  132,
  133,
  134,
  135,
  136,
  137,
  138,
  UART_TX,
  UART_RX,
  DAC0,
  DAC1,
  BUFFER_IN,
  BUFFER_OUT,
  ISENSE_PLUS,
  ISENSE_MINUS,
  ADC0,
  ADC1,
  ADC2,
  ADC3,
  ADC4,
  ADC7,
]);

/**
 * What the slot file of a board holding `conns` would list: its bridges and the looks of its nets
 * (serializeBridges/serializeNets). The caller adds supplies, config and overlays.
 */
export function slotFromConnections(
  conns: Connections,
  power: SlotPower,
  extra: { config?: SlotConfig; overlays?: readonly OverlayInput[] } = {},
): SlotData {
  return {
    version: 2,
    sourceOfTruth: 'bridges',
    bridges: conns.bridges().map((b) => ({ n1: b.node1, n2: b.node2, dup: b.duplicates })),
    nets: conns
      .nets()
      .filter((n) => n.nodes.length > 1)
      .map((n): SlotNet => {
        const anim = n.nodes.some((id) => ANIMATED_NODES.has(id));
        const name = conns.customName(n.index);
        const user = conns.customColor(n.index) !== undefined;
        return {
          num: n.index,
          nodes: n.nodes,
          // A custom colour's name as it was given, else colorValueToName of the computed colour.
          ...(anim ? { anim: true } : { color: n.colorName.trim() }),
          ...(name !== undefined && name !== '' ? { name } : {}),
          ...(user ? { user: true } : {}),
        };
      }),
    power: {
      topRail: power.topRail,
      bottomRail: power.bottomRail,
      dac0: power.dac0,
      dac1: power.dac1,
    },
    config: extra.config ?? defaultSlotConfig(),
    overlays: extra.overlays ?? [],
  };
}

/** Arduino `String(x, 2)`. */
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : 'nan');
const hexPixel = (rgb: number): string => `0x${(rgb & 0xffffff).toString(16).toUpperCase().padStart(6, '0')}`;

function formatNet(n: SlotNet): string {
  // serializeNets order: num, nodes, color (not for animated nets), name, user, anim.
  let s = `  - {num: ${n.num}, nodes: [${n.nodes.map(shortName).join(', ')}]`;
  if (!n.anim && n.color !== undefined) s += `, color: ${n.color}`;
  // The board writes the name between quotes as it is, escaping nothing.
  if (n.name !== undefined && n.name !== '') s += `, name: "${n.name}"`;
  if (n.user) s += ', user: true';
  if (n.anim) s += ', anim: true';
  return `${s}}\n`;
}

function formatOverlay(o: OverlayInput): string {
  // GraphicOverlays.cpp:339-396 serializeOverlaysToYAML, without colour codes.
  let s = `  - name: "${o.name}"\n    row: ${o.row}\n    col: ${o.col}\n`;
  s += `    width: ${o.width}\n    height: ${o.height}\n    colors:\n           [`;
  const pixels = o.width * o.height;
  for (let j = 0; j < pixels; j++) {
    if (j > 0) s += j % o.width === 0 ? ',\n            ' : ', ';
    s += hexPixel(o.colors[j] ?? 0);
  }
  return `${s}]\n`;
}

const list = (xs: readonly (number | string)[]): string => `[${xs.join(',')}]`;

export function formatSlotYaml(slot: SlotData): string {
  let out = `version: ${slot.version}\nsourceOfTruth: ${slot.sourceOfTruth}\n\n`;
  if (slot.bridges.length > 0) {
    out += 'bridges:\n';
    for (const b of slot.bridges) {
      const color = b.color === undefined ? '' : `, color: ${b.color}`;
      out += `  - {n1: ${yamlName(b.n1)}, n2: ${yamlName(b.n2)}, dup: ${b.dup}${color}}\n`;
    }
    out += '\n';
  }
  out += 'nets:\n';
  for (const n of slot.nets) out += formatNet(n);
  out += '\n';
  const p = slot.power;
  out += `power:\n  topRail: ${f2(p.topRail)}\n  bottomRail: ${f2(p.bottomRail)}\n`;
  out += `  dac0: ${f2(p.dac0)}\n  dac1: ${f2(p.dac1)}\n\n`;
  const c = slot.config;
  const r = c.routing;
  out += 'config:\n';
  out += `  routing: {stackPaths: ${r.stackPaths}, stackRails: ${r.stackRails}, stackDacs: ${r.stackDacs}, railPriority: ${r.railPriority}}\n`;
  out += '  gpio:\n';
  out += `    direction:    ${list(c.gpio.direction)}\n`;
  out += `    pulls:        ${list(c.gpio.pulls)}\n`;
  out += `    pwmFrequency: ${list(c.gpio.pwmFrequency.map(f2))}\n`;
  out += `    pwmDutyCycle: ${list(c.gpio.pwmDutyCycle.map(f2))}\n`;
  out += `    pwmEnabled:   ${list(c.gpio.pwmEnabled.map((e) => (e ? 1 : 0)))}\n`;
  out += `    readFloating: ${list(c.gpio.readFloating)}\n`;
  out += `  uart: {txFunction: ${c.uart.txFunction}, rxFunction: ${c.uart.rxFunction}}\n`;
  out += `  oled: {connected: ${c.oled.connected}, lockConnection: ${c.oled.lockConnection}}\n`;
  if (c.fakeGpio.length > 0) {
    out += '  fakeGpio:\n';
    for (const line of c.fakeGpio) out += `    - ${line}\n`;
  }
  if (slot.overlays.length > 0) {
    out += '\noverlays:\n';
    for (const o of slot.overlays) out += formatOverlay(o);
  }
  return out;
}

// ---- the firmware's readers ----

/** Arduino `String::toInt` (atol): an optional sign and leading digits, 0 if none. */
export function arduinoToInt(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m?.[1] ? Number(BigInt.asIntN(32, BigInt(m[1]))) : 0;
}

/** Arduino `String::toFloat` (atof) of the leading number, without exponent; 0 if none. */
export function arduinoToFloat(s: string): number {
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(s);
  return m?.[1] ? Number(m[1]) : 0;
}

/** The firmware's parseBoolean, as far as slot files use it. */
const toBool = (s: string): boolean => /^(true|1|yes|on)$/i.test(s.trim());

// NetManager.cpp:179-211 nanoDefines, as parseNodeName walks them (short name, long name, node).
const NANO_DEFINES: readonly (readonly [string, string, number])[] = [
  ['VIN', 'NANO_VIN', 69],
  ...Array.from({ length: 14 }, (_, d) => [`D${d}`, `NANO_D${d}`, 70 + d] as const),
  // The table's entry at node 84's position names NANO_3V3 (98), so "3V3" parses as NANO_3V3.
  ['3V3', 'NANO_3V3', 98],
  ['AREF', 'NANO_AREF', 85],
  ...Array.from({ length: 8 }, (_, a) => [`A${a}`, `NANO_A${a}`, 86 + a] as const),
  ['RST0', 'NANO_RST0', 94],
  ['RST1', 'NANO_RST1', 95],
  ['N_GND1', 'NANO_N_GND1', 96],
  ['N_GND0', 'NANO_N_GND0', 97],
  ['NANO_3V3', 'NANO_3V3', 98],
  ['NANO_5V', 'NANO_5V', 99],
];

// NetManager.cpp:98-177 specialDefines in table order; parseNodeName searches only the first 70
// (States.cpp:2362-2363), so FAKE_GP_IN_17..23 are never found.
const SPECIAL_ORDER: readonly number[] = [
  ...Array.from({ length: 22 }, (_, i) => 100 + i),
  122,
  123,
  124,
  125,
  126,
  127,
  142,
  143,
  144,
  145,
  146,
  147,
  148,
  131,
  132,
  133,
  134,
  135,
  136,
  137,
  138,
  139,
  140,
  ...Array.from({ length: 8 }, (_, i) => 150 + i),
  ...Array.from({ length: 17 }, (_, i) => 158 + i),
];
const SPECIAL_DEFINES: readonly (readonly [string, string, number])[] = SPECIAL_ORDER.map((id) =>
  id >= 122 && id <= 125 ? (['NONE', 'NONE', id] as const) : ([shortName(id), yamlName(id), id] as const),
);

/**
 * States.cpp:2331-2383 parseNodeName, what set_state and slot loading use: trimmed, upper-cased,
 * spaces as underscores; a leading digit or '-' reads a number and takes it when 0-200; else the
 * short and long names of the Nano and special tables, then a few spellings of rails, GND and
 * supplies. -1 when nothing matches.
 */
export function parseFirmwareNodeName(text: string): number {
  const s = text.trim().toUpperCase().replaceAll(' ', '_');
  if (s.length > 0 && /^[0-9-]/.test(s)) {
    const n = arduinoToInt(s);
    if (n >= 0 && n <= 200) return n;
  }
  for (const [short, long, id] of [...NANO_DEFINES, ...SPECIAL_DEFINES]) {
    if (s === short.toUpperCase() || s === long.toUpperCase()) return id;
  }
  if (s === 'TOPRAIL' || s === 'T_R' || s === 'TOP_R') return TOP_RAIL;
  if (s === 'BOTTOMRAIL' || s === 'BOTRAIL' || s === 'B_R' || s === 'BOT_R') return BOTTOM_RAIL;
  if (s === 'GROUND') return GND;
  if (s === '3V3' || s === '3.3V') return SUPPLY_3V3;
  if (s === '5V' || s === '+5V') return SUPPLY_5V;
  return -1;
}

/** The text after `key` up to the first ',' or '}' after it (deserializeBridges' field rule). */
function field(line: string, key: string): string | undefined {
  const at = line.indexOf(key);
  if (at < 0) return undefined;
  const start = at + key.length;
  const comma = line.indexOf(',', at);
  const brace = line.indexOf('}', at);
  let end = line.length;
  if (comma > start && (brace === -1 || comma < brace)) end = comma;
  else if (brace > start) end = brace;
  if (end <= start) return undefined;
  const value = line.slice(start, end).trim();
  return value === '' ? undefined : value;
}

/** deserializeNets' rule: up to the first ',' after the key, else the first '}'. */
function netField(line: string, key: string): string | undefined {
  const at = line.indexOf(key);
  if (at < 0) return undefined;
  let end = line.indexOf(',', at);
  if (end === -1) end = line.indexOf('}', at);
  return line.slice(at + key.length, end === -1 ? undefined : end).trim();
}

/** A bracketed list of a config line: `direction:    [1,1,...]`. */
function bracketList(line: string): string[] | undefined {
  const open = line.indexOf('[');
  const close = line.indexOf(']');
  if (open < 0 || close <= open) return undefined;
  return line
    .slice(open + 1, close)
    .split(',')
    .map((x) => x.trim())
    .slice(0, GPIO_COUNT);
}

interface Draft {
  version: number;
  sourceOfTruth: 'bridges' | 'nets';
  bridges: { n1: number; n2: number; dup: number; color?: string }[];
  nets: SlotNet[];
  power: { topRail: number; bottomRail: number; dac0: number; dac1: number };
  routing: { stackPaths: number; stackRails: number; stackDacs: number; railPriority: number };
  gpio: {
    direction: number[];
    pulls: number[];
    pwmFrequency: number[];
    pwmDutyCycle: number[];
    pwmEnabled: boolean[];
    readFloating: number[];
  };
  uart: { txFunction: number; rxFunction: number };
  oled: { connected: boolean; lockConnection: boolean };
  fakeGpio: string[];
  skipped: string[];
}

/** addConnection as loading uses it: an existing bridge takes the new count (or one more for -1). */
function addBridge(d: Draft, line: string): void {
  const n1Text = field(line, 'n1:');
  const n2Text = field(line, 'n2:');
  const n1 = n1Text === undefined ? -1 : parseFirmwareNodeName(n1Text);
  const n2 = n2Text === undefined ? -1 : parseFirmwareNodeName(n2Text);
  if (n1 < 0 || n2 < 0) {
    d.skipped.push(`bridge without two known nodes: ${line}`);
    return;
  }
  if (!isBridgeable(n1) || !isBridgeable(n2) || n1 === n2 || isForbiddenPair(n1, n2)) {
    d.skipped.push(`bridge the board refuses: ${line}`);
    return;
  }
  const dupText = field(line, 'dup:');
  const dup = dupText === undefined ? -1 : arduinoToInt(dupText);
  const colorAt = line.indexOf('color:');
  let color: string | undefined;
  if (colorAt >= 0) {
    const brace = line.indexOf('}', colorAt);
    const value = line.slice(colorAt + 6, brace > colorAt + 6 ? brace : undefined).trim();
    if (value !== '') color = value;
  }
  const existing = d.bridges.find((b) => (b.n1 === n1 && b.n2 === n2) || (b.n1 === n2 && b.n2 === n1));
  if (existing) {
    existing.dup = dup >= 0 ? dup : existing.dup + 1;
    return;
  }
  if (d.bridges.length >= MAX_BRIDGES) {
    d.skipped.push(`more than ${MAX_BRIDGES} bridges: ${line}`);
    return;
  }
  d.bridges.push({ n1, n2, dup: dup >= 0 ? dup : d.routing.stackPaths, ...(color ? { color } : {}) });
}

function addNet(d: Draft, line: string): void {
  const numText = netField(line, 'num:');
  const num = numText === undefined ? -1 : arduinoToInt(numText);
  const nodesAt = line.indexOf('nodes:');
  const open = nodesAt < 0 ? -1 : line.indexOf('[', nodesAt);
  const close = open < 0 ? -1 : line.indexOf(']', open);
  const nodes =
    open < 0 || close < 0
      ? []
      : line
          .slice(open + 1, close)
          .split(',')
          .map(parseFirmwareNodeName)
          .filter((n) => n > 0);
  const color = netField(line, 'color:');
  const user = netField(line, 'user:');
  const anim = netField(line, 'anim:');
  let name: string | undefined;
  const nameAt = line.indexOf('name:');
  if (nameAt >= 0) {
    const q1 = line.indexOf('"', nameAt);
    const q2 = q1 < 0 ? -1 : line.indexOf('"', q1 + 1);
    if (q1 >= 0 && q2 > q1) name = line.slice(q1 + 1, q2);
  }
  d.nets.push({
    num,
    nodes,
    ...(color ? { color } : {}),
    ...(name ? { name } : {}),
    ...(user !== undefined && toBool(user) ? { user: true } : {}),
    ...(anim !== undefined && toBool(anim) ? { anim: true } : {}),
  });
}

const POWER_KEYS = ['topRail', 'bottomRail', 'dac0', 'dac1'] as const;

function addPower(d: Draft, line: string): void {
  for (const key of POWER_KEYS) {
    if (line.startsWith(`${key}:`)) d.power[key] = arduinoToFloat(line.slice(line.indexOf(':') + 1).trim());
  }
}

function addConfig(d: Draft, line: string): void {
  if (line.startsWith('routing:')) {
    const r = d.routing;
    const num = (key: string, end: string): number | undefined => {
      const at = line.indexOf(key);
      if (at < 0) return undefined;
      const stop = line.indexOf(end, at);
      return arduinoToInt(line.slice(at + key.length, stop < 0 ? undefined : stop).trim());
    };
    r.stackPaths = num('stackPaths:', ',') ?? r.stackPaths;
    r.stackRails = num('stackRails:', ',') ?? r.stackRails;
    r.stackDacs = num('stackDacs:', ',') ?? r.stackDacs;
    r.railPriority = num('railPriority:', '}') ?? r.railPriority;
    return;
  }
  const fill = <T>(into: T[], xs: readonly string[], read: (x: string) => T): void => {
    for (const [i, x] of xs.entries()) into[i] = read(x);
  };
  const arrays: [string, (xs: string[]) => void][] = [
    ['direction:', (xs) => fill(d.gpio.direction, xs, arduinoToInt)],
    ['pulls:', (xs) => fill(d.gpio.pulls, xs, arduinoToInt)],
    ['pwmFrequency:', (xs) => fill(d.gpio.pwmFrequency, xs, arduinoToFloat)],
    ['pwmDutyCycle:', (xs) => fill(d.gpio.pwmDutyCycle, xs, arduinoToFloat)],
    ['pwmEnabled:', (xs) => fill(d.gpio.pwmEnabled, xs, toBool)],
    ['readFloating:', (xs) => fill(d.gpio.readFloating, xs, arduinoToInt)],
  ];
  for (const [key, apply] of arrays) {
    if (!line.startsWith(key)) continue;
    const xs = bracketList(line);
    if (xs) apply(xs);
    return;
  }
  if (line.startsWith('uart:')) {
    const tx = netField(line, 'txFunction:');
    const rxAt = line.indexOf('rxFunction:');
    if (tx !== undefined) d.uart.txFunction = arduinoToInt(tx);
    if (rxAt >= 0) d.uart.rxFunction = arduinoToInt(line.slice(rxAt + 11));
  } else if (line.startsWith('oled:')) {
    const connected = netField(line, 'connected:');
    const lock = line.indexOf('lockConnection:');
    if (connected !== undefined) d.oled.connected = toBool(connected);
    if (lock >= 0) d.oled.lockConnection = toBool(line.slice(lock + 15).replace('}', ''));
  }
}

/** GraphicOverlays.cpp:398-472 deserializeOverlaysFromYAML: a scan of the text from `overlays:`. */
function readOverlays(text: string): OverlayInput[] {
  const section = text.indexOf('overlays:');
  if (section < 0) return [];
  const out: OverlayInput[] = [];
  let pos = text.indexOf('- name:', section);
  while (pos >= 0) {
    const next = text.indexOf('- name:', pos + 7);
    const end = next < 0 ? text.length : next;
    const q1 = text.indexOf('"', pos);
    const q2 = q1 < 0 ? -1 : text.indexOf('"', q1 + 1);
    const name = q1 >= 0 && q2 > q1 ? text.slice(q1 + 1, q2).slice(0, 31) : '';
    const num = (key: string, fallback: number): number => {
      const at = text.indexOf(key, pos);
      return at >= 0 && at < end ? arduinoToInt(text.slice(at + key.length)) : fallback;
    };
    const width = num('width:', 1);
    const height = num('height:', 1);
    const colors: number[] = [];
    const colorsAt = text.indexOf('colors:', pos);
    const open = colorsAt >= 0 && colorsAt < end ? text.indexOf('[', colorsAt) : -1;
    if (open >= 0 && open < end) {
      const close = text.indexOf(']', open);
      const body = text.slice(open + 1, close < 0 || close > end ? end : close);
      for (const item of body.split(',')) {
        const m = /^\s*0[xX]([0-9a-fA-F]+)/.exec(item);
        if (m?.[1]) colors.push(Number.parseInt(m[1], 16) >>> 0);
      }
    }
    if (name !== '' && width > 0 && height > 0) {
      out.push({ name, row: num('row:', 0), col: num('col:', 0), width, height, colors });
    }
    pos = next;
  }
  return out;
}

type Section = 'bridges' | 'nets' | 'power' | 'config' | 'fakeGpio' | 'overlays' | '';

const SECTIONS: readonly Exclude<Section, ''>[] = [
  'bridges',
  'nets',
  'power',
  'config',
  'fakeGpio',
  'overlays',
];

export const MAX_SLOT_CHARS = 200_000;

/** Reads a slot file as the board loads it (fromYAML). */
export function parseSlotYaml(text: string): ParseSlotResult {
  if (typeof text !== 'string') return { ok: false, error: 'slot YAML must be text' };
  if (text.length > MAX_SLOT_CHARS)
    return { ok: false, error: `slot YAML is larger than ${MAX_SLOT_CHARS} characters` };
  const config = defaultSlotConfig();
  const d: Draft = {
    version: 2,
    sourceOfTruth: 'bridges',
    bridges: [],
    nets: [],
    power: { ...DEFAULT_POWER },
    routing: { ...config.routing },
    gpio: {
      direction: [...config.gpio.direction],
      pulls: [...config.gpio.pulls],
      pwmFrequency: [...config.gpio.pwmFrequency],
      pwmDutyCycle: [...config.gpio.pwmDutyCycle],
      pwmEnabled: [...config.gpio.pwmEnabled],
      readFloating: [...config.gpio.readFloating],
    },
    uart: { ...config.uart },
    oled: { ...config.oled },
    fakeGpio: [],
    skipped: [],
  };
  let section: Section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('version:')) {
      d.version = arduinoToInt(line.slice(line.indexOf(':') + 1).trim());
      continue;
    }
    if (line.startsWith('sourceOfTruth:')) {
      d.sourceOfTruth = line.slice(line.indexOf(':') + 1).trim() === 'nets' ? 'nets' : 'bridges';
      continue;
    }
    const header = SECTIONS.find((s) => line.startsWith(`${s}:`));
    if (header) {
      section = header;
      continue;
    }
    if (line.startsWith('- {') || line.startsWith('-{')) {
      if (section === 'bridges') addBridge(d, line);
      else if (section === 'nets') addNet(d, line);
      else if (section === 'fakeGpio') d.fakeGpio.push(line.replace(/^-\s*/, ''));
      continue;
    }
    if (section === 'power') addPower(d, line);
    else if (section === 'config') addConfig(d, line);
  }
  if (d.sourceOfTruth === 'nets') {
    // syncBridgesFromNets: we read each net as a chain of its nodes (an approximation).
    d.bridges = [];
    for (const net of d.nets) {
      for (let i = 1; i < net.nodes.length; i++) {
        addBridge(d, `{n1: ${net.nodes[i - 1]}, n2: ${net.nodes[i]}}`);
      }
    }
    d.skipped.push('sourceOfTruth: nets: the bridges were rebuilt as chains of each net');
  }
  for (const key of POWER_KEYS) {
    const v = d.power[key];
    if (!(v >= -8 && v <= 8)) return { ok: false, error: `power ${key} ${f2(v)} V is outside -8..8 V` };
  }
  return {
    ok: true,
    slot: {
      version: d.version,
      sourceOfTruth: d.sourceOfTruth,
      bridges: d.bridges,
      nets: d.nets,
      power: d.power,
      config: {
        routing: d.routing,
        gpio: d.gpio,
        uart: d.uart,
        oled: d.oled,
        fakeGpio: d.fakeGpio,
      },
      overlays: readOverlays(text),
    },
    skipped: d.skipped,
  };
}
