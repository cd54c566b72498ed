/**
 * Placed parts and projects of 5.7.11 (the "Projects + parts" API of modjumperless.c, as carried by
 * SophisticaSean/JumperlOS@0a5dc31; HANDOFF_2026-09-07_DOCS_SWEEP.md@ad0f1d9). What the virtual
 * board keeps of it:
 *  - `place_part(name, row, pins_json[, footprint, type, value, part_id])` records a part whose pins
 *    are `{"A": {"pin": 1, "connect": <node or name>}, ...}`; pin k sits on row + k - 1 (an inline
 *    footprint; the firmware's footprint geometry is not modelled). 0, or -1 for a malformed call;
 *  - `list_parts()`: one dict per part, `pins: {PIN: {node, connect, class}}`, `measured` 0.0;
 *  - `remove_part(name)`: 0, or -1 when there is none;
 *  - `part_identify(row1, row2[, row3])`: a text record; the virtual board reads its parts file: a
 *    resistor between two rows comes back as `status=0 type=resistor ... R=<ohms>`, rows with a
 *    bridge on them are refused (`status=-3`, the source's "Refuses rows with user wiring");
 *  - `load_project(name)` opens /projects/<name>/<name>_run.yaml, creating it from the project's
 *    wiring.yaml the first time; a path is loaded as it is. True on success;
 *  - the menu's `x` clears the placed parts (HANDOFF_2026-09-07: partsClearAllRecords).
 * Placing a part does not make bridges here (the firmware's applyPartPlacement is not modelled).
 */
import { resolveNode } from '../../board/nodes.js';
import { parseSlotYaml } from '../../board/slots.js';
import { asInt } from './args.js';
import type { Hardware } from './hardware.js';
import type { FirmwareFunctions, Json, VirtualFs } from './types.js';

export interface PlacedPart {
  name: string;
  type: string;
  value: string;
  row: number;
  footprint: string;
  part_id: string;
  pins: Record<string, { node: number; connect: number; class: string }>;
}

/** A resistor of the parts file between two rows, for part_identify. */
export interface KnownPart {
  kind: string;
  a: number;
  b: number;
  ohms?: number;
}

const text = (x: Json | undefined): string => (typeof x === 'string' ? x : '');

function parsePins(row: number, json: string): PlacedPart['pins'] | undefined {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const pins: PlacedPart['pins'] = {};
  for (const [name, spec] of Object.entries(data as Record<string, unknown>)) {
    if (!spec || typeof spec !== 'object') return undefined;
    const { pin, connect } = spec as { pin?: unknown; connect?: unknown };
    if (typeof pin !== 'number' || !Number.isInteger(pin) || pin < 1) return undefined;
    const target =
      typeof connect === 'number' || typeof connect === 'string' ? resolveNode(connect) : undefined;
    pins[name] = { node: row + pin - 1, connect: target ?? 0, class: '' };
  }
  return pins;
}

export function partsDbGroup(
  hw: Hardware,
  fs: () => VirtualFs,
  known: readonly KnownPart[],
): FirmwareFunctions {
  const loadYaml = (path: string): boolean => {
    const files = fs();
    if (!files.exists(path) || files.isDir(path)) return false;
    const parsed = parseSlotYaml(new TextDecoder().decode(files.readFile(path)));
    return parsed.ok;
  };
  return {
    place_part: (name, row, pinsJson, footprint, type, value, partId) => {
      const r = asInt(row);
      const pins = parsePins(r, text(pinsJson));
      if (!pins || text(name) === '' || r < 1 || r > 60) return -1;
      hw.parts = hw.parts.filter((p) => p.name !== name);
      hw.parts.push({
        name: text(name),
        row: r,
        pins,
        footprint: text(footprint),
        type: text(type),
        value: text(value),
        part_id: text(partId),
      });
      return 0;
    },
    remove_part: (name) => {
      const before = hw.parts.length;
      hw.parts = hw.parts.filter((p) => p.name !== name);
      return hw.parts.length < before ? 0 : -1;
    },
    list_parts: () =>
      hw.parts.map((p) => ({
        name: p.name,
        type: p.type,
        value: p.value,
        row: p.row,
        footprint: p.footprint,
        placed: true,
        placement: 'custom',
        measured: 0,
        pins: p.pins,
      })),
    part_identify: (r1, r2, r3) => {
      const rows = [asInt(r1), asInt(r2), asInt(r3)].filter((r) => r !== -1);
      const wired = rows.some((r) => hw.conns.bridges().some((b) => b.node1 === r || b.node2 === r));
      if (wired) return `status=-3 rows=${rows.join(',')}`;
      const part = known.find((k) => rows.includes(k.a) && rows.includes(k.b) && k.a !== k.b);
      if (!part) return `status=-1 type=none rows=${rows.join(',')}`;
      const value = part.ohms === undefined ? '' : ` R=${part.ohms}`;
      return `status=0 type=${part.kind} rows=${part.a},${part.b}${value}`;
    },
    load_project: (arg) => {
      const name = text(arg);
      if (name.includes('/')) return loadYaml(name);
      const files = fs();
      const run = `/projects/${name}/${name}_run.yaml`;
      const wiring = `/projects/${name}/wiring.yaml`;
      if (!files.exists(run)) {
        if (!files.exists(wiring)) return false;
        files.writeFile(run, files.readFile(wiring));
      }
      return loadYaml(run);
    },
    guide_progress: () => -1,
    /** The menu's `x` on 5.7.11: the parts go with the bridges. */
    _clear_parts: () => {
      if (hw.firmware.behaviour.clearRemovesParts) hw.parts = [];
      return null;
    },
  };
}
