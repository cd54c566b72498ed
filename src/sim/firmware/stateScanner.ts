/**
 * `set_state(json)` as the firmware reads it (JsonState.cpp:321-735): not a JSON parser but a
 * substring scanner. A section is found by the first `"nets"`/`"power"`/`"gpio"`/`"overlays"` anywhere
 * in the text, its array or object by the first bracket after that, and the bracket's end by counting
 * brackets (strings are not understood). Numbers are the run of `[0-9.+-]` after the key's colon
 * (an exponent ends them), node names are the quoted strings of `"nodes": [...]`. So sloppy text is
 * accepted, unknown nodes are skipped, and names and every unknown key are ignored.
 *
 * Order of work (applyJSONState): checks, then with a `"nets"` section and clear_first every bridge
 * goes (the probe-power one too); then power, nets, gpio and overlays. A failing power section
 * returns -1 with the clearing already done.
 */

import { MAX_NODES_PER_NET, OVERLAY_COLS, OVERLAY_ROWS } from '../../board/limits.js';
import { arduinoToFloat, arduinoToInt, parseFirmwareNodeName } from '../../board/slots.js';
import { applyPower, type GpioPin, type Hardware, type PowerSetpoints, touch } from './hardware.js';
import { recordBridgeChange, recordClearAll } from './history.js';

/** MAX_OVERLAY_PIXELS (GraphicOverlays.h:37). */
const MAX_OVERLAY_PIXELS = OVERLAY_ROWS * OVERLAY_COLS;

/** The `[...]` (or `{...}`) after the first `"key"`, brackets counted; '' when there is none. */
function extractBracketed(text: string, key: string, open: string, close: string): string {
  const at = text.indexOf(`"${key}"`);
  if (at < 0) return '';
  const start = text.indexOf(open, at);
  if (start < 0) return '';
  let depth = 1;
  let pos = start + 1;
  while (pos < text.length && depth > 0) {
    const c = text[pos];
    if (c === open) depth++;
    else if (c === close) depth--;
    pos++;
  }
  return text.slice(start, pos);
}

export const extractArray = (text: string, key: string): string => extractBracketed(text, key, '[', ']');
export const extractObject = (text: string, key: string): string => extractBracketed(text, key, '{', '}');

/** The text between the first two quotes after the key's colon ('' when missing). */
export function extractString(text: string, key: string): string {
  const at = text.indexOf(`"${key}"`);
  if (at < 0) return '';
  const colon = text.indexOf(':', at);
  if (colon < 0) return '';
  const q1 = text.indexOf('"', colon);
  if (q1 < 0) return '';
  const q2 = text.indexOf('"', q1 + 1);
  return q2 < 0 ? '' : text.slice(q1 + 1, q2);
}

/** Start of a value: after the key's colon, past spaces and newlines only. */
function valueStart(text: string, key: string): number | undefined {
  const at = text.indexOf(`"${key}"`);
  if (at < 0) return undefined;
  const colon = text.indexOf(':', at);
  if (colon < 0) return undefined;
  let i = colon + 1;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n')) i++;
  return i;
}

/** extractFloat: the run of digits, '.', '+', '-' read with atof; missing key -> fallback. */
export function extractFloat(text: string, key: string, fallback: number): number {
  const i = valueStart(text, key);
  if (i === undefined) return fallback;
  let end = i;
  while (end < text.length && /[0-9.+-]/.test(text[end] as string)) end++;
  return arduinoToFloat(text.slice(i, end));
}

/** extractInt: `null` is -1, else the run of digits and '-' read with atol. */
export function extractInt(text: string, key: string, fallback: number): number {
  const i = valueStart(text, key);
  if (i === undefined) return fallback;
  if (text.startsWith('null', i)) return -1;
  let end = i;
  while (end < text.length && /[0-9-]/.test(text[end] as string)) end++;
  return arduinoToInt(text.slice(i, end));
}

