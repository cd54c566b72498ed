/**
 * wokwi_import: a Wokwi `diagram.json` as Jumperless nets, applied as state_set applies its nets
 * (stateSet.ts: checked first, compared after, undoable). Wokwi wires join part pins; breadboard holes
 * (`bb1:12t.a`: row 12, top half, column a) and rails (`bb1:tp.3`, `bb1:bn.7`) and Arduino pins
 * (`nano:13`, `uno:A0`, `nano:GND.1`) map to nodes; pins of other parts only join wires together.
 * Rows 1-30 of the top half are rows 1-30, of the bottom half rows 31-60 (spec §6.2).
 * The translation happens here rather than with the firmware's `set_state(..., from_wokwi=True)`,
 * so the safety checks see the nets before anything is routed; the node names it gives (rows, GND,
 * TOP_R, BOT_R, D0-D13, A0-A7) all read back as the same nodes in set_state (parseNodeName).
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { mergeGroups, RAM_REQUIRES } from './boardState.js';
import { APPLY_REQUIRES, appliedOutput, applyState, summary } from './stateSet.js';
import { defineDeviceTool } from './tool.js';

export const WOKWI_MAX_CHARS = 500_000;
const MAX_CONNECTIONS = 2000;
const ROWS_PER_HALF = 30;

const diagramSchema = z.object({
  parts: z
    .array(z.object({ type: z.string().max(100), id: z.string().max(100) }).loose())
    .max(1000)
    .default([]),
  connections: z.array(z.array(z.unknown()).min(2)).max(MAX_CONNECTIONS),
});

export interface WokwiTranslation {
  /** Groups of node short names, each to become one net. */
  nets: string[][];
  /** Wire ends that name no Jumperless node, with why (pins of other parts are normal here). */
  skipped: { pin: string; reason: string }[];
  /** Connections read. */
  wires: number;
}

const BREADBOARDS = /^wokwi-breadboard/;
const ARDUINOS = /^wokwi-arduino-(nano|uno|mega)$/;

/** The node a pin stands for, or why it has none. */
export function wokwiPinNode(
  pin: string,
  partTypes: ReadonlyMap<string, string>,
): { node?: string; reason?: string } {
  const colon = pin.indexOf(':');
  if (colon <= 0) return { reason: 'not a "part:pin" name' };
  const part = pin.slice(0, colon);
  const name = pin.slice(colon + 1);
  const type = partTypes.get(part);
  if (type === undefined) return { reason: `no part "${part}" in the diagram` };
  if (BREADBOARDS.test(type)) {
    const hole = /^(\d{1,3})([tb])\.[a-j]$/.exec(name);
    if (hole) {
      const row = Number(hole[1]);
      if (row < 1 || row > ROWS_PER_HALF)
        return { reason: `breadboard row ${row} is past the ${ROWS_PER_HALF} rows per half` };
      return { node: String(hole[2] === 't' ? row : row + ROWS_PER_HALF) };
    }
    const rail = /^([tb])([pn])\.\d{1,3}$/.exec(name);
    if (rail) return { node: rail[2] === 'n' ? 'GND' : rail[1] === 't' ? 'TOP_R' : 'BOT_R' };
    return { reason: `unknown breadboard hole "${name}"` };
  }
  if (ARDUINOS.test(type)) {
    const digital = /^D?(\d{1,2})$/.exec(name);
    if (digital && Number(digital[1]) <= 13) return { node: `D${Number(digital[1])}` };
    const analog = /^A([0-7])$/.exec(name);
    if (analog) return { node: `A${analog[1]}` };
    if (/^GND(\.\d)?$/.test(name)) return { node: 'GND' };
    return { reason: `Arduino pin ${name} is not routable on the Jumperless (set supplies with dac_set)` };
  }
  return { reason: 'a pin of a part, not a board node' };
}

/** Parses and translates a diagram; throws `bad_wokwi` with the reason when it is not one. */
export function translateWokwi(text: string): WokwiTranslation {
  if (text.length > WOKWI_MAX_CHARS) {
    throw new ToolError('bad_wokwi', `The diagram is longer than ${WOKWI_MAX_CHARS} characters.`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ToolError('bad_wokwi', `The diagram is not JSON: ${(error as Error).message}`);
  }
  const parsed = diagramSchema.safeParse(doc);
  if (!parsed.success) {
    throw new ToolError('bad_wokwi', `Not a Wokwi diagram.json: ${z.prettifyError(parsed.error)}`);
  }
  const partTypes = new Map(parsed.data.parts.map((p) => [p.id, p.type]));
  const groups: string[][] = [];
  const skipped = new Map<string, string>();
  const pinNodes = new Map<string, string>();
  parsed.data.connections.forEach((wire, i) => {
    const [a, b] = wire;
    if (typeof a !== 'string' || typeof b !== 'string' || a.length > 200 || b.length > 200) {
      throw new ToolError('bad_wokwi', `connections[${i}] must start with two "part:pin" strings.`);
    }
    groups.push([`pin:${a}`, `pin:${b}`]);
    for (const pin of [a, b]) {
      const { node, reason } = wokwiPinNode(pin, partTypes);
      if (node) pinNodes.set(pin, node);
      else skipped.set(pin, reason ?? 'unknown');
    }
  });
  // Each pin joins its node, so wires through part pins and holes of one row end up in one group.
  for (const [pin, node] of pinNodes) groups.push([`pin:${pin}`, `node:${node}`]);
  const nets = mergeGroups(groups, (n) => n)
    .map((group) => group.filter((n) => n.startsWith('node:')).map((n) => n.slice('node:'.length)))
    .filter((nodes) => nodes.length > 1);
  return {
    nets,
    skipped: [...skipped].map(([pin, reason]) => ({ pin, reason })),
    wires: parsed.data.connections.length,
  };
}

export const wokwiImport = defineDeviceTool({
  name: 'wokwi_import',
  title: 'Import a Wokwi diagram',
  description: 'Route the wires of a Wokwi diagram.json (not its parts or supplies). Refused on shorts.',
  group: 'state',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['set_state', 'connect', ...RAM_REQUIRES, ...APPLY_REQUIRES],
  input: z.object({
    diagram: z.string().max(WOKWI_MAX_CHARS),
    clear_first: z.boolean().default(true),
  }),
  output: appliedOutput.extend({
    wires: z.number(),
    skipped: z.array(z.object({ pin: z.string(), reason: z.string() })),
  }),
  handle: async ({ diagram, clear_first }, { board }) => {
    const translation = translateWokwi(diagram);
    if (translation.nets.length === 0) {
      throw new ToolError(
        'nothing_to_route',
        `The diagram has no wire between two board nodes (${translation.wires} wires read).`,
        {
          details: { skipped: translation.skipped.slice(0, 50) },
        },
      );
    }
    const applied = await applyState(
      board,
      { nets: translation.nets },
      clear_first,
      'wokwi_import',
      `${translation.nets.length} nets from ${translation.wires} wires`,
    );
    return { ...summary(applied), wires: translation.wires, skipped: translation.skipped };
  },
});
