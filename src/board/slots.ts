/**
 * Slots 0-7 and the slot YAML of spec §7 (`/slots/slotN.yaml`), as the firmware writes it:
 *
 *   version: 2
 *   sourceOfTruth: bridges
 *
 *   bridges:
 *     - {n1: 38, n2: 44, dup: 2}
 *     - {n1: BUFFER_IN, n2: DAC0, dup: 1}
 *
 *   nets:
 *     - {num: 6, nodes: [38, 44], color: pink}
 *
 *   power:
 *     topRail: 3.30
 *     ...
 *
 * The parser reads exactly this subset of YAML (flow maps and lists, `#` comments) and refuses
 * anything else with a line number. The firmware's `config:` and `overlays:` sections are skipped,
 * since the board model does not hold them.
 */
import { type Connections, defaultNetName } from './connections.js';
import {
  DAC_SAFE,
  DEFAULT_POWER,
  DEFAULT_STACK_PATHS,
  inRange,
  MAX_BRIDGES,
  MAX_DUPLICATE,
  SLOTS,
} from './limits.js';
import { isBridgeable, parseShortName, shortName, yamlName } from './nodes.js';

export const isSlot = (n: unknown): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= SLOTS.min && n <= SLOTS.max;

export const slotPath = (slot: number): string => `/slots/slot${slot}.yaml`;

export interface SlotBridge {
  readonly n1: number;
  readonly n2: number;
  readonly dup: number;
  readonly color?: string;
}

export interface SlotNet {
  readonly num: number;
  readonly nodes: readonly number[];
  readonly name?: string;
  /** A colour name or `0xRRGGBB` (`parseColor` reads both). */
  readonly color?: string;
}

export interface SlotPower {
  readonly topRail: number;
  readonly bottomRail: number;
  readonly dac0: number;
  readonly dac1: number;
}

export interface SlotData {
  readonly bridges: readonly SlotBridge[];
  readonly nets: readonly SlotNet[];
  readonly power: SlotPower;
}

export type ParseSlotResult = { ok: true; slot: SlotData } | { ok: false; error: string };

// YAML reads `#` as a comment, so hex colours are written 0xRRGGBB.
const yamlColor = (c: string): string => {
  const m = /^#([0-9A-Fa-f]{6})$/.exec(c);
  return m ? `0x${m[1]?.toUpperCase()}` : c;
};

/** Snapshot what a slot file holds: the bridges, the nets' looks, and the power setpoints. */
export function slotFromConnections(conns: Connections, power: SlotPower): SlotData {
  return {
    bridges: conns.bridges().map((b) => ({ n1: b.node1, n2: b.node2, dup: b.duplicates })),
    nets: conns
      .nets()
      .filter((n) => n.nodes.length > 1)
      .map((n) => ({
        num: n.index,
        nodes: n.nodes,
        ...(n.name !== defaultNetName(n.index) ? { name: n.name } : {}),
        color: yamlColor(n.colorName),
      })),
    power,
  };
}

const safeWord = (s: string): boolean => /^[A-Za-z0-9_.+-]+$/.test(s);
const word = (s: string): string => (safeWord(s) ? s : JSON.stringify(s));
const f2 = (x: number): string => x.toFixed(2);

export function formatSlotYaml(slot: SlotData): string {
  const lines = ['version: 2', 'sourceOfTruth: bridges', '', 'bridges:'];
  for (const b of slot.bridges) {
    const color = b.color ? `, color: ${word(yamlColor(b.color))}` : '';
    lines.push(`  - {n1: ${yamlName(b.n1)}, n2: ${yamlName(b.n2)}, dup: ${b.dup}${color}}`);
  }
  lines.push('', 'nets:');
  for (const n of slot.nets) {
    let s = `  - {num: ${n.num}, nodes: [${n.nodes.map(shortName).join(', ')}]`;
    if (n.name !== undefined) s += `, name: ${JSON.stringify(n.name)}`;
    if (n.color !== undefined) s += `, color: ${word(yamlColor(n.color))}`;
    lines.push(`${s}}`);
  }
  const p = slot.power;
  lines.push('', 'power:');
  lines.push(`  topRail: ${f2(p.topRail)}`, `  bottomRail: ${f2(p.bottomRail)}`);
  lines.push(`  dac0: ${f2(p.dac0)}`, `  dac1: ${f2(p.dac1)}`);
  return `${lines.join('\n')}\n`;
}

// ---- parser ----

