/**
 * Slots and state (spec §6.4, §7): save, switch, discard, the state JSON, host-side snapshots with
 * undo, and Wokwi import. `set_state` returns -1 and prints its reason on the main port, never
 * raising (spec §9), so every write is followed by a fresh `get_state()` and a comparison.
 */
import { z } from 'zod';
import { DAC_SAFE, MAX_NODES_PER_NET, OVERLAY_COLS, OVERLAY_ROWS, SLOTS } from '../board/limits.js';
import { parseState } from '../board/state.js';
import type { BoardClient } from './boardClient.js';
import {
  boardStateSchema,
  canonicalNode,
  connectivity,
  driveHazards,
  mergeGroups,
  netOfNode,
  parseStateText,
  readState,
  supplyShorts,
  type ToolBoardState,
} from './boardState.js';
import { py } from './py.js';
import { checkVolts, type SafetyPolicy } from './safety.js';
import { defineTool, ToolError } from './tool.js';
import { translateWokwi, WOKWI_MAX_CHARS } from './wokwi.js';

/** Python run on the board, inside `_jlt`. */
export const python = `
def slot_info():
    return {'slot': CURRENT_SLOT(), 'changes': nodes_has_changes()}
def slot_store(s):
    import jfs
    n = nodes_save(s)
    return {'slot': n, 'saved': jfs.exists('/slots/slot%d.yaml' % n), 'changes': nodes_has_changes()}
def slot_to(s):
    p = switch_slot(s)
    return {'previous': p, 'slot': CURRENT_SLOT(), 'changes': nodes_has_changes()}
def slot_drop():
    nodes_discard()
    return _jlt.slot_info()
def state_put(j, c):
    return [set_state(j, c), get_state()]
`;

const slotField = z.number().int().min(SLOTS.min).max(SLOTS.max).describe('Slot 0-7');
const slotStatus = z.object({ slot: z.number(), changes: z.boolean() });

export const slotCurrent = defineTool({
  name: 'slot_current',
  title: 'Current slot',
  description: 'Which slot (0-7) is active and whether it has unsaved changes.',
  group: 'slots',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['CURRENT_SLOT', 'nodes_has_changes'],
  input: z.object({}),
  output: z.object({ slot: z.number(), has_changes: z.boolean() }),
  handle: async (_args, { board }) => {
    const info = slotStatus.parse(await board.call('_jlt.slot_info()'));
    return { slot: info.slot, has_changes: info.changes };
  },
});

export const slotHasChanges = defineTool({
  name: 'slot_has_changes',
  title: 'Unsaved changes?',
  description: 'Whether the active slot differs from what was last saved or loaded.',
  group: 'slots',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['nodes_has_changes', 'CURRENT_SLOT'],
  input: z.object({}),
  output: z.object({ slot: z.number(), has_changes: z.boolean() }),
  handle: async (_args, { board }) => {
    const info = slotStatus.parse(await board.call('_jlt.slot_info()'));
    return { slot: info.slot, has_changes: info.changes };
  },
});

export const slotSave = defineTool({
  name: 'slot_save',
  title: 'Save to a slot',
  description:
    "Save the present connections and supply setpoints to a slot's file on flash (default: the active slot), overwriting it. Takes about 2 s on the board.",
  group: 'slots',
  kind: 'write',
  capability: 'jumperless.wire',
  requires: ['nodes_save', 'nodes_has_changes'],
  timeoutMs: 20_000,
  input: z.object({ slot: slotField.optional().describe('Slot 0-7; default the active one') }),
  output: z.object({ slot: z.number(), file: z.string(), has_changes: z.boolean() }),
  handle: async ({ slot }, { board }) => {
    const reply = z
      .object({ slot: z.number(), saved: z.boolean(), changes: z.boolean() })
      .parse(await board.call(py`_jlt.slot_store(${slot ?? -1})`, { timeoutMs: 15_000 }));
    const file = `/slots/slot${reply.slot}.yaml`;
    if (!reply.saved)
      throw new ToolError(
        'not_applied',
        `The firmware reported slot ${reply.slot} saved, but ${file} is missing.`,
      );
    return { slot: reply.slot, file, has_changes: reply.changes };
  },
});

