/**
 * Slots, for the firmware's real behaviour (JumperlOS 5.7.0.13):
 *
 * - `switch_slot(N)` only renumbers the slot; nothing in the Python API loads a slot file
 *   (JumperlessMicroPythonAPI.cpp:1559-1585). So slot_switch does what the board's own menu `<N` does
 *   (main.cpp:1194-1272): save the active slot, read N's file, and put it on the board itself.
 * - The board autosaves its state to the active slot once it has been idle for about a second
 *   (States.cpp:4108-4146): "unsaved changes" are short-lived. `nodes_has_changes()` and
 *   `nodes_discard()` only work inside the board's own `p` REPL, so changes are tracked here, on the
 *   host: the board has changes when what it holds differs from its slot file.
 * - `nodes_save(N)` makes N the active slot and returns N even when writing failed: every save is
 *   checked by reading the file back.
 *
 * The slots group: slot_current and slot_save here; a slot file against the board
 * (reading, comparing, saving) in slotFile.ts; loading one (slot_switch, slot_discard) in
 * slotSwitch.ts.
 */
import { z } from 'zod';
import { isSavableSlot, isSlot, slotPath } from '../board/slots.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import { RAM_REQUIRES, ramPython, readRam, readSlotLook } from './boardState.js';
import type { PythonPart } from './pythonParts.js';
import { listed, restorePlanPython } from './restorePlan.js';
import { checkSaved, slotField, slotFilePython, slotStatus } from './slotFile.js';
import { slotDiscard, slotSwitch } from './slotSwitch.js';
import { defineDeviceTool } from './tool.js';

/** The board-side parts the slot tools call: the RAM state and slot files, the board image, and saving. */
export const python: readonly PythonPart[] = [ramPython, restorePlanPython, slotFilePython];

const statusOutput = z.object({
  slot: z.number().describe('The active slot: 0-7, or 99 (the Python slot) after saving there'),
  has_changes: z.boolean(),
  differences: z.array(z.string()).describe('How the board differs from the slot file'),
  file: z.string(),
  saved: z
    .boolean()
    .describe('Whether the slot file exists (a slot never saved compares with the power-on state)'),
});

const statusResult = async (board: BoardClient) => {
  const s = await slotStatus(board);
  return {
    slot: s.ram.slot,
    has_changes: s.differences.length > 0,
    differences: listed(s.differences),
    file: slotPath(s.ram.slot),
    saved: s.saved,
  };
};

/** The active slot and how the board differs from it (slot_has_changes answered the same; it is gone). */
export const slotCurrent = defineDeviceTool({
  name: 'slot_current',
  title: 'Current slot',
  description:
    'The active slot (0-7) and how the board differs from its file (autosaved ~1 s after a change).',
  group: 'slots',
  kind: 'read',
  capability: 'jumperless.read',
  requires: RAM_REQUIRES,
  input: z.object({}),
  output: statusOutput,
  handle: async (_args, { board }) => statusResult(board),
});

export const slotSave = defineDeviceTool({
  name: 'slot_save',
  title: 'Save to a slot',
  description:
    'Save the board to a slot (default the active one), overwriting it; the active slot (autosaved into) stays.',
  group: 'slots',
  kind: 'write',
  capability: 'jumperless.wire',
  requires: ['nodes_save', 'switch_slot', ...RAM_REQUIRES],
  timeoutMs: 30_000,
  input: z.object({ slot: slotField.optional() }),
  output: z.object({
    slot: z.number().describe('The slot saved to'),
    active_slot: z.number().describe('The slot the board autosaves into after the call'),
    file: z.string(),
    note: z.string().nullable(),
  }),
  hazard: ({ slot }) =>
    `Overwrite ${slot === undefined ? 'the active slot' : `slot ${slot}`} with the board's present setup?`,
  handle: async ({ slot }, { board }) => {
    const before = await readRam(board);
    const target = slot ?? before.slot;
    if (!isSavableSlot(target)) {
      throw new ToolError('bad_slot', `The active slot is ${target}, which has no file: give a slot 0-7.`);
    }
    if (target === before.slot) {
      const after = await readSlotLook(board, undefined, {
        expression: py`_jlt.slot_store(${-1})`,
        timeoutMs: 15_000,
      });
      checkSaved(after, target);
      return { slot: target, active_slot: after.ram.slot, file: slotPath(target), note: null };
    }
    // nodes_save(N) makes N the active slot (States.cpp:2998-2999): saved elsewhere, the board goes
    // back to its slot at once, so later changes are not autosaved over the copy.
    const after = await readSlotLook(board, target, {
      expression: py`_jlt.slot_keep(${target})`,
      timeoutMs: 25_000,
    });
    checkSaved({ ram: after.ram, file: after.target }, target);
    const active = after.ram.slot;
    if (active !== before.slot && isSlot(before.slot)) {
      throw new ToolError(
        'not_applied',
        `Slot ${target} was saved, but the board is on slot ${active} instead of ${before.slot} afterwards: later changes are autosaved into slot ${active}.`,
      );
    }
    return {
      slot: target,
      active_slot: active,
      file: slotPath(target),
      note:
        active === before.slot
          ? `Slot ${target} holds the board as it is now (wiring, supplies, GPIO, PWM). Slot ${active} stays active: later changes, a clear too, are autosaved into slot ${active}, not ${target}.`
          : `The board was on slot ${before.slot}, which it cannot switch back to: slot ${active} is now the active slot, and the board autosaves later changes into it.`,
    };
  },
});

export default [slotCurrent, slotSave, slotSwitch, slotDiscard];
