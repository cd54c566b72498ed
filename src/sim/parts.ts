/**
 * The parts file: virtual components placed on the simulated breadboard, given at start-up with
 * `jumperless-mcp sim --parts file.json`. They join the DC circuit the simulator solves for ADC,
 * INA and GPIO readings. Example: test/fixtures/parts/divider.json.
 *
 * ```jsonc
 * {
 *   "comment": "optional free text",
 *   "parts": [
 *     { "type": "resistor", "id": "R1", "between": [10, 20], "ohms": "4.7k" },
 *     { "type": "wire", "between": ["D13", "15"] },
 *     { "type": "source", "id": "BAT", "node": "30", "volts": 9, "ohms": 0.1 },
 *     { "type": "led", "anode": 12, "cathode": "GND", "color": "red" },
 *     { "type": "diode", "anode": 14, "cathode": 15, "vf": 0.7 },
 *     { "type": "capacitor", "between": [16, "GND"], "farads": "100n" }
 *   ]
 * }
 * ```
 *
 * Part types and their fields (every part also takes an optional `id` and `comment`):
 * - `resistor`: `between` (two places), `ohms`.
 * - `wire`: `between`; a jumper wire, {@link WIRE_OHMS}. The firmware cannot see it (spec §8.3).
 * - `source`: `node`, `volts`, `ohms` (series resistance, default {@link DEFAULT_SOURCE_OHMS}):
 *   a battery or bench supply whose negative side is on GND.
 * - `led`: `anode`, `cathode`, `color` (default red; sets `vf`), optional `vf`, `rs` (default 0).
 * - `diode`: `anode`, `cathode`, optional `vf` (default 0.7), `rs` (default 0).
 *   `vf` is the forward voltage at 10 mA (see the solver's DIODE_VF_CURRENT).
 * - `capacitor`: `between`, `farads`. The solver is DC, so a capacitor is what it is at DC: open
 *   (its leakage, {@link CAPACITOR_LEAK_OHMS}); its value is there for tasks that reason with it.
 *
 * A place is a row (`10` or `"10"`), a Nano pin (`"D13"`, `"A0"`, `"NANO_5V"`...) or a rail
 * (`"TOP_RAIL"`, `"BOTTOM_RAIL"`, `"GND"`, `"TOP_RAIL_GND"`, `"BOTTOM_RAIL_GND"`), names as in
 * spec §6.2, case-insensitive. Internal nodes (DAC0, ADC0, ISENSE_PLUS...) are reached through the
 * crossbar: put the part in a row and `connect` that row.
 * Values are numbers or strings with an SI prefix: ohms `220`, `"4.7k"`, `"4k7"`, `"2M"`, `"1kΩ"`
 * (`m` is milli, `M` mega); volts `3.3`, `"5V"`, `"-500mV"`.
 *
 * A malformed file is refused whole, with the line of each problem: a half-loaded circuit would
 * give readings that look right and are not.
 */
import {
  BOTTOM_RAIL,
  BOTTOM_RAIL_GND,
  GND,
  nodeInfo,
  resolveNode,
  TOP_RAIL,
  TOP_RAIL_GND,
} from '../board/nodes.js';
import { type JsonEntry, type JsonNode, readJson } from './lineJson.js';
import type { Element } from './solver.js';

/** Resistance of a `wire` part: a short jumper. */
export const WIRE_OHMS = 0.01;
/** A capacitor at DC: its insulation, as a resistance. */
export const CAPACITOR_LEAK_OHMS = 1e12;
export const DEFAULT_SOURCE_OHMS = 0.1;
export const DEFAULT_DIODE_VF = 0.7;
/** Forward voltage at 10 mA by LED colour (typical datasheet figures). */
export const LED_VF: Readonly<Record<LedColor, number>> = {
  red: 1.9,
  orange: 2.0,
  yellow: 2.0,
  green: 2.1,
  blue: 3.0,
  white: 3.0,
};
export const MAX_PARTS = 500;
export const MAX_PARTS_FILE_CHARS = 1_000_000;
/** The highest `vf` the solver accepts. */
const MAX_VF = 20;
/** Bounds that keep a solve well inside floating-point range (far wider than any real part). */
export const OHMS_RANGE = { min: 1e-6, max: 1e12 } as const;
export const MAX_ABS_VOLTS = 1000;