export const slotSwitch = defineTool({
  name: 'slot_switch',
  title: 'Switch slot',
  description:
    "Load another slot (0-7): the board reroutes and its supplies take that slot's setpoints. Refused when the active slot has unsaved changes, unless discard_changes is true (they are lost).",
  group: 'slots',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['switch_slot', 'CURRENT_SLOT', 'nodes_has_changes'],
  input: z.object({ slot: slotField, discard_changes: z.boolean().default(false) }),
  output: z.object({ slot: z.number(), previous_slot: z.number(), has_changes: z.boolean() }),
  handle: async ({ slot, discard_changes }, { board }) => {
    const before = slotStatus.parse(await board.call('_jlt.slot_info()'));
    if (before.changes && !discard_changes && before.slot !== slot) {
      throw new ToolError(
        'unsaved_changes',
        `Slot ${before.slot} has unsaved changes that switching would lose. Save them with slot_save, or pass discard_changes: true.`,
        { details: { slot: before.slot } },
      );
    }
    const reply = z
      .object({ previous: z.number(), slot: z.number(), changes: z.boolean() })
      .parse(await board.call(py`_jlt.slot_to(${slot})`));
    if (reply.slot !== slot)
      throw new ToolError('not_applied', `The board is on slot ${reply.slot} after switching to ${slot}.`);
    return { slot: reply.slot, previous_slot: before.slot, has_changes: reply.changes };
  },
});

export const slotDiscard = defineTool({
  name: 'slot_discard',
  title: 'Discard unsaved changes',
  description:
    "Throw away the active slot's unsaved changes and go back to its saved connections and setpoints. The changes are lost.",
  group: 'slots',
  kind: 'destructive',
  capability: 'jumperless.wire',
  requires: ['nodes_discard', 'nodes_has_changes', 'CURRENT_SLOT'],
  input: z.object({}),
  output: z.object({ slot: z.number(), had_changes: z.boolean(), has_changes: z.boolean() }),
  handle: async (_args, { board }) => {
    const before = slotStatus.parse(await board.call('_jlt.slot_info()'));
    const after = slotStatus.parse(await board.call('_jlt.slot_drop()'));
    if (after.changes)
      throw new ToolError('not_applied', `Slot ${after.slot} still has changes after discarding.`);
    return { slot: after.slot, had_changes: before.changes, has_changes: false };
  },
});

// ---- state ----

const stateOutput = boardStateSchema;

export const stateGet = defineTool({
  name: 'state_get',
  title: 'Read the board state',
  description:
    'The whole board state: supply setpoints in volts, nets with their nodes, GPIO pins and LED overlays.',
  group: 'slots',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['get_state'],
  input: z.object({}),
  output: stateOutput,
  handle: async (_args, { board }) => (await readState(board)).state,
});

/**
 * Names the firmware prints into its own JSON escape only `"`, `\n` and `\r` (spec §7): a backslash
 * or another control byte would make later `get_state()` output invalid JSON, so refuse them. The
 * state trims names, so edge spaces would not survive either.
 */
const NAME = /^[\x21-\x5b\x5d-\x7e](?:[\x20-\x5b\x5d-\x7e]*[\x21-\x5b\x5d-\x7e])?$/;
const nameField = (max: number) =>
  z.string().min(1).max(max).regex(NAME, 'printable ASCII, no backslash, no leading or trailing space');
const volts = z.number().min(DAC_SAFE.min).max(DAC_SAFE.max);

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
          .describe('Node names: rows "1"-"60", GND, TOP_R, BOT_R, DAC_0, GP_1, D5, A0, ...'),
        name: nameField(31).optional(),
      }),
    )
    .max(60)
    .optional(),
  gpio: z
    .array(
      z.object({
        pin: z.union([z.number().int().min(1).max(8), z.enum(['TX', 'RX'])]),
        direction: z.enum(['INPUT', 'OUTPUT']).optional(),
        pull: z.enum(['up', 'down', 'none', 'keeper']).optional(),
      }),
    )
    .max(10)
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
    .optional(),
});
type StateInput = z.infer<typeof stateInput>;

// ---- snapshots, kept host-side per board (a state is 10-20 KB: too much for the board's RAM) ----

interface Snapshot {
  id: number;
  label: string;
  takenAt: string;
  slot: number;
  text: string;
}

const MAX_SNAPSHOTS = 16;
const snapshots = new Map<string, Snapshot[]>();
let nextSnapshotId = 1;

/** Snapshots are per board: the session's port names it. */
const boardKey = (board: BoardClient): string => board.health().port;