export const MAX_SLOT_CHARS = 200_000;

class SlotError extends Error {}
const fail = (line: number, msg: string): never => {
  throw new SlotError(`line ${line}: ${msg}`);
};

type Value = string | { quoted: string } | Value[] | Map<string, Value>;

/** Drop a `#` comment that is outside double quotes and starts a word. */
function stripComment(line: string): string {
  let inQuote = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '\\' && inQuote) i++;
    else if (ch === '"') inQuote = !inQuote;
    else if (ch === '#' && !inQuote && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return line.slice(0, i);
  }
  return line;
}

/** A flow value: `{k: v, ...}`, `[a, b]`, `"text"` or a bare scalar. */
function parseFlow(text: string, lineNo: number): Value {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  };
  const value = (): Value => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const map = new Map<string, Value>();
      ws();
      if (text[i] === '}') {
        i++;
        return map;
      }
      for (;;) {
        ws();
        const key = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))?.[0] ?? fail(lineNo, 'expected a key');
        i += key.length;
        ws();
        if (text[i] !== ':') fail(lineNo, `expected ':' after "${key}"`);
        i++;
        if (map.has(key)) fail(lineNo, `duplicate key "${key}"`);
        map.set(key, value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return map;
        } else fail(lineNo, "expected ',' or '}'");
      }
    }
    if (ch === '[') {
      i++;
      const list: Value[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return list;
      }
      for (;;) {
        list.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return list;
        } else fail(lineNo, "expected ',' or ']'");
      }
    }
    if (ch === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i)) ?? fail(lineNo, 'unterminated string');
      i += m[0].length;
      try {
        return { quoted: JSON.parse(m[0]) as string };
      } catch {
        return fail(lineNo, `bad string ${m[0]}`);
      }
    }
    const m = /^[^\s{}[\],:"]+/.exec(text.slice(i)) ?? fail(lineNo, `unexpected "${text.slice(i, i + 10)}"`);
    i += m[0].length;
    return m[0];
  };
  const v = value();
  ws();
  if (i !== text.length) fail(lineNo, `unexpected "${text.slice(i, i + 10)}"`);
  return v;
}

const scalar = (v: Value | undefined, line: number, what: string): string =>
  typeof v === 'string'
    ? v
    : typeof v === 'object' && 'quoted' in v
      ? v.quoted
      : fail(line, `${what} must be a value`);

const number = (v: Value | undefined, line: number, what: string): number => {
  const s = scalar(v, line, what);
  return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(s) ? Number(s) : fail(line, `${what} must be a number, got "${s}"`);
};

const integer = (v: Value | undefined, line: number, what: string, min: number, max: number): number => {
  const n = number(v, line, what);
  return Number.isInteger(n) && n >= min && n <= max
    ? n
    : fail(line, `${what} must be an integer ${min}..${max}`);
};

const node = (v: Value | undefined, line: number, what: string): number => {
  const s = scalar(v, line, what);
  return parseShortName(s) ?? fail(line, `${what}: unknown node "${s}"`);
};

function checkKeys(map: Map<string, Value>, allowed: readonly string[], line: number): void {
  for (const k of map.keys()) if (!allowed.includes(k)) fail(line, `unknown key "${k}"`);
}

function asMap(v: Value, line: number, what: string): Map<string, Value> {
  return v instanceof Map ? v : fail(line, `${what} must be a {key: value} map`);
}

function parseBridge(v: Value, line: number): SlotBridge {
  const m = asMap(v, line, 'a bridge');
  checkKeys(m, ['n1', 'n2', 'dup', 'color'], line);
  const n1 = node(m.get('n1'), line, 'n1');
  const n2 = node(m.get('n2'), line, 'n2');
  if (!isBridgeable(n1) || !isBridgeable(n2)) fail(line, 'bridge node is not routable');
  const dup = m.has('dup') ? integer(m.get('dup'), line, 'dup', 0, MAX_DUPLICATE) : DEFAULT_STACK_PATHS;
  const color = m.has('color') ? scalar(m.get('color'), line, 'color') : undefined;
  return color === undefined ? { n1, n2, dup } : { n1, n2, dup, color };
}