export type LedColor = 'red' | 'orange' | 'yellow' | 'green' | 'blue' | 'white';

interface PartBase {
  /** Given in the file, or made up from the type: R1, W1, V1, LED1, D1 (never clashing). */
  readonly id: string;
  /** Line of the part in the file, for later messages. */
  readonly line: number;
}

/** A checked part; every place is a board node id (spec §6.2). */
export type Part =
  | (PartBase & {
      readonly type: 'resistor';
      readonly between: readonly [number, number];
      readonly ohms: number;
    })
  | (PartBase & { readonly type: 'wire'; readonly between: readonly [number, number] })
  | (PartBase & {
      readonly type: 'source';
      readonly node: number;
      readonly volts: number;
      readonly ohms: number;
    })
  | (PartBase & {
      readonly type: 'led';
      readonly anode: number;
      readonly cathode: number;
      readonly color: LedColor;
      readonly vf: number;
      readonly rs: number;
    })
  | (PartBase & {
      readonly type: 'diode';
      readonly anode: number;
      readonly cathode: number;
      readonly vf: number;
      readonly rs: number;
    })
  | (PartBase & {
      readonly type: 'capacitor';
      readonly between: readonly [number, number];
      readonly farads: number;
    });

export type PartType = Part['type'];

export type PartsFileResult =
  | { readonly ok: true; readonly parts: readonly Part[] }
  | {
      readonly ok: false;
      /** Every problem found, one per line, each starting `line N: `. */
      readonly error: string;
      readonly errors: readonly string[];
    };

/** Turns a place written in the file (a number or a name) into a board node id, or undefined. */
export type NodeResolver = (place: string | number) => number | undefined;

const PLACEABLE_SPECIALS = new Set([GND, TOP_RAIL, BOTTOM_RAIL, TOP_RAIL_GND, BOTTOM_RAIL_GND]);

/** The default resolver: the board's names (spec §6.2), limited to where a part can physically sit. */
export function placeOnBoard(place: string | number): number | undefined {
  const id = resolveNode(place);
  const info = id === undefined ? undefined : nodeInfo(id);
  if (info === undefined) return undefined;
  return info.kind === 'row' || info.kind === 'nano' || PLACEABLE_SPECIALS.has(info.id) ? info.id : undefined;
}

const FIELDS: Readonly<Record<PartType, readonly string[]>> = {
  resistor: ['between', 'ohms'],
  wire: ['between'],
  source: ['node', 'volts', 'ohms'],
  led: ['anode', 'cathode', 'color', 'vf', 'rs'],
  diode: ['anode', 'cathode', 'vf', 'rs'],
  capacitor: ['between', 'farads'],
};
const REQUIRED: Readonly<Record<PartType, readonly string[]>> = {
  resistor: ['between', 'ohms'],
  wire: ['between'],
  source: ['node', 'volts'],
  led: ['anode', 'cathode'],
  diode: ['anode', 'cathode'],
  capacitor: ['between', 'farads'],
};
const ID_PREFIX: Readonly<Record<PartType, string>> = {
  resistor: 'R',
  wire: 'W',
  source: 'V',
  led: 'LED',
  diode: 'D',
  capacitor: 'C',
};
const PART_TYPES = Object.keys(FIELDS) as PartType[];
const ID_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;
const MAX_ERRORS = 20;

