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
 */
import { z } from 'zod';
import { SLOTS } from '../board/limits.js';
import { isSavableSlot, parseSlotYaml, powerOnSlot, type SlotData, slotPath } from '../board/slots.js';
import type { BoardClient } from './boardClient.js';
import {
  AUTOSAVE_NOTE,
  boardImagePython,
  differences,
  IMAGE_REQUIRES,
  listed,
  planTarget,
  putTarget,
  targetOfSlot,
} from './boardImage.js';
import { RAM_REQUIRES, type RamState, ramPython, readRam, readSlotLook } from './boardState.js';
import { py } from './py.js';
import type { SafetyPolicy } from './safety.js';
import { defineTool, ToolError } from './tool.js';

/** Python run on the board, inside `_jlt`. */
export const python = `${ramPython}${boardImagePython}
def slot_store(s):
    nodes_save(s)
    return _jlt.slot_look(None)
`;

/** What a slot file holds that putting it on the board through the API cannot restore. */
function slotLosses(slot: SlotData, skipped: readonly string[]): string[] {
  const out: string[] = [];
  const colored = slot.bridges.filter((b) => b.color !== undefined).length;
  if (colored > 0) out.push(`${colored} bridge colour(s): the API cannot set bridge colours`);
  if (slot.config.fakeGpio.length > 0) {
    out.push(`${slot.config.fakeGpio.length} fake GPIO setting(s): set them again with fake_gpio_config`);
  }
  slot.config.gpio.pwmEnabled.forEach((on, i) => {
    if (on) {
      out.push(
        `PWM on GPIO ${i + 1} (${slot.config.gpio.pwmFrequency[i]} Hz, duty ${slot.config.gpio.pwmDutyCycle[i]}) is not started`,
      );
    }
  });
  const r = slot.config.routing;
  if (r.stackPaths !== 2 || r.stackRails !== 3 || r.stackDacs !== 0 || r.railPriority !== 1) {
    out.push('the routing settings of the file (stackPaths...) are not applied');
  }
  if (slot.config.uart.txFunction !== 0 || slot.config.uart.rxFunction !== 1 || slot.config.oled.connected) {
    out.push('the UART and OLED settings of the file are not applied');
  }
  for (const line of skipped) out.push(`ignored, as the board ignores it: ${line}`);
  return out;
}