function parseNet(v: Value, line: number): SlotNet {
  const m = asMap(v, line, 'a net');
  // `anim` and `user` are firmware display flags we accept and drop.
  checkKeys(m, ['num', 'nodes', 'name', 'color', 'anim', 'user'], line);
  const num = integer(m.get('num'), line, 'num', 1, 59);
  const list = m.get('nodes');
  if (!Array.isArray(list)) return fail(line, 'nodes must be a [list]');
  const net: { -readonly [K in keyof SlotNet]: SlotNet[K] } = {
    num,
    nodes: list.map((x, i) => node(x, line, `nodes[${i}]`)),
  };
  if (m.has('name')) net.name = scalar(m.get('name'), line, 'name');
  if (m.has('color')) net.color = scalar(m.get('color'), line, 'color');
  return net;
}

const POWER_KEYS = ['topRail', 'bottomRail', 'dac0', 'dac1'] as const;

export function parseSlotYaml(text: string): ParseSlotResult {
  if (typeof text !== 'string') return { ok: false, error: 'slot YAML must be text' };
  if (text.length > MAX_SLOT_CHARS)
    return { ok: false, error: `slot YAML is larger than ${MAX_SLOT_CHARS} characters` };
  try {
    const lines = text.split(/\r?\n/).map(stripComment);
    let version: number | undefined;
    const bridges: SlotBridge[] = [];
    const nets: SlotNet[] = [];
    const power: Record<string, number> = { ...DEFAULT_POWER };
    let section: 'bridges' | 'nets' | 'power' | 'skip' | undefined;
    for (const [index, raw] of lines.entries()) {
      const lineNo = index + 1;
      if (raw.trim() === '') continue;
      if (raw.includes('\t')) fail(lineNo, 'tabs are not allowed');
      if (!raw.startsWith(' ')) {
        const m =
          /^([A-Za-z_][A-Za-z0-9_]*):(?:\s+(.*))?$/.exec(raw.trimEnd()) ??
          fail(lineNo, 'expected "key: value"');
        const key = m[1] as string;
        const rest = m[2]?.trim() ?? '';
        section = undefined;
        if (key === 'version') {
          version = integer(rest, lineNo, 'version', 0, 1000);
          if (version !== 2) fail(lineNo, `unsupported version ${version} (only 2)`);
        } else if (key === 'sourceOfTruth') {
          if (rest !== 'bridges') fail(lineNo, `sourceOfTruth must be "bridges", got "${rest}"`);
        } else if (key === 'bridges' || key === 'nets') {
          if (rest !== '' && rest !== '[]') fail(lineNo, `${key} must be a block list`);
          section = key;
        } else if (key === 'power') {
          if (rest === '') section = 'power';
          else {
            const map = asMap(parseFlow(rest, lineNo), lineNo, 'power');
            checkKeys(map, POWER_KEYS, lineNo);
            for (const [k, v] of map) power[k] = number(v, lineNo, k);
          }
        } else if (key === 'config' || key === 'overlays') {
          section = 'skip';
        } else fail(lineNo, `unknown section "${key}"`);
        continue;
      }
      if (section === 'skip') continue;
      if (section === 'bridges' || section === 'nets') {
        const m = /^ {2}- (.*)$/.exec(raw.trimEnd()) ?? fail(lineNo, `expected "  - {...}" in ${section}`);
        const v = parseFlow(m[1] as string, lineNo);
        if (section === 'bridges') {
          if (bridges.length >= MAX_BRIDGES) fail(lineNo, `more than ${MAX_BRIDGES} bridges`);
          bridges.push(parseBridge(v, lineNo));
        } else nets.push(parseNet(v, lineNo));
      } else if (section === 'power') {
        const m =
          /^ {2}([A-Za-z0-9_]+):\s+(\S+)$/.exec(raw.trimEnd()) ?? fail(lineNo, 'expected "  key: value"');
        const key = m[1] as string;
        if (!(POWER_KEYS as readonly string[]).includes(key)) fail(lineNo, `unknown power key "${key}"`);
        power[key] = number(m[2], lineNo, key);
      } else fail(lineNo, 'indented line outside a section');
    }
    if (version === undefined) return { ok: false, error: 'missing "version: 2"' };
    for (const k of POWER_KEYS) {
      if (!inRange(DAC_SAFE, power[k] ?? 0)) return { ok: false, error: `power.${k} is outside -8..8 V` };
    }
    const p = power as unknown as SlotPower;
    return {
      ok: true,
      slot: {
        bridges,
        nets,
        power: { topRail: p.topRail, bottomRail: p.bottomRail, dac0: p.dac0, dac1: p.dac1 },
      },
    };
  } catch (e) {
    if (e instanceof SlotError) return { ok: false, error: e.message };
    throw e;
  }
}