const SI_PREFIX: Readonly<Record<string, number>> = {
  '': 1,
  p: 1e-12,
  n: 1e-9,
  u: 1e-6,
  µ: 1e-6,
  μ: 1e-6,
  m: 1e-3,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
};
const NUMBER = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';
const OHMS_TEXT = new RegExp(`^(${NUMBER})\\s*([pnuµμmkKMG]?)\\s*(?:Ω|[oO][hH][mM][sS]?|R)?$`);
const VOLTS_TEXT = new RegExp(`^(${NUMBER})\\s*([pnuµμmkKMG]?)\\s*V?$`);
const FARADS_TEXT = new RegExp(`^(${NUMBER})\\s*([pnuµμmkKMG]?)\\s*F?$`);
/** Resistor code with the prefix as the decimal point: 4k7 = 4700, 2R2 = 2.2, 1M5 = 1.5e6. */
const RKM_TEXT = /^(\d+)([RkKMG])(\d+)$/;

/**
 * A value in `unit`: a finite number, or a string of a number with an optional SI prefix and unit
 * (`"4.7k"`, `"4k7"`, `"1 kΩ"`, `"500mV"`). Undefined for anything else.
 */
export function parseQuantity(value: unknown, unit: 'ohms' | 'volts' | 'farads'): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.length > 40) return undefined;
  const text = value.trim();
  const rkm = unit === 'ohms' ? RKM_TEXT.exec(text) : null;
  if (rkm) return Number(`${rkm[1]}.${rkm[3]}`) * (rkm[2] === 'R' ? 1 : SI_PREFIX[rkm[2]!]!);
  const match = (unit === 'ohms' ? OHMS_TEXT : unit === 'farads' ? FARADS_TEXT : VOLTS_TEXT).exec(text);
  if (!match) return undefined;
  const result = Number(match[1]) * SI_PREFIX[match[2]!]!;
  return Number.isFinite(result) ? result : undefined;
}