function parseSlotText(
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
async function slotStatus(board: BoardClient) {
  const look = await readSlotLook(board);
  const file = parseSlotText(look.file, look.ram.slot);
  const diffs = differences(targetOfSlot(file.data), look.ram, `slot ${look.ram.slot}'s file`);
  return { ram: look.ram, saved: file.saved, differences: diffs };
}

// ---- slots ----

const slotField = z.number().int().min(SLOTS.min).max(SLOTS.max).describe('Slot 0-7');
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

export const slotCurrent = defineTool({
  name: 'slot_current',
  title: 'Current slot',
  description: `The active slot and whether the board differs from its slot file (bridges with their duplicates, supplies, net names and user colours, GPIO direction and pulls, overlays). ${AUTOSAVE_NOTE}`,
  group: 'slots',
  kind: 'read',
  capability: 'jumperless.read',
  requires: RAM_REQUIRES,
  input: z.object({}),
  output: statusOutput,
  handle: async (_args, { board }) => statusResult(board),
});

export const slotHasChanges = defineTool({
  name: 'slot_has_changes',
  title: 'Unsaved changes?',
  description: `Whether the board differs from the active slot's file, and how. ${AUTOSAVE_NOTE} So changes stay unsaved only briefly, or after a switch_slot() run in Python, which renumbers the slot without loading it.`,
  group: 'slots',
  kind: 'read',
  capability: 'jumperless.read',
  requires: RAM_REQUIRES,
  input: z.object({}),
  output: statusOutput,
  handle: async (_args, { board }) => statusResult(board),
});

/** Reads back the file a save wrote and compares it with the board. */
function checkSaved(look: { ram: RamState; file: string | null }, slot: number): void {
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

export const slotSave = defineTool({
  name: 'slot_save',
  title: 'Save to a slot',
  description: `Save the board's connections, supplies, net names and colours, GPIO settings and overlays to a slot's file (default: the active slot), overwriting it, and check the file. Saving to another slot makes it the active slot: the board then saves later changes there. ${AUTOSAVE_NOTE}`,
  group: 'slots',
  kind: 'write',
  capability: 'jumperless.wire',
  requires: ['nodes_save', ...RAM_REQUIRES],
  timeoutMs: 20_000,
  input: z.object({ slot: slotField.optional().describe('Slot 0-7; default the active one') }),
  output: z.object({
    slot: z.number().describe('The active slot after saving'),
    previous_slot: z.number(),
    file: z.string(),
    note: z.string().nullable(),
  }),
  handle: async ({ slot }, { board }) => {
    const before = await readRam(board);
    const target = slot ?? before.slot;
    if (!isSavableSlot(target)) {
      throw new ToolError('bad_slot', `The active slot is ${target}, which has no file: give a slot 0-7.`);
    }
    const after = await readSlotLook(board, undefined, {
      expression: py`_jlt.slot_store(${slot ?? -1})`,
      timeoutMs: 15_000,
    });
    const ram = after.ram;
    if (ram.slot !== target) {
      throw new ToolError('not_saved', `The board is on slot ${ram.slot} after saving to slot ${target}.`);
    }
    checkSaved(after, target);
    return {
      slot: ram.slot,
      previous_slot: before.slot,
      file: slotPath(target),
      note:
        target === before.slot
          ? null
          : `Slot ${target} is now the active slot (it was ${before.slot}); the board saves later changes there.`,
    };
  },
});

const loadOutput = z.object({
  slot: z.number(),
  previous_slot: z.number(),
  saved_previous: z
    .boolean()
    .describe('The previous slot was saved first because the board differed from its file'),
  discarded: z.array(z.string()).describe('Differences from the previous slot file that were dropped'),
  loaded_from: z.enum(['file', 'power_on_default']),
  restored: z.boolean().describe('The board matches the slot file in everything compared'),
  differences: z.array(z.string()),
  not_restored: z
    .array(z.string())
    .describe('What the file holds that the API cannot put back, or that was kept safe'),
});

/** Saves the active slot when the board differs from its file, and checks the file. */
async function saveActive(board: BoardClient, ram: RamState): Promise<void> {
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
 * Loads a slot's file onto the board (the power-on state for a slot never saved), saves it there at
 * once (the board would autosave it a moment later anyway; saving now leaves no dirty state that a
 * later `switch_slot()` could carry into another slot), and compares the board with the file.
 */
async function loadSlot(
  board: BoardClient,
  safety: SafetyPolicy,
  slot: number,
  text: string | null,
  switchTo: number | null,
  beforeLoad: () => Promise<void>,
) {
  const file = parseSlotText(text, slot);
  const plan = planTarget(targetOfSlot(file.data), safety, `slot ${slot}`);
  await beforeLoad();
  const notes = [...slotLosses(file.data, file.skipped), ...(await putTarget(board, plan, switchTo, true))];
  const ram = await readRam(board);
  const diffs = differences(plan.target, ram, `slot ${slot}'s file`);
  if ((notes.length > 0 || diffs.length > 0) && file.saved) {
    notes.push(
      `the board's state was saved back to ${slotPath(slot)}, so what was not restored is gone from it too`,
    );
  }
  return { ram, diffs, notes, loadedFrom: file.saved ? ('file' as const) : ('power_on_default' as const) };
}

export const slotSwitch = defineTool({
  name: 'slot_switch',
  title: 'Switch slot',
  description: `Switch to another slot (0-7) as the board's own menu does: first save the active slot if the board differs from its file, then load the new slot's file (bridges with their duplicates, supplies, net names and user colours, GPIO direction and pulls, overlays; a slot never saved loads as the power-on state) and check it. With discard_changes the active slot is not saved and its differences are listed as dropped. Refused when the new slot would join two supplies or exceed the voltage limits. ${AUTOSAVE_NOTE}`,
  group: 'slots',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['switch_slot', ...IMAGE_REQUIRES],
  timeoutMs: 60_000,
  input: z.object({
    slot: slotField,
    discard_changes: z
      .boolean()
      .default(false)
      .describe("Don't save the active slot first: the board's differences from its file are dropped"),
  }),
  output: loadOutput,
  handle: async ({ slot, discard_changes }, { board, safety }) => {
    const look = await readSlotLook(board, slot);
    const from = look.ram.slot;
    const current = parseSlotText(look.file, from);
    const pending = differences(targetOfSlot(current.data), look.ram, `slot ${from}'s file`);
    const save = pending.length > 0 && !discard_changes;
    if (from === slot && !discard_changes) {
      // The menu saves and reloads the same slot: after the save, the board already is the file.
      if (save) await saveActive(board, look.ram);
      return {
        slot,
        previous_slot: from,
        saved_previous: save,
        discarded: [],
        loaded_from: current.saved || save ? ('file' as const) : ('power_on_default' as const),
        restored: true,
        differences: [],
        not_restored: [],
      };
    }
    const loaded = await loadSlot(board, safety, slot, look.target, slot, async () => {
      if (save) await saveActive(board, look.ram);
    });
    if (loaded.ram.slot !== slot) {
      throw new ToolError(
        'not_applied',
        `The board is on slot ${loaded.ram.slot} after switching to ${slot}.`,
      );
    }
    return {
      slot,
      previous_slot: from,
      saved_previous: save,
      discarded: discard_changes ? listed(pending) : [],
      loaded_from: loaded.loadedFrom,
      restored: loaded.diffs.length === 0,
      differences: listed(loaded.diffs),
      not_restored: loaded.notes,
    };
  },
});

export const slotDiscard = defineTool({
  name: 'slot_discard',
  title: 'Discard unsaved changes',
  description: `Put the active slot's file back on the board (as slot_switch loads it), dropping how the board differs from it. ${AUTOSAVE_NOTE} So this only helps within that second, or after a switch_slot() run in Python; to go back further use state_snapshot before changing things and state_undo after.`,
  group: 'slots',
  kind: 'destructive',
  capability: 'jumperless.wire',
  requires: IMAGE_REQUIRES,
  timeoutMs: 60_000,
  input: z.object({}),
  output: z.object({
    slot: z.number(),
    had_changes: z.boolean(),
    discarded: z.array(z.string()),
    restored: z.boolean(),
    differences: z.array(z.string()),
    not_restored: z.array(z.string()),
  }),
  handle: async (_args, { board, safety }) => {
    const look = await readSlotLook(board);
    const slot = look.ram.slot;
    if (!isSavableSlot(slot)) {
      throw new ToolError('bad_slot', `The board is on slot ${slot}, which has no file to go back to.`);
    }
    const current = parseSlotText(look.file, slot);
    const pending = differences(targetOfSlot(current.data), look.ram, `slot ${slot}'s file`);
    if (pending.length === 0) {
      return { slot, had_changes: false, discarded: [], restored: true, differences: [], not_restored: [] };
    }
    const loaded = await loadSlot(board, safety, slot, look.file, null, async () => {});
    return {
      slot,
      had_changes: true,
      discarded: listed(pending),
      restored: loaded.diffs.length === 0,
      differences: listed(loaded.diffs),
      not_restored: loaded.notes,
    };
  },
});

export default [slotCurrent, slotHasChanges, slotSave, slotSwitch, slotDiscard];
