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
import { py } from '../device/pyLiteral.js';
import { type RamState, readSlotLook, SLOT_PART_BYTES, slotFileSum } from './boardState.js';
import type { PythonPart } from './pythonParts.js';
import { differences, listed, targetOfSlot } from './restorePlan.js';

/**
 * Board-side helpers, inside `_jlt`: save, and read back what was saved (with the RAM part's
 * `slot_look`). `slot_keep` saves into another slot and returns to the active one: the active slot
 * first, as the autosave would a moment later (so a firmware whose switch_slot loads the file,
 * JumperlOS 5.7.11, loads what the board holds), then the other, then switch_slot back.
 */
export const slotFilePython: PythonPart = {
  name: 'slotFile',
  source: `
def slot_store(s):
    nodes_save(s)
    return _jlt.slot_look(None)
def slot_write(s, off, h, last):
    import binascii
    if off == 0:
        nodes_save(s)
    f = open(_jlt.slot_path(s), 'r+b' if off else 'wb')
    try:
        if off:
            f.seek(off)
        f.write(binascii.unhexlify(h))
    finally:
        f.close()
    return _jlt.slot_sum(s) if last else None
def slot_keep(t):
    s = CURRENT_SLOT()
    nodes_save(s)
    nodes_save(t)
    if s != t and 0 <= s <= 7:
        switch_slot(s)
    return _jlt.slot_look(t)
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

/**
 * Saves the board (so its state is clean: the autosave writes a dirty state only), then writes
 * `text` back as the slot's file, SLOT_PART_BYTES a job, and checks the file's sum: the file is the
 * one the caller read, whole, though the board holds less than it.
 */
export async function keepSlotFile(board: BoardClient, slot: number, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  let sum: unknown = null;
  for (let offset = 0; offset === 0 || offset < bytes.length; offset += SLOT_PART_BYTES) {
    const part = bytes.subarray(offset, offset + SLOT_PART_BYTES).toString('hex');
    const last = offset + SLOT_PART_BYTES >= bytes.length;
    sum = await board.call(py`_jlt.slot_write(${slot}, ${offset}, ${part}, ${last})`, { timeoutMs: 15_000 });
    if (bytes.length === 0) break;
  }
  const expected = [bytes.length, slotFileSum(bytes)];
  if (JSON.stringify(sum) !== JSON.stringify(expected)) {
    throw new ToolError(
      'not_saved',
      `${slotPath(slot)} could not be written back as it was (the board reports ${JSON.stringify(sum)}, expected ${JSON.stringify(expected)}).`,
    );
  }
}