/** The `{...}` objects of an array, one after the other, braces counted. */
function* objects(array: string): Generator<string> {
  let pos = 0;
  for (;;) {
    const start = array.indexOf('{', pos);
    if (start < 0) return;
    let depth = 1;
    let i = start + 1;
    while (i < array.length && depth > 0) {
      if (array[i] === '{') depth++;
      else if (array[i] === '}') depth--;
      i++;
    }
    pos = i;
    yield array.slice(start, i);
  }
}

/** Every quoted string of a text, in order. */
function* quoted(text: string): Generator<string> {
  let pos = 0;
  for (;;) {
    const q1 = text.indexOf('"', pos);
    if (q1 < 0) return;
    const q2 = text.indexOf('"', q1 + 1);
    if (q2 < 0) return;
    pos = q2 + 1;
    yield text.slice(q1 + 1, q2);
  }
}

const C_SPACE = /^[\s\v]+|[\s\v]+$/g;
const POWER_JSON_KEYS: readonly [string, keyof PowerSetpoints][] = [
  ['top_rail', 'topRail'],
  ['bottom_rail', 'bottomRail'],
  ['dac0', 'dac0'],
  ['dac1', 'dac1'],
];
/** Net index 2-5 -> the setpoint its `voltage` overrides (JsonState.cpp:515-540). */
const NET_VOLTAGE_KEYS: Readonly<Record<number, keyof PowerSetpoints>> = {
  2: 'topRail',
  3: 'bottomRail',
  4: 'dac0',
  5: 'dac1',
};
const PULL_CODES: Readonly<Record<string, GpioPin['pull']>> = { down: -1, up: 1, none: 0, keeper: 2 };

/** parsePowerSection: all four or nothing; the hardware is driven (setRailsAndDACs). */
function applyPowerSection(hw: Hardware, text: string): string | undefined {
  const obj = extractObject(text, 'power');
  if (obj === '') return undefined;
  const next = { ...hw.power };
  for (const [jsonKey, key] of POWER_JSON_KEYS) next[key] = extractFloat(obj, jsonKey, hw.power[key]);
  if (Object.values(next).some((v) => v < -8 || v > 8)) return 'Power values out of range (-8V to +8V)';
  hw.power = next;
  applyPower(hw);
  // setRailsAndDACs stores each value with save=1, which marks the state dirty (Peripherals.cpp:1334).
  hw.dirty = true;
  return undefined;
}

/** parseNetsSection: each net's quoted, known nodes bridged as a chain; names are never read. */
function applyNetsSection(hw: Hardware, text: string, oldPower: PowerSetpoints): void {
  const array = extractArray(text, 'nets');
  if (array === '') return;
  for (const net of objects(array)) {
    const nodesArray = extractArray(net, 'nodes');
    if (nodesArray === '') continue;
    const nodes: number[] = [];
    for (const name of quoted(nodesArray)) {
      const id = parseFirmwareNodeName(name);
      if (id > 0 && nodes.length < MAX_NODES_PER_NET) nodes.push(id);
    }
    for (let i = 1; i < nodes.length; i++) {
      const a = nodes[i - 1] as number;
      const b = nodes[i] as number;
      // addBridgeToState(a, b, -1): a new bridge gets stackPaths, an existing one one more.
      const outcome = hw.conns.connect(a, b, -1);
      if (outcome.status === 'refused') continue;
      hw.dirty = true;
      if (outcome.status !== 'updated') recordBridgeChange(hw, 'connect', a, b);
    }
    // A voltage on nets 2-5 overrides that setpoint in the state only (the DAC is not driven),
    // unless the power section already changed it.
    const key = NET_VOLTAGE_KEYS[extractInt(net, 'index', -1)];
    if (key === undefined) continue;
    const voltage = extractFloat(net, 'voltage', -999);
    if (voltage <= -100) continue;
    const current = hw.power[key];
    if (Math.abs(voltage - current) > 0.001 && Math.abs(current - oldPower[key]) < 0.001) {
      hw.power[key] = voltage;
    }
  }
}

