/**
 * Applying a board state document (spec §7), for the firmware's real `set_state`: a substring
 * scanner (JsonState.cpp:321-735) that ignores net names, reads only quoted node names and stops
 * numbers at an exponent. state_set (and wokwi_import) send documents it reads as meant, checked
 * before (shorts, driven outputs, voltages) and compared after, then name the nets themselves.
 */
import { z } from 'zod';
import { DAC_SAFE, MAX_BRIDGES, MAX_NODES_PER_NET, OVERLAY_COLS, OVERLAY_ROWS } from '../board/limits.js';
import { BUFFER_IN, DAC0, isBridgeable, parseShortName, shortName } from '../board/nodes.js';
import { parseState } from '../board/state.js';
import type { BoardClient, PythonPart } from './boardClient.js';
import { pairKey, plainNumber, putOverlays } from './boardImage.js';
import {
  canonicalNode,
  driveHazards,
  mergeGroups,
  netOfNode,
  parseRam,
  RAM_REQUIRES,
  readRam,
  readState,
  type StateDocument,
  setStateNodeText,
  stateDocumentSchema,
  supplyShorts,
} from './boardState.js';
import { py } from './py.js';
import { checkVolts, type SafetyPolicy } from './safety.js';
import { type Snapshot, takeSnapshot } from './stateUndo.js';
import { defineDeviceTool, ToolError } from './tool.js';

/**
 * Board-side helper, inside `_jlt`. The state is read back in a job of its own, and overlays
 * are sent one job each (putOverlays): with a full board's 33 KB state text, the 22 KB document of
 * eight full overlays and its copies would not fit in one job's heap.
 */
export const stateSetPython: PythonPart = {
  name: 'stateSet',
  source: `
def state_put(j, c, k):
    r = set_state(j, c)
    if k:
        connect(139, 106, 0)
    return r
`,
};

/**
 * Names: printable ASCII without the characters that break the firmware's set_state scanner or its
 * get_state JSON (`"`, `\`, brackets, braces), and without edge spaces (the state trims names).
 */
