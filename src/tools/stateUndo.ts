/**
 * Snapshots of the board kept host-side, per board, and undo: state_undo puts back the exact
 * bridges (with their duplicates), supplies, names and colours, GPIO direction/pull and overlays
 * of a snapshot, instead of sending a get_state document back.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { parseRam, RAM_REQUIRES, type RamState, readRam } from './boardState.js';
import { py } from './py.js';
import {
  differences,
  listed,
  planTarget,
  putTarget,
  RESTORE_REQUIRES,
  type Target,
  targetOfRam,
} from './restorePlan.js';
import { defineDeviceTool } from './tool.js';

/** A snapshot, kept host-side per board (a state is 10-20 KB: too much for the board's RAM). */
export interface Snapshot {
  id: number;
  label: string;
  takenAt: string;
  slot: number;
  target: Target;
}

const MAX_SNAPSHOTS = 16;
const snapshots = new Map<string, Snapshot[]>();
let nextSnapshotId = 1;

/** Snapshots are per board: the session's port names it. */
const boardKey = (board: BoardClient): string => board.id;

export async function takeSnapshot(board: BoardClient, label: string, ram?: RamState): Promise<Snapshot> {
  const now = ram ?? (await readRam(board));
  const snapshot: Snapshot = {
    id: nextSnapshotId++,
    label,
    takenAt: new Date().toISOString(),
    slot: now.slot,
    target: targetOfRam(now),
  };
  const list = snapshots.get(boardKey(board)) ?? [];
  list.push(snapshot);
  snapshots.set(boardKey(board), list.slice(-MAX_SNAPSHOTS));
  return snapshot;
}

export const stateSnapshot = defineDeviceTool({
  name: 'state_snapshot',
  title: 'Snapshot the board state',
  description: "Remember the board's setup (the last 16, in this server) for state_undo.",
  group: 'state',
  kind: 'read',
  capability: 'jumperless.read',
  requires: RAM_REQUIRES,
  input: z.object({ label: z.string().max(100).default('') }),
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

/** What a snapshot does not hold, so state_undo cannot bring it back. */
const SNAPSHOT_LIMITS = [
  'GPIO output levels, PWM, fake GPIO and the UART pins are not part of a snapshot',
] as const;

export const stateUndo = defineDeviceTool({
  name: 'state_undo',
  title: 'Restore a snapshot',
  description:
    'Restore a snapshot (default the latest; state_set and wokwi_import take one), replacing all wiring.',
  group: 'state',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: RESTORE_REQUIRES,
  timeoutMs: 60_000,
  input: z.object({ snapshot_id: z.number().int().min(1).optional() }),
  output: z.object({
    snapshot_id: z.number(),
    label: z.string(),
    restored: z.boolean(),
    differences: z.array(z.string()),
    not_restored: z.array(z.string()),
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
    const plan = planTarget(snapshot.target, safety, `snapshot ${snapshot.id}`);
    const slot = (await readRam(board)).slot;
    const notes = await putTarget(board, plan, null, false);
    let ram = await readRam(board);
    // Colours the user set were dropped with the nets; the others come back with the numbering.
    const recolor = [...snapshot.target.colors].filter(
      ([i, c]) => ram.colors[i] !== undefined && ram.colors[i] !== c,
    );
    if (recolor.length > 0) ram = parseRam(await board.call(py`_jlt.net_looks(${[]}, ${recolor})`));
    const diffs = differences(snapshot.target, ram, 'the snapshot');
    return {
      snapshot_id: snapshot.id,
      label: snapshot.label,
      restored: diffs.length === 0,
      differences: listed(diffs),
      not_restored: [...notes, ...SNAPSHOT_LIMITS],
      slot_warning:
        slot === snapshot.slot ? null : `Taken on slot ${snapshot.slot}, restored onto slot ${slot}.`,
    };
  },
});
