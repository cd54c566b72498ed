/**
 * Undo: this server's last change (journal.ts), put back part by part and named. The board's own
 * history is another thing (firmware_undo, system.ts).
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import { customNetName, driveHazards, netOfNode } from './boardState.js';
import { bridgeHazard } from './connections.js';
import { refuseHazards } from './hazards.js';
import {
  type BridgeRow,
  bridgesMissing,
  type Change,
  changeCount,
  dropChange,
  journalEnd,
  lastChange,
  type OverlayState,
} from './journal.js';
import { readOverlays } from './leds.js';
import type { PythonPart } from './pythonParts.js';
import { putOverlays } from './restorePlan.js';
import { checkVolts, type SafetyPolicy } from './safety.js';
import {
  type BridgeView,
  bridgeViews,
  modelOf,
  nodeLabel,
  readBridges,
  readSnapshot,
  SNAPSHOT_REQUIRES,
} from './snapshot.js';
import { defineDeviceTool } from './tool.js';

/** Board-side helpers, inside `_jlt`: putting back what one change touched. */
export const undoPython: PythonPart = {
  name: 'undo',
  source: `
def undo_bridges(rm, add):
    for a, b in rm:
        disconnect(a, b)
    for a, b, d in add:
        connect(a, b, d)
    return _jlt.snap_bridges()
def undo_power(ch, v):
    if wavegen_is_running() and wavegen_get_output() == ch:
        return None
    dac_set(ch, v)
    return dac_get(ch)
def undo_pins_now(ps):
    return [[str(gpio_get_dir(p)), str(gpio_get_pull(p))] for p in ps]
def undo_pin(p, d, pull, lvl, stop, f, duty):
    if stop:
        pwm_stop(p)
    gpio_set_pull(p, pull)
    if d == 'OUTPUT':
        gpio_set(p, lvl)
    gpio_set_dir(p, d)
    if f is not None:
        pwm(p, f, duty)
    return [str(gpio_get_dir(p)), str(gpio_get_pull(p))]
def undo_overlays(names):
    for n in names:
        overlay_clear(n)
    return _jlt.led_list()
`,
};

export const UNDO_REQUIRES = [
  'connect',
  'disconnect',
  'dac_set',
  'dac_get',
  'wavegen_is_running',
  'wavegen_get_output',
  'set_net_name',
  'gpio_get_dir',
  'gpio_get_pull',
  'gpio_set_pull',
  'gpio_set',
  'gpio_set_dir',
  'pwm',
  'pwm_stop',
  'overlay_clear',
  'overlay_set',
  'overlay_serialize',
  ...SNAPSHOT_REQUIRES,
] as const;

const CHANNEL_NAMES = ['DAC0', 'DAC1', 'TOP_RAIL', 'BOTTOM_RAIL'];
const bridgeName = ([a, b]: BridgeRow): string => `${nodeLabel(a)}-${nodeLabel(b)}`;
const rowsOf = (views: readonly BridgeView[]): BridgeRow[] =>
  views.map((v) => [v.node1, v.node2, v.duplicates]);
const same = (x: BridgeRow, y: BridgeRow): boolean =>
  (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);

interface Outcome {
  restored: string[];
  skipped: string[];
}

/** Puts back the bridges a change added or removed, unless changed since; refuses a hazard. */
async function undoBridges(board: BoardClient, change: NonNullable<Change['bridges']>, out: Outcome) {
  const now = rowsOf(await readBridges(board));
  const has = (row: BridgeRow) => now.find((x) => same(x, row));
  const remove = bridgesMissing(change.after, change.before).filter((row) => {
    if (has(row)) return true;
    out.skipped.push(`bridge ${bridgeName(row)} is gone already`);
    return false;
  });
  const add = bridgesMissing(change.before, change.after).filter((row) => {
    if (!has(row)) return true;
    out.skipped.push(`bridge ${bridgeName(row)} is there already`);
    return false;
  });
  // A count the change altered goes back when the board still has the change's count.
  const counts = change.before.filter((row) => {
    const after = change.after.find((x) => same(x, row));
    const current = has(row);
    return after !== undefined && after[2] !== row[2] && current?.[2] === after[2];
  });
  if (remove.length + add.length + counts.length === 0) return;
  const model = modelOf(
    (await readBridges(board)).filter((v) => !remove.some((row) => same(row, [v.node1, v.node2, 0]))),
  );
  const power = (await readSnapshot(board)).state.power;
  const hazards = add.flatMap(([a, b]) => {
    const h = bridgeHazard(model, a, b, power);
    if (!h) model.connect(a, b);
    return h ? [h] : [];
  });
  if (hazards.length > 0) throw refuseHazards('undo (the board changed since)', hazards);
  const rows = rowsOf(
    bridgeViews(
      await board.call(
        py`_jlt.undo_bridges(${remove.map(([a, b]) => [a, b])}, ${[...add, ...counts].map(([a, b, d]) => [a, b, d])})`,
      ),
    ),
  );
  board.seen.delete('connections.bridges');
  const stuck = remove.filter((row) => rows.some((x) => same(x, row)));
  const missing = add.filter((row) => !rows.some((x) => same(x, row)));
  if (stuck.length + missing.length > 0) {
    throw new ToolError(
      'not_applied',
      `Undo did not take: ${[...stuck.map((r) => `${bridgeName(r)} is still there`), ...missing.map((r) => `${bridgeName(r)} did not come back`)].join('; ')}.`,
    );
  }
  for (const row of remove) out.restored.push(`removed bridge ${bridgeName(row)}`);
  for (const row of add) out.restored.push(`put back bridge ${bridgeName(row)}`);
  for (const row of counts)
    out.restored.push(`bridge ${bridgeName(row)} back to ${row[2]} extra parallel paths`);
}