const NAME = /^[!#-Z^-z|~](?:[ !#-Z^-z|~]*[!#-Z^-z|~])?$/;
const nameField = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    // A refinement, not a schema pattern: the charset protects the firmware's parser, not the
    // hardware, and the error says what to change; a pattern would cost 70 bytes per use in the list.
    .refine(
      (name) => NAME.test(name),
      'printable ASCII without quotes, backslashes, brackets or braces, no edge spaces',
    );
const volts = z.number().min(DAC_SAFE.min).max(DAC_SAFE.max);

/** Bridges a list of nets asks for: each net is a chain, n nodes taking n-1 bridges. */
const bridgesOf = (nets: ReadonlyArray<{ nodes: readonly unknown[] }>): number =>
  nets.reduce((sum, net) => sum + Math.max(0, net.nodes.length - 1), 0);
const TOO_MANY_BRIDGES = `at most ${MAX_BRIDGES} bridges in all, the most the board holds (a net of n nodes takes n-1)`;

const stateInput = z.object({
  power: z
    .object({ top_rail: volts, bottom_rail: volts, dac0: volts, dac1: volts })
    .partial()
    .optional()
    .describe('Setpoints in volts'),
  nets: z
    .array(
      z.object({
        nodes: z
          .array(z.string().min(1).max(32))
          .min(1)
          .max(MAX_NODES_PER_NET)
          .describe('Names: "1"-"60", GND, TOP_R, BOT_R, DAC_0, GP_1, D5, A0...'),
        name: nameField(31).optional(),
      }),
    )
    .max(60)
    .refine((nets) => bridgesOf(nets) <= MAX_BRIDGES, TOO_MANY_BRIDGES)
    .optional()
    .describe(`Each net is made as a chain of its nodes in the order given; ${TOO_MANY_BRIDGES}`),
  gpio: z
    .array(
      z.object({
        pin: z.number().int().min(1).max(8),
        direction: z.enum(['INPUT', 'OUTPUT']).optional(),
        pull: z.enum(['up', 'down', 'none', 'keeper']).optional(),
      }),
    )
    .max(8)
    .optional(),
  overlays: z
    .array(
      z.object({
        name: nameField(31),
        row: z.number().int().min(1).max(OVERLAY_ROWS),
        col: z.number().int().min(1).max(OVERLAY_COLS),
        width: z.number().int().min(1).max(OVERLAY_COLS),
        height: z.number().int().min(1).max(OVERLAY_ROWS),
        colors: z.array(z.string().regex(/^[0-9a-fA-F]{6}$/, 'RRGGBB hex')).max(OVERLAY_ROWS * OVERLAY_COLS),
      }),
    )
    .max(8)
    .optional()
    .describe('Replace every overlay'),
});
type StateInput = z.infer<typeof stateInput>;

// ---- applying a state, checked before and verified after ----

/** Node ids of the requested nets; refuses names the board does not know or cannot route. */
function requestedNodes(doc: StateInput): number[][] {
  return (doc.nets ?? []).map((net) =>
    net.nodes.map((n) => {
      const id = parseShortName(n);
      if (id === undefined) throw new ToolError('bad_state', `Unknown node ${JSON.stringify(n)} in nets.`);
      if (!isBridgeable(id) || setStateNodeText(id) === undefined) {
        throw new ToolError('bad_state', `Node ${JSON.stringify(n)} cannot be routed.`);
      }
      return id;
    }),
  );
}

/** What the request would route, refused when it joins supplies or puts an output on a driven net. */
function checkState(
  doc: StateInput,
  nodes: readonly (readonly number[])[],
  current: StateDocument,
  clearFirst: boolean,
  safety: SafetyPolicy,
): void {
  for (const [key, v] of Object.entries(doc.power ?? {})) checkVolts(safety, v, key);
  const requested = nodes.map((net) => net.map((id) => canonicalNode(shortName(id)) ?? shortName(id)));
  const kept = doc.nets && clearFirst ? [] : current.nets.map((net) => net.nodes);
  const groups = mergeGroups([...kept, ...requested]);
  const shorts = supplyShorts(groups);
  if (shorts.length > 0) {
    throw new ToolError('unsafe_short', `Refusing the state: ${shorts.join('; ')}.`, { details: { shorts } });
  }
  // GPIO outputs after the change, on the nets after the change.
  const gpio = current.gpio.map((g) => {
    const change = doc.gpio?.find((c) => c.pin === g.pin);
    return change?.direction ? { ...g, direction: change.direction } : g;
  });
  const predicted: StateDocument = {
    ...current,
    nets: groups.map((members, i) => ({
      index: 100 + i,
      name: `net ${i + 1}`,
      nodes: members,
      special: 'none',
    })),
    gpio,
  };
  for (const g of gpio) {
    if (g.direction !== 'OUTPUT') continue;
    const pin = g.pin === 'TX' ? 9 : g.pin === 'RX' ? 10 : Number(g.pin);
    const hazards = driveHazards(predicted, pin);
    if (hazards.length > 0) {
      throw new ToolError(
        'unsafe_drive',
        `Refusing the state: GPIO ${g.pin} is an output and ${hazards.join('; ')}.`,
        {
          details: { pin: g.pin, hazards },
        },
      );
    }
  }
}

/**
 * The set_state document, written so the firmware's scanner reads it as meant: quoted node names it
 * parses back to the same nodes, numbers without exponents, no net names (it ignores them). The
 * overlays section only `withOverlays` (the shape check): they are sent with overlay_set.
 */
function stateDocument(
  doc: StateInput,
  nodes: readonly (readonly number[])[],
  keepProbePower: boolean,
  withOverlays: boolean,
): string {
  const sections: string[] = [];
  if (doc.power) {
    const p = Object.entries(doc.power).map(([k, v]) => `"${k}":${plainNumber(v)}`);
    sections.push(`"power":{${p.join(',')}}`);
  }
  if (doc.nets) {
    const nets = nodes.map((net) => `{"nodes":[${net.map((id) => `"${setStateNodeText(id)}"`).join(',')}]}`);
    // clear_first would drop the probe-power bridge BUFFER_IN-DAC0: it is sent first and gets its
    // duplicates 0 back after (state_put).
    if (keepProbePower) nets.unshift('{"nodes":["BUFFER_IN","DAC0"]}');
    sections.push(`"nets":[${nets.join(',')}]`);
  }
  if (doc.gpio) {
    const pins = doc.gpio.map((g) => {
      const fields = [`"pin":${g.pin}`];
      if (g.direction) fields.push(`"direction":"${g.direction}"`);
      if (g.pull) fields.push(`"pull":"${g.pull}"`);
      return `{${fields.join(',')}}`;
    });
    sections.push(`"gpio":[${pins.join(',')}]`);
  }
  if (doc.overlays && withOverlays) {
    const marks = doc.overlays.map(
      (o) =>
        `{"name":"${o.name}","row":${o.row},"col":${o.col},"width":${o.width},"height":${o.height},"colors":[${o.colors.map((c) => `"${c.toUpperCase()}"`).join(',')}]}`,
    );
    sections.push(`"overlays":[${marks.join(',')}]`);
  }
  return `{${sections.join(',')}}`;
}

/** What differs between the request and the board after it. */
function compareState(doc: StateInput, after: StateDocument): string[] {
  const differences: string[] = [];
  for (const [key, v] of Object.entries(doc.power ?? {})) {
    const got = after.power[key as keyof StateDocument['power']];
    if (Math.abs(got - v) > 0.01) differences.push(`power.${key} is ${got} V, not ${v} V`);
  }
  for (const net of doc.nets ?? []) {
    const [first, ...rest] = net.nodes;
    if (first === undefined) continue;
    const home = netOfNode(after, first);
    for (const node of rest) {
      if (!home || netOfNode(after, node)?.index !== home.index)
        differences.push(`${first} and ${node} are not connected`);
    }
    if (net.name !== undefined && home && home.name !== net.name) {
      differences.push(`the net of ${first} is named "${home.name}", not "${net.name}"`);
    }
  }
  for (const g of doc.gpio ?? []) {
    const pin = after.gpio.find((p) => p.pin === g.pin);
    if (g.direction && pin?.direction !== g.direction)
      differences.push(`GPIO ${g.pin} is ${pin?.direction ?? 'missing'}, not ${g.direction}`);
    if (g.pull && pin?.pull !== g.pull)
      differences.push(`GPIO ${g.pin} pull is ${pin?.pull ?? 'missing'}, not ${g.pull}`);
  }
  for (const o of doc.overlays ?? []) {
    if (!after.overlays.some((a) => a.name === o.name)) differences.push(`overlay "${o.name}" is missing`);
  }
  return differences;
}

interface Applied {
  state: StateDocument;
  differences: string[];
  snapshot: Snapshot;
}

/**
 * Snapshot, check, `set_state` (power, nets, gpio), the overlays one job each (what set_state's
 * overlays section does: remove all, set each), re-read, names, compare.
 */
export async function applyState(
  board: BoardClient,
  doc: StateInput,
  clearFirst: boolean,
  safety: SafetyPolicy,
  label: string,
): Promise<Applied> {
  if (!doc.power && !doc.nets && !doc.gpio && !doc.overlays) {
    throw new ToolError('bad_state', 'The state is empty: give power, nets, gpio or overlays.');
  }
  const nodes = requestedNodes(doc);
  const bridges = bridgesOf(doc.nets ?? []);
  if (bridges > MAX_BRIDGES) {
    throw new ToolError(
      'too_many_bridges',
      `The nets ask for ${bridges} bridges (a net of n nodes takes n-1); the board holds at most ${MAX_BRIDGES}. Nothing was changed.`,
    );
  }
  const ram = await readRam(board);
  const probeInRequest = nodes.some((net) => net.includes(BUFFER_IN) || net.includes(DAC0));
  const hasProbePower = ram.bridges.some(([a, b]) => pairKey(a, b) === pairKey(BUFFER_IN, DAC0));
  const keepProbePower = clearFirst && doc.nets !== undefined && hasProbePower && !probeInRequest;
  // Our own shape check of what we send (the board prints its reasons on the main port only).
  const pre = parseState(stateDocument(doc, nodes, keepProbePower, true));
  if (!pre.ok) throw new ToolError('bad_state', `The state is not valid: ${pre.error}.`);
  checkState(doc, nodes, ram.state, clearFirst, safety);
  const snapshot = await takeSnapshot(board, label, ram);
  if (doc.power || doc.nets || doc.gpio) {
    const text = stateDocument(doc, nodes, keepProbePower, false);
    const code = z
      .number()
      .parse(await board.call(py`_jlt.state_put(${text}, ${clearFirst}, ${keepProbePower})`));
    if (code !== 0) {
      throw new ToolError(
        'refused',
        `The firmware refused the state (set_state returned ${code}; it prints the reason on its main port). Snapshot ${snapshot.id} holds the state before.`,
        { details: { snapshot_id: snapshot.id } },
      );
    }
  }
  if (doc.overlays) {
    await board.call('overlay_clear_all()');
    await putOverlays(
      board,
      doc.overlays.map((o) => ({ ...o, colors: o.colors.map((c) => Number.parseInt(c, 16)) })),
    );
  }
  let after = (await readState(board)).state;
  // set_state ignores net names (JsonState.cpp:473-567): name each net by the net its first node is on.
  const names = (doc.nets ?? []).flatMap((net) => {
    const index = net.name === undefined ? undefined : netOfNode(after, net.nodes[0] as string)?.index;
    return index === undefined ? [] : [[index, net.name as string]];
  });
  if (names.length > 0) after = parseRam(await board.call(py`_jlt.net_looks(${names}, ${[]})`)).state;
  return { state: after, differences: compareState(doc, after), snapshot };
}

export const appliedOutput = z.object({
  applied: z.boolean(),
  differences: z.array(z.string()),
  snapshot_id: z.number(),
  nets: z.array(z.object({ name: z.string(), nodes: z.array(z.string()) })),
  power: stateDocumentSchema.shape.power,
});

export const summary = (a: Applied) => ({
  applied: a.differences.length === 0,
  differences: a.differences,
  snapshot_id: a.snapshot.id,
  nets: a.state.nets
    .filter((n) => n.index > 5 || n.nodes.length > 1)
    .map((n) => ({ name: n.name, nodes: n.nodes })),
  power: a.state.power,
});

export const stateSet = defineDeviceTool({
  name: 'state_set',
  title: 'Apply a board state',
  description:
    'Apply supplies, nets (chains of nodes), GPIO and overlays at once; clear_first replaces all wiring (probe power kept). Refused on shorts. Snapshots first; reports what did not take.',
  group: 'state',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['set_state', 'set_net_name', 'connect', 'overlay_clear_all', 'overlay_set', ...RAM_REQUIRES],
  input: z.object({ state: stateInput, clear_first: z.boolean().default(true) }),
  output: appliedOutput,
  handle: async ({ state, clear_first }, { board, safety }) =>
    summary(await applyState(board, state, clear_first, safety, 'before state_set')),
});
