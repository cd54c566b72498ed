/**
 * A slot file against the board: reading it (a slot never saved is the power-on state), how the
 * board differs from it, and saving the board into it, every save checked by reading the file back
 * (`nodes_save(N)` returns N even when writing failed).
 */
import { z } from 'zod';
import { SLOTS } from '../board/limits.js';
import { isSavableSlot, parseSlotYaml, powerOnSlot, type SlotData, slotPath } from '../board/slots.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { type RamState, readSlotLook } from './boardState.js';
import { py } from './py.js';
import type { PythonPart } from './pythonParts.js';
import { differences, listed, targetOfSlot } from './restorePlan.js';

/** Board-side helper, inside `_jlt`: save, and read back what was saved (with the RAM part's `slot_look`). */
export const slotFilePython: PythonPart = {
  name: 'slotFile',
  source: `
def slot_store(s):
    nodes_save(s)
    return _jlt.slot_look(None)
`,
};

export const slotField = z.number().int().min(SLOTS.min).max(SLOTS.max);

/** A slot's file as read from the board (null: never saved, the power-on state); refuses a file the board would load as empty. */
export function parseSlotText(
  text: string | null,
  slot: number,
): { data: SlotData; skipped: string[]; saved: boolean } {
  if (text === null) return { data: powerOnSlot(), skipped: [], saved: false };
  const parsed = parseSlotYaml(text);
  if (!parsed.ok) {
    throw new ToolError(
      'bad_slot_file',
      `${slotPath(slot)} cannot be used: ${parsed.error}. The board would load it as an empty slot. Nothing was changed.`,
    );
  }
  return { data: parsed.slot, skipped: parsed.skipped, saved: true };
}

/** The active slot and how the board differs from its file (a slot never saved: the power-on state). */
export async function slotStatus(board: BoardClient) {
  const look = await readSlotLook(board);
  const file = parseSlotText(look.file, look.ram.slot);
  const diffs = differences(targetOfSlot(file.data), look.ram, `slot ${look.ram.slot}'s file`);
  return { ram: look.ram, saved: file.saved, differences: diffs };
}

/** Reads back the file a save wrote and compares it with the board. */
export function checkSaved(look: { ram: RamState; file: string | null }, slot: number): void {
  if (look.file === null) {
    throw new ToolError(
      'not_saved',
      `The board did not write ${slotPath(slot)} (is its USB drive mounted by the computer?).`,
    );
  }
  const file = parseSlotText(look.file, slot);
  const diffs = differences(targetOfSlot(file.data), look.ram, 'the file');
  if (diffs.length > 0) {
    throw new ToolError(
      'not_saved',
      `${slotPath(slot)} does not hold the board's state after saving (is its USB drive mounted by the computer?): ${listed(diffs).join('; ')}.`,
      { details: { differences: listed(diffs) } },
    );
  }
}

/** Saves the active slot when the board differs from its file, and checks the file. */
export async function saveActive(board: BoardClient, ram: RamState): Promise<void> {
  if (!isSavableSlot(ram.slot)) {
    throw new ToolError(
      'unsaved_changes',
      `The board is on slot ${ram.slot}, which cannot be saved, and differs from it. Save to a slot 0-7 with slot_save first, or pass discard_changes: true.`,
    );
  }
  const after = await readSlotLook(board, undefined, {
    expression: py`_jlt.slot_store(${-1})`,
    timeoutMs: 15_000,
  });
  checkSaved(after, ram.slot);
}