/** Names the nets holding these nodes again, where they lost their name. */
async function undoNames(board: BoardClient, names: NonNullable<Change['names']>, out: Outcome) {
  const { state } = await readSnapshot(board);
  const put = names.flatMap(([node, name]) => {
    const net = netOfNode(state, node);
    if (!net) {
      out.skipped.push(`net name "${name}": ${node} is in no net now`);
      return [];
    }
    return customNetName(net) === undefined ? [[net.index, name] as const] : [];
  });
  if (put.length === 0) return;
  // Names only: no read-back of the whole state here (a full board's is 40 KB of heap).
  await board.call(py`[set_net_name(i, t) for i, t in ${put.map(([i, n]) => [i, n])}]`);
  for (const [, name] of put) out.restored.push(`net name "${name}"`);
}

async function undoPower(
  board: BoardClient,
  safety: SafetyPolicy,
  changes: NonNullable<Change['power']>,
  out: Outcome,
) {
  for (const { channel, before, after } of changes) {
    const name = CHANNEL_NAMES[channel] ?? `channel ${channel}`;
    const now = z.number().parse(await board.call(py`dac_get(${channel})`));
    if (Math.abs(now - after) > 0.01) {
      out.skipped.push(`${name} is ${now} V, not the ${after} V this change set: left as it is`);
      continue;
    }
    checkVolts(safety, before, name);
    const got = z
      .number()
      .nullable()
      .parse(await board.call(py`_jlt.undo_power(${channel}, ${before})`));
    if (got === null) {
      out.skipped.push(`${name}: the waveform generator drives it; stop it first (wavegen_configure)`);
    } else if (Math.abs(got - before) > 0.01) {
      throw new ToolError('not_applied', `${name} reads back ${got} V after setting it back to ${before} V.`);
    } else {
      out.restored.push(`${name} back to ${before} V (from ${after} V)`);
    }
  }
}

async function undoPins(board: BoardClient, changes: NonNullable<Change['pins']>, out: Outcome) {
  const now = z
    .array(z.tuple([z.string(), z.string()]))
    .parse(await board.call(py`_jlt.undo_pins_now(${changes.map((c) => c.pin)})`));
  const { state } = await readSnapshot(board);
  for (const [i, { pin, before, after }] of changes.entries()) {
    const [direction, pull] = now[i] ?? ['', ''];
    // A timer PWM drives the pad as an output whatever the config says.
    const padDirection = after.pwm && after.pwm.frequency < 10 ? 'OUTPUT' : after.direction;
    if (direction !== padDirection || pull !== after.pull) {
      out.skipped.push(`GPIO ${pin} changed since (${direction}, ${pull}): left as it is`);
      continue;
    }
    if (before.unknown_pwm) {
      out.skipped.push(
        `GPIO ${pin} ran PWM at a setting this server did not make: start it again with pwm_start`,
      );
      continue;
    }
    if (before.direction === 'OUTPUT' || before.pwm) {
      const hazards = driveHazards(state, pin);
      if (hazards.length > 0) {
        out.skipped.push(`GPIO ${pin} is not driven again: ${hazards.join('; ')}`);
        continue;
      }
    }
    await board.call(
      py`_jlt.undo_pin(${pin}, ${before.direction}, ${before.pull}, ${before.level}, ${after.pwm !== null}, ${before.pwm?.frequency ?? null}, ${before.pwm?.duty ?? 0.5})`,
    );
    out.restored.push(
      `GPIO ${pin} back to ${before.pwm ? `PWM ${before.pwm.frequency} Hz` : before.direction === 'OUTPUT' ? `OUTPUT ${before.level}` : 'INPUT'}, ${before.pull}`,
    );
  }
}

const overlayKey = (o: OverlayState | undefined): string =>
  o === undefined ? '' : `${o.row},${o.col},${o.width}x${o.height}:${o.colors.join(',').toUpperCase()}`;