/** parseGpioSection: pins 1-8 only ("TX"/"RX" read as pin 0); PWM pins keep their pads. */
function applyGpioSection(hw: Hardware, text: string): void {
  const array = extractArray(text, 'gpio');
  if (array === '') return;
  for (const obj of objects(array)) {
    const pin = extractInt(obj, 'pin', -1);
    if (pin < 1 || pin > 8) continue;
    const g = hw.gpio[pin - 1];
    if (!g) continue;
    // setGPIO() leaves pins with PWM enabled alone (Peripherals.cpp:707-711).
    const pwm = g.pwm !== null || g.slowPwm !== null;
    const dir = extractString(obj, 'direction').toUpperCase();
    if (dir !== '') g.direction = dir === 'OUTPUT' ? 0 : 1;
    const pull = PULL_CODES[extractString(obj, 'pull').toLowerCase()];
    if (pull !== undefined && !pwm) g.pull = pull;
    const floating = extractInt(obj, 'floating_read', -1);
    if (floating >= 0) g.readFloating = floating !== 0;
  }
}

/** parseOverlaysSection: the array replaces every overlay; entries without a name or size are skipped. */
function applyOverlaysSection(hw: Hardware, text: string): void {
  const array = extractArray(text, 'overlays');
  if (array === '') return;
  const overlays = [];
  for (const obj of objects(array)) {
    const name = extractString(obj, 'name').slice(0, 31);
    const width = extractInt(obj, 'width', 1);
    const height = extractInt(obj, 'height', 1);
    if (name === '' || width <= 0 || height <= 0) continue;
    const colors: number[] = [];
    for (const hex of quoted(extractArray(obj, 'colors'))) {
      if (hex === '' || colors.length >= MAX_OVERLAY_PIXELS) break;
      const m = /^\s*(?:0[xX])?([0-9a-fA-F]+)/.exec(hex);
      // strtoul(hex, 16): an optional 0x, hex digits, saturating at 32 bits; 0 when none.
      colors.push(m?.[1] ? Math.min(0xffffffff, Number.parseInt(m[1], 16)) : 0);
    }
    overlays.push({
      name,
      row: extractInt(obj, 'row', 0),
      col: extractInt(obj, 'col', 0),
      width,
      height,
      colors,
    });
  }
  hw.overlays.replace(overlays);
}

/**
 * applyJSONState (JsonState.cpp:684-735). Returns the error text the firmware prints after
 * `set_state error: `, or undefined on success.
 */
export function applyJsonState(hw: Hardware, json: string, clearFirst: boolean): string | undefined {
  // The C string ends at the first NUL.
  const text = json.split('\0')[0] as string;
  if (text.length < 2) return 'Empty or invalid JSON';
  const trimmed = text.replace(C_SPACE, '');
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return 'Invalid JSON: must be an object';
  const hasNets = text.includes('"nets"');
  const hasPower = text.includes('"power"');
  const hasGpio = text.includes('"gpio"');
  const hasOverlays = text.includes('"overlays"');
  if (!hasNets && !hasPower && !hasGpio && !hasOverlays) {
    return 'Invalid JSON: no recognized sections (nets, power, gpio, overlays)';
  }
  if (hasNets && clearFirst) {
    // clearAllConnections: every bridge, recorded as one Clear All (States.cpp:720-740).
    recordClearAll(hw);
    hw.dirty = true;
  }
  const oldPower = { ...hw.power };
  if (hasPower) {
    const error = applyPowerSection(hw, text);
    if (error) return error;
  }
  if (hasNets) applyNetsSection(hw, text, oldPower);
  if (hasGpio) applyGpioSection(hw, text);
  if (hasOverlays) applyOverlaysSection(hw, text);
  touch(hw);
  return undefined;
}