async function takeSnapshot(board: BoardClient, label: string, stateText?: string): Promise<Snapshot> {
  const text = stateText ?? (await readState(board)).text;
  const { slot } = slotStatus.parse(await board.call('_jlt.slot_info()'));
  const snapshot: Snapshot = { id: nextSnapshotId++, label, takenAt: new Date().toISOString(), slot, text };
  const list = snapshots.get(boardKey(board)) ?? [];
  list.push(snapshot);
  snapshots.set(boardKey(board), list.slice(-MAX_SNAPSHOTS));
  return snapshot;
}

// ---- applying a state, checked before and verified after ----

/** What the request would route, refused when it joins supplies or puts an output on a driven net. */
function checkState(
  doc: StateInput,
  current: ToolBoardState,
  clearFirst: boolean,
  safety: SafetyPolicy,
): void {
  for (const [key, v] of Object.entries(doc.power ?? {})) checkVolts(safety, v, key);
  const requested = (doc.nets ?? []).map((net) =>
    net.nodes.map((n) => {
      const canonical = canonicalNode(n);
      if (!canonical) throw new ToolError('unknown_node', `Unknown node ${JSON.stringify(n)} in nets.`);
      return canonical;
    }),
  );
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
  const predicted: ToolBoardState = {
    ...current,
    nets: groups.map((nodes, i) => ({ index: 100 + i, name: `net ${i + 1}`, nodes, special: 'none' })),
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

/** What differs between the request and the board after it. */
function compareState(doc: StateInput, after: ToolBoardState): string[] {
  const differences: string[] = [];
  for (const [key, v] of Object.entries(doc.power ?? {})) {
    const got = after.power[key as keyof ToolBoardState['power']];
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
    if (net.name !== undefined && home && home.index > 5 && home.name !== net.name) {
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
  state: ToolBoardState;
  differences: string[];
  snapshot: Snapshot;
}

/** Snapshot, check, `set_state`, re-read, compare. */
async function applyState(
  board: BoardClient,
  doc: StateInput,
  clearFirst: boolean,
  safety: SafetyPolicy,
  label: string,
): Promise<Applied> {
  const text = JSON.stringify(doc);
  // The board's own parser rules, checked here so the reason is not lost on the main port.
  const pre = parseState(text);
  if (!pre.ok) throw new ToolError('bad_state', `The state is not valid: ${pre.error}.`);
  const { state: current, text: currentText } = await readState(board);
  checkState(doc, current, clearFirst, safety);
  const snapshot = await takeSnapshot(board, label, currentText);
  const [code, afterText] = z
    .tuple([z.number(), z.string()])
    .parse(await board.call(py`_jlt.state_put(${text}, ${clearFirst})`));
  if (code !== 0) {
    throw new ToolError(
      'refused',
      `The firmware refused the state (set_state returned ${code}; it prints the reason on its main port). Snapshot ${snapshot.id} holds the state before.`,
      { details: { snapshot_id: snapshot.id } },
    );
  }
  const after = parseStateText(afterText);
  return { state: after, differences: compareState(doc, after), snapshot };
}

const appliedOutput = z.object({
  applied: z.boolean(),
  differences: z.array(z.string()),
  snapshot_id: z.number(),
  nets: z.array(z.object({ name: z.string(), nodes: z.array(z.string()) })),
  power: boardStateSchema.shape.power,
});

const summary = (a: Applied) => ({
  applied: a.differences.length === 0,
  differences: a.differences,
  snapshot_id: a.snapshot.id,
  nets: a.state.nets
    .filter((n) => n.index > 5 || n.nodes.length > 1)
    .map((n) => ({ name: n.name, nodes: n.nodes })),
  power: a.state.power,
});

export const stateSet = defineTool({
  name: 'state_set',
  title: 'Apply a board state',
  description:
    'Apply supplies (volts), nets, GPIO settings and overlays in one step; with clear_first (default) the given nets replace all connections. Refused when it would join two supplies or put a GPIO output on a driven net. Snapshots first (state_undo restores) and reports what did not take.',
  group: 'slots',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['set_state', 'get_state', 'CURRENT_SLOT', 'nodes_has_changes'],
  input: z.object({ state: stateInput, clear_first: z.boolean().default(true) }),
  output: appliedOutput,
  handle: async ({ state, clear_first }, { board, safety }) =>
    summary(await applyState(board, state, clear_first, safety, 'before state_set')),
});

export const stateSnapshot = defineTool({
  name: 'state_snapshot',
  title: 'Snapshot the board state',
  description: `Remember the present board state (host-side, the last ${MAX_SNAPSHOTS} per board) so state_undo can bring it back.`,
  group: 'slots',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['get_state', 'CURRENT_SLOT', 'nodes_has_changes'],
  input: z.object({ label: z.string().max(100).default('').describe('Free text to recognise it by') }),
  output: z.object({
    snapshot_id: z.number(),
    label: z.string(),
    taken_at: z.string(),
    slot: z.number(),
    kept: z.number(),
  }),
  handle: async ({ label }, { board }) => {
    const snapshot = await takeSnapshot(board, label);
    return {
      snapshot_id: snapshot.id,
      label: snapshot.label,
      taken_at: snapshot.takenAt,
      slot: snapshot.slot,
      kept: snapshots.get(boardKey(board))?.length ?? 0,
    };
  },
});

export const stateUndo = defineTool({
  name: 'state_undo',
  title: 'Restore a snapshot',
  description:
    'Bring back a snapshot (default the latest; state_set and wokwi_import take one first): connections, supplies, GPIO and overlays. Replaces all present connections.',
  group: 'slots',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['set_state', 'get_state'],
  input: z.object({ snapshot_id: z.number().int().min(1).optional() }),
  output: z.object({
    snapshot_id: z.number(),
    label: z.string(),
    restored: z.boolean(),
    differences: z.array(z.string()),
    slot_warning: z.string().nullable(),
  }),
  handle: async ({ snapshot_id }, { board, safety }) => {
    const list = snapshots.get(boardKey(board)) ?? [];
    const snapshot = snapshot_id === undefined ? list.at(-1) : list.find((s) => s.id === snapshot_id);
    if (!snapshot) {
      throw new ToolError(
        'no_snapshot',
        snapshot_id === undefined
          ? 'No snapshot of this board yet: take one with state_snapshot.'
          : `No snapshot ${snapshot_id} for this board (kept: ${list.map((s) => s.id).join(', ') || 'none'}).`,
      );
    }
    const then = parseStateText(snapshot.text);
    for (const [key, v] of Object.entries(then.power)) checkVolts(safety, v, key);
    const { slot } = slotStatus.parse(await board.call('_jlt.slot_info()'));
    const [code, afterText] = z
      .tuple([z.number(), z.string()])
      .parse(await board.call(py`_jlt.state_put(${snapshot.text}, ${true})`));
    if (code !== 0)
      throw new ToolError(
        'refused',
        `The firmware refused snapshot ${snapshot.id} (set_state returned ${code}).`,
      );
    const after = parseStateText(afterText);
    const differences: string[] = [];
    if (JSON.stringify(connectivity(after)) !== JSON.stringify(connectivity(then))) {
      differences.push('the connections differ from the snapshot');
    }
    for (const [key, v] of Object.entries(then.power)) {
      const got = after.power[key as keyof typeof after.power];
      if (Math.abs(got - v) > 0.01) differences.push(`power.${key} is ${got} V, not ${v} V`);
    }
    return {
      snapshot_id: snapshot.id,
      label: snapshot.label,
      restored: differences.length === 0,
      differences,
      slot_warning:
        slot === snapshot.slot ? null : `Taken on slot ${snapshot.slot}, restored onto slot ${slot}.`,
    };
  },
});

export const wokwiImport = defineTool({
  name: 'wokwi_import',
  title: 'Import a Wokwi diagram',
  description:
    'Route the wires of a Wokwi diagram.json: breadboard holes become rows (top half 1-30, bottom 31-60), rails TOP_RAIL/BOTTOM_RAIL/GND, Arduino pins D0-D13/A0-A7. Parts are not placed; supplies are not set. Refused when it would join two supplies. Snapshots first.',
  group: 'slots',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['set_state', 'get_state', 'CURRENT_SLOT', 'nodes_has_changes'],
  input: z.object({
    diagram: z.string().max(WOKWI_MAX_CHARS).describe('The diagram.json text'),
    clear_first: z.boolean().default(true).describe('Replace all present connections'),
  }),
  output: appliedOutput.extend({
    wires: z.number(),
    skipped: z.array(z.object({ pin: z.string(), reason: z.string() })),
  }),
  handle: async ({ diagram, clear_first }, { board, safety }) => {
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
      { nets: translation.nets.map((nodes) => ({ nodes })) },
      clear_first,
      safety,
      'before wokwi_import',
    );
    return { ...summary(applied), wires: translation.wires, skipped: translation.skipped };
  },
});

export default [
  slotCurrent,
  slotHasChanges,
  slotSave,
  slotSwitch,
  slotDiscard,
  stateGet,
  stateSet,
  stateSnapshot,
  stateUndo,
  wokwiImport,
];