async function undoOverlays(board: BoardClient, change: NonNullable<Change['overlays']>, out: Outcome) {
  const now = readOverlays(await board.call('_jlt.led_list()'));
  if (!now) {
    out.skipped.push("the overlays: the board's overlay list is unreadable (a name with a quote)");
    return;
  }
  const names = [...new Set([...change.before, ...change.after].map((o) => o.name))];
  const byName = (list: readonly OverlayState[], name: string) => list.find((o) => o.name === name);
  const touched = names.filter(
    (name) => overlayKey(byName(change.before, name)) !== overlayKey(byName(change.after, name)),
  );
  const ready = touched.filter((name) => {
    if (overlayKey(byName(now, name)) === overlayKey(byName(change.after, name))) return true;
    out.skipped.push(`overlay "${name}" changed since: left as it is`);
    return false;
  });
  if (ready.length === 0) return;
  await board.call(py`_jlt.undo_overlays(${ready})`);
  const back = ready.flatMap((name) => {
    const o = byName(change.before, name);
    return o ? [{ ...o, colors: o.colors.map((c) => Number.parseInt(c, 16) >>> 0) }] : [];
  });
  const refused = await putOverlays(board, back);
  for (const name of ready) {
    if (refused.includes(name)) out.skipped.push(`overlay "${name}": the board refused it back`);
    else
      out.restored.push(
        byName(change.before, name) ? `overlay "${name}" put back` : `overlay "${name}" removed`,
      );
  }
}

/** What undoing `change` would put back, in the words undo's result uses, for `preview`. */
function planOf(change: Change): string[] {
  const plan: string[] = [];
  if (change.bridges) {
    const { before, after } = change.bridges;
    for (const row of bridgesMissing(after, before)) plan.push(`remove bridge ${bridgeName(row)}`);
    for (const row of bridgesMissing(before, after)) plan.push(`put back bridge ${bridgeName(row)}`);
  }
  for (const [, name] of change.names ?? []) plan.push(`net name "${name}"`);
  for (const { channel, before, after } of change.power ?? [])
    plan.push(`${CHANNEL_NAMES[channel] ?? `channel ${channel}`} back to ${before} V (from ${after} V)`);
  for (const { pin, before } of change.pins ?? [])
    plan.push(
      `GPIO ${pin} back to ${before.pwm ? `PWM ${before.pwm.frequency} Hz` : before.direction === 'OUTPUT' ? `OUTPUT ${before.level}` : 'INPUT'}, ${before.pull}`,
    );
  if (change.overlays) {
    const names = new Set([...change.overlays.before, ...change.overlays.after].map((o) => o.name));
    for (const name of names) plan.push(`overlay "${name}" as before`);
  }
  return plan;
}

/**
 * One shape for both answers; a preview's fields say what would happen (would_undo), so it never
 * carries an `undone` (issue 20: "a preview result with a field called 'undone' reads oddly").
 */
const undoOutput = z.object({
  undone: z.string().optional().describe('What was undone'),
  would_undo: z.string().optional().describe('preview: what undo would undo; nothing was changed'),
  tool: z.string(),
  restored: z.array(z.string()).optional().describe('What was put back'),
  would_put_back: z.array(z.string()).optional().describe('preview: what undo would put back'),
  skipped: z.array(z.string()).optional().describe('Left alone: changed since, or not restorable'),
  remaining: z.number().describe('Changes of this server still to undo'),
  next: z.string().nullable().optional().describe('What the next undo would undo'),
});

export const undo = defineDeviceTool({
  name: 'undo',
  title: 'Undo the last change',
  description:
    "Undo the last change made through this server, by any caller (wiring, supplies, GPIO, overlays), naming it; preview: true only names it. The board's own history: firmware_undo.",
  group: 'state',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: UNDO_REQUIRES,
  timeoutMs: 60_000,
  input: z.object({ preview: z.boolean().default(false) }),
  output: undoOutput,
  handle: async ({ preview }, { board, safety }) => {
    const change = lastChange(board);
    if (!change) {
      const ended = journalEnd(board);
      throw new ToolError(
        'nothing_to_undo',
        ended
          ? `Nothing to undo since ${ended}: undo does not go back past a slot change (slot_switch goes back to a slot).`
          : 'This server has made no change to this board to undo. The board keeps its own history: firmware_undo.',
      );
    }
    if (preview) {
      // Read from the journal alone: a preview touches neither the board nor the journal.
      return {
        would_undo: change.label,
        tool: change.tool,
        would_put_back: planOf(change),
        remaining: changeCount(board),
      };
    }
    const out: Outcome = { restored: [], skipped: [] };
    if (change.bridges) await undoBridges(board, change.bridges, out);
    if (change.names) await undoNames(board, change.names, out);
    if (change.power) await undoPower(board, safety, change.power, out);
    if (change.pins) await undoPins(board, change.pins, out);
    if (change.overlays) await undoOverlays(board, change.overlays, out);
    dropChange(board, change.id);
    return {
      undone: change.label,
      tool: change.tool,
      restored: out.restored,
      skipped: out.skipped,
      remaining: changeCount(board),
      next: lastChange(board)?.label ?? null,
    };
  },
});