/** A value as it appears in a message: JSON, cut short. */
function quoted(node: JsonNode): string {
  let text: string;
  switch (node.kind) {
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'null':
      return 'null';
    default:
      text = JSON.stringify(node.value);
  }
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

class Checker {
  readonly errors: string[] = [];

  fail(line: number, message: string): undefined {
    if (this.errors.length < MAX_ERRORS) this.errors.push(`line ${line}: ${message}`);
    return undefined;
  }

  /** The members of an object by key, refusing duplicates (JSON.parse would silently keep the last). */
  fields(node: JsonNode & { kind: 'object' }, where: string): Map<string, JsonEntry> {
    const fields = new Map<string, JsonEntry>();
    for (const entry of node.entries) {
      if (fields.has(entry.key)) this.fail(entry.line, `${where} has "${entry.key}" twice`);
      else fields.set(entry.key, entry);
    }
    return fields;
  }
}

/** Turns a checked file into parts; `place` resolves every place (default: {@link placeOnBoard}). */
export function parsePartsFile(text: string, place: NodeResolver = placeOnBoard): PartsFileResult {
  try {
    return parseChecked(text, place);
  } catch (error) {
    // Only a resolver passed in by the caller can throw here; a file must still never crash us.
    const message = error instanceof Error ? error.message : String(error);
    return refused([`line 1: could not check the parts file: ${message}`]);
  }
}

/** Errors in file order (they are found part by part, field by field). */
function refused(found: readonly string[]): PartsFileResult {
  const lineOf = (error: string): number => Number(/^line (\d+)/.exec(error)?.[1] ?? 0);
  const errors = [...found].sort((a, b) => lineOf(a) - lineOf(b));
  return { ok: false, error: errors.join('\n'), errors };
}

function parseChecked(text: string, place: NodeResolver): PartsFileResult {
  if (typeof text !== 'string') return refused(['line 1: the parts file is not text']);
  if (text.length > MAX_PARTS_FILE_CHARS) {
    return refused([`line 1: the parts file is larger than ${MAX_PARTS_FILE_CHARS} characters`]);
  }
  const read = readJson(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if (!read.ok)
    return refused([`line ${read.line}: JSON syntax error at column ${read.column}: ${read.message}`]);

  const check = new Checker();
  const root = read.value;
  if (root.kind !== 'object') {
    check.fail(root.line, 'the file must be a JSON object like {"parts": [...]}');
    return refused(check.errors);
  }
  const top = check.fields(root, 'the file');
  for (const [key, entry] of top) {
    if (key !== 'parts' && key !== 'comment') {
      check.fail(
        entry.line,
        `unknown field "${key}" at the top level (expected "parts" and an optional "comment")`,
      );
    }
  }
  const list = top.get('parts')?.value;
  if (list === undefined) check.fail(root.line, 'missing "parts" (an array of parts)');
  else if (list.kind !== 'array') check.fail(list.line, `"parts" must be an array, not ${quoted(list)}`);
  else if (list.items.length > MAX_PARTS) check.fail(list.line, `more than ${MAX_PARTS} parts`);
  else {
    const parts = checkParts(check, list.items, place);
    if (check.errors.length === 0) return { ok: true, parts };
  }
  return refused(check.errors);
}

type Draft = { readonly [key: string]: unknown } & {
  readonly type: PartType;
  id: string;
  readonly line: number;
};

function checkParts(check: Checker, items: readonly JsonNode[], place: NodeResolver): Part[] {
  const drafts: (Draft | undefined)[] = items.map((item, index) =>
    checkPart(check, item, `parts[${index}]`, place),
  );
  // Explicit ids first, so a made-up id never takes a name the file uses later.
  const taken = new Set<string>();
  drafts.forEach((draft, index) => {
    if (!draft || draft.id === '') return;
    if (taken.has(draft.id))
      check.fail(draft.line, `parts[${index}].id "${draft.id}" is used by an earlier part`);
    taken.add(draft.id);
  });
  const counters = new Map<string, number>();
  for (const draft of drafts) {
    if (draft?.id !== '') continue;
    const prefix = ID_PREFIX[draft.type];
    let n = counters.get(prefix) ?? 0;
    do n++;
    while (taken.has(`${prefix}${n}`));
    counters.set(prefix, n);
    draft.id = `${prefix}${n}`;
    taken.add(draft.id);
  }
  return drafts.filter((d): d is Draft => d !== undefined) as unknown as Part[];
}

function checkPart(check: Checker, node: JsonNode, where: string, place: NodeResolver): Draft | undefined {
  if (node.kind !== 'object') {
    return check.fail(
      node.line,
      `${where} must be an object like {"type": "resistor", ...}, not ${quoted(node)}`,
    );
  }
  const fields = check.fields(node, where);
  const typeNode = fields.get('type')?.value;
  if (typeNode === undefined)
    return check.fail(node.line, `${where} needs "type" (one of ${PART_TYPES.join(', ')})`);
  if (typeNode.kind !== 'string' || !(PART_TYPES as string[]).includes(typeNode.value)) {
    return check.fail(
      typeNode.line,
      `${where}.type ${quoted(typeNode)} is not a part type (one of ${PART_TYPES.join(', ')})`,
    );
  }
  const type = typeNode.value as PartType;
  const known = ['type', 'id', 'comment', ...FIELDS[type]];
  const before = check.errors.length;
  for (const [key, entry] of fields) {
    if (!known.includes(key)) {
      check.fail(entry.line, `${where} has an unknown field "${key}" (a ${type} takes ${known.join(', ')})`);
    }
  }
  for (const key of REQUIRED[type]) {
    if (!fields.has(key)) check.fail(node.line, `${where} (a ${type}) needs "${key}"`);
  }
  const draft: Record<string, unknown> = { type, id: '', line: node.line };

  const idNode = fields.get('id')?.value;
  if (idNode !== undefined) {
    if (idNode.kind === 'string' && ID_PATTERN.test(idNode.value)) draft.id = idNode.value;
    else
      check.fail(
        idNode.line,
        `${where}.id must be 1-32 letters, digits, '_', '.' or '-', not ${quoted(idNode)}`,
      );
  }
  const comment = fields.get('comment')?.value;
  if (comment !== undefined && comment.kind !== 'string')
    check.fail(comment.line, `${where}.comment must be a string`);

  const placeAt = (key: string): number | undefined => {
    const value = fields.get(key)?.value;
    return value === undefined ? undefined : checkPlace(check, value, `${where}.${key}`, place);
  };
  const value = (key: string, kind: Quantity): number | undefined =>
    checkValue(check, fields.get(key)?.value, `${where}.${key}`, kind);
  switch (type) {
    case 'resistor':
    case 'wire':
    case 'capacitor': {
      const between = fields.get('between')?.value;
      if (between !== undefined) draft.between = checkBetween(check, between, `${where}.between`, place);
      if (type === 'resistor') draft.ohms = value('ohms', RESISTANCE);
      if (type === 'capacitor') draft.farads = value('farads', CAPACITANCE);
      break;
    }
    case 'source': {
      draft.node = placeAt('node');
      draft.volts = value('volts', VOLTAGE);
      draft.ohms = fields.has('ohms') ? value('ohms', RESISTANCE) : DEFAULT_SOURCE_OHMS;
      break;
    }
    case 'led':
    case 'diode': {
      draft.anode = placeAt('anode');
      draft.cathode = placeAt('cathode');
      if (draft.anode !== undefined && draft.anode === draft.cathode) {
        check.fail(node.line, `${where} has its anode and cathode on the same place`);
      }
      let vf = DEFAULT_DIODE_VF;
      if (type === 'led') {
        const colorNode = fields.get('color')?.value;
        let color: LedColor = 'red';
        if (colorNode !== undefined) {
          if (colorNode.kind === 'string' && Object.hasOwn(LED_VF, colorNode.value.toLowerCase())) {
            color = colorNode.value.toLowerCase() as LedColor;
          } else {
            check.fail(
              colorNode.line,
              `${where}.color ${quoted(colorNode)} is not one of ${Object.keys(LED_VF).join(', ')}`,
            );
          }
        }
        draft.color = color;
        vf = LED_VF[color];
      }
      draft.vf = fields.has('vf') ? value('vf', FORWARD_VOLTAGE) : vf;
      draft.rs = fields.has('rs') ? value('rs', SERIES_RESISTANCE) : 0;
      break;
    }
  }
  return check.errors.length === before ? (draft as Draft) : undefined;
}

function checkPlace(check: Checker, node: JsonNode, where: string, place: NodeResolver): number | undefined {
  const written =
    node.kind === 'string'
      ? node.value
      : node.kind === 'number' && Number.isInteger(node.value)
        ? node.value
        : undefined;
  const id = written === undefined ? undefined : place(written);
  if (id !== undefined) return id;
  return check.fail(
    node.line,
    `${where} ${quoted(node)} is not a place on the breadboard (use a row 1-60, a Nano pin such as "D13" or "A0", ` +
      'or a rail: "TOP_RAIL", "BOTTOM_RAIL", "GND")',
  );
}

function checkBetween(
  check: Checker,
  node: JsonNode,
  where: string,
  place: NodeResolver,
): [number, number] | undefined {
  if (node.kind !== 'array' || node.items.length !== 2) {
    return check.fail(node.line, `${where} must be two places, like [10, "GND"], not ${quoted(node)}`);
  }
  const a = checkPlace(check, node.items[0]!, `${where}[0]`, place);
  const b = checkPlace(check, node.items[1]!, `${where}[1]`, place);
  if (a === undefined || b === undefined) return undefined;
  if (a === b) return check.fail(node.line, `${where} puts both ends on the same place`);
  return [a, b];
}

/** What a value field takes: its unit, the accepted range, and how to say both in a message. */
interface Quantity {
  readonly unit: 'ohms' | 'volts' | 'farads';
  readonly accepts: (value: number) => boolean;
  readonly wanted: string;
}

const OHMS_EXAMPLES = 'a number or a string like "220", "4.7k", "4k7", "1M"';
const OHMS_SPAN = 'from 1e-6 to 1e12 ohms';
const inOhmsRange = (v: number): boolean => v >= OHMS_RANGE.min && v <= OHMS_RANGE.max;
const RESISTANCE: Quantity = {
  unit: 'ohms',
  accepts: inOhmsRange,
  wanted: `a resistance ${OHMS_SPAN}, ${OHMS_EXAMPLES}`,
};
const SERIES_RESISTANCE: Quantity = {
  unit: 'ohms',
  accepts: (v) => v === 0 || inOhmsRange(v),
  wanted: `0 or a resistance ${OHMS_SPAN}, ${OHMS_EXAMPLES}`,
};
const VOLTAGE: Quantity = {
  unit: 'volts',
  accepts: (v) => Math.abs(v) <= MAX_ABS_VOLTS,
  wanted: `a voltage from -${MAX_ABS_VOLTS} to ${MAX_ABS_VOLTS} V, a number or a string like "3.3", "5V", "-500mV"`,
};
const CAPACITANCE: Quantity = {
  unit: 'farads',
  accepts: (v) => v > 0 && v <= 1,
  wanted: 'a capacitance above 0 and up to 1 F, a number or a string like "100n", "4.7uF", "1e-6"',
};
const FORWARD_VOLTAGE: Quantity = {
  unit: 'volts',
  accepts: (v) => v > 0 && v <= MAX_VF,
  wanted: `a forward voltage above 0 and up to ${MAX_VF} V, a number or a string like "0.7", "2.1V"`,
};

function checkValue(
  check: Checker,
  node: JsonNode | undefined,
  where: string,
  kind: Quantity,
): number | undefined {
  if (node === undefined) return undefined; // missing: already reported
  const raw = node.kind === 'number' || node.kind === 'string' ? node.value : undefined;
  const value = parseQuantity(raw, kind.unit);
  if (value !== undefined && kind.accepts(value)) return value;
  return check.fail(node.line, `${where} must be ${kind.wanted} (got ${quoted(node)})`);
}

/** The solver id of a part's element: prefixed, so it never clashes with the simulator's own ids. */
export const partElementId = (id: string): string => `part:${id}`;

/**
 * The parts as solver elements. `nodeName` maps a board node id to the solver's node name (the
 * simulator maps every ground pin to the solver's GND).
 */
export function partsToElements(parts: readonly Part[], nodeName: (node: number) => string): Element[] {
  return parts.map((part) => partElement(part, nodeName));
}

function partElement(part: Part, nodeName: (node: number) => string): Element {
  const id = partElementId(part.id);
  switch (part.type) {
    case 'resistor':
      return {
        kind: 'resistor',
        id,
        a: nodeName(part.between[0]),
        b: nodeName(part.between[1]),
        ohms: part.ohms,
      };
    case 'wire':
      return {
        kind: 'resistor',
        id,
        a: nodeName(part.between[0]),
        b: nodeName(part.between[1]),
        ohms: WIRE_OHMS,
      };
    case 'source':
      return { kind: 'source', id, node: nodeName(part.node), volts: part.volts, ohms: part.ohms };
    case 'capacitor':
      return {
        kind: 'resistor',
        id,
        a: nodeName(part.between[0]),
        b: nodeName(part.between[1]),
        ohms: CAPACITOR_LEAK_OHMS,
      };
    case 'led':
    case 'diode':
      return {
        kind: 'diode',
        id,
        anode: nodeName(part.anode),
        cathode: nodeName(part.cathode),
        vf: part.vf,
        rs: part.rs,
      };
  }
}
