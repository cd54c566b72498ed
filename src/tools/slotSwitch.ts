/**
 * Loading a slot file onto the board, as the board's own menu `<N` does (main.cpp:1194-1272):
 * slot_switch (save the active slot, then load the new one) and slot_discard (load the active
 * slot's file again), each checked against the file afterwards.
 */
import { z } from 'zod';
import { isSavableSlot, type SlotData, slotPath } from '../board/slots.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { readRam, readSlotLook } from './boardState.js';
import { endJournal } from './journal.js';
import { differences, listed, planTarget, putTarget, RESTORE_REQUIRES, targetOfSlot } from './restorePlan.js';
import type { SafetyPolicy } from './safety.js';
import { keepSlotFile, parseSlotText, saveActive, slotField } from './slotFile.js';
import { defineDeviceTool } from './tool.js';

/** What a slot file holds that putting it on the board through the API cannot restore. */
function slotLosses(slot: SlotData, skipped: readonly string[]): string[] {
  const out: string[] = [];
  const colored = slot.bridges.filter((b) => b.color !== undefined).length;
  if (colored > 0) out.push(`${colored} bridge colour(s): the API cannot set bridge colours`);
  if (slot.config.fakeGpio.length > 0) {
    out.push(`${slot.config.fakeGpio.length} fake GPIO setting(s): set them again with fake_gpio_config`);
  }
  slot.config.gpio.pwmEnabled.forEach((on, i) => {
    // GPIO_1..8 run PWM again (putTarget); the UART pins have none.
    if (on && i >= 8) out.push(`PWM on the UART pin ${i === 8 ? 'TX' : 'RX'} is not started`);
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

const loadOutput = z.object({
  slot: z.number(),
  previous_slot: z.number(),
  saved_previous: z
    .boolean()
    .describe('The previous slot was saved first because the board differed from its file'),
  discarded: z.array(z.string()).describe('Differences from the previous slot file that were dropped'),
  previous_changes: z
    .string()
    .describe('In words: whether the slot left had unsaved changes, and what became of them'),
  loaded_from: z.enum(['file', 'power_on_default']),
  restored: z.boolean().describe('The board matches the slot file in everything compared'),
  differences: z.array(z.string()),
  not_restored: z
    .array(z.string())
    .describe('What the file holds that the API cannot put back, or that was kept safe'),
  note: z.string().describe('Where the board saves changes from now on'),
});

/**
 * Loads a slot's file onto the board (the power-on state for a slot never saved), PWM included, and
 * compares the board with the file. Then it saves at once, so no dirty state is left for the
 * autosave to carry elsewhere; when the board could not take all the file holds, the file is
 * written back as it was, whole: the restore never shortens the slot's file (the board's next
 * autosave into it, after a later change, would; the notes say so).
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
  const put = await putTarget(board, plan, switchTo, false);
  const notes = [...slotLosses(file.data, file.skipped), ...put.notes];
  const ram = await readRam(board);
  board.seen.delete('connections.bridges');
  endJournal(
    board,
    switchTo === null ? `slot_discard of slot ${slot}` : `slot_switch to slot ${slot}`,
    put.pwm,
  );
  const diffs = differences(plan.target, ram, `slot ${slot}'s file`);
  if ((notes.length > 0 || diffs.length > 0) && text !== null) {
    await keepSlotFile(board, slot, text);
    notes.push(
      `${slotPath(slot)} was kept as it was, whole; the board autosaves into it after the next change, and then without what was not restored`,
    );
  } else {
    await board.call('nodes_save()', { timeoutMs: 15_000 });
  }
  return { ram, diffs, notes, loadedFrom: file.saved ? ('file' as const) : ('power_on_default' as const) };
}

export const slotSwitch = defineDeviceTool({
  name: 'slot_switch',
  title: 'Switch slot',
  description:
    'Switch to slot 0-7 as the menu does: save the active slot (unless discard_changes), load all it holds (PWM too), autosave into it. Refused on shorts or past voltage limits.',
  group: 'slots',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['switch_slot', ...RESTORE_REQUIRES],
  timeoutMs: 60_000,
  input: z.object({
    slot: slotField,
    discard_changes: z.boolean().default(false),
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
        previous_changes: previousChanges(from, pending.length, false),
        loaded_from: current.saved || save ? ('file' as const) : ('power_on_default' as const),
        restored: true,
        differences: [],
        not_restored: [],
        note: autosaveNote(slot),
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
      previous_changes: previousChanges(from, pending.length, discard_changes),
      loaded_from: loaded.loadedFrom,
      restored: loaded.diffs.length === 0,
      differences: listed(loaded.diffs),
      not_restored: loaded.notes,
      note: autosaveNote(slot),
    };
  },
});

/** saved_previous and discarded, in words (issue 20: `saved_previous: false` read as a loss). */
function previousChanges(from: number, pending: number, discarded: boolean): string {
  if (pending === 0)
    return `Slot ${from} had no unsaved changes: its file already held the board, so nothing was saved or lost.`;
  const what = `Slot ${from} had ${pending} unsaved change${pending === 1 ? '' : 's'}`;
  return discarded
    ? `${what}; discard_changes dropped ${pending === 1 ? 'it' : 'them'} (see discarded), and ${slotPath(from)} is as it was.`
    : `${what}; ${pending === 1 ? 'it was' : 'they were'} saved into ${slotPath(from)} before switching.`;
}

const autosaveNote = (slot: number): string =>
  `Slot ${slot} is the active slot: the board autosaves every later change into ${slotPath(slot)} about a second after it.`;

export const slotDiscard = defineDeviceTool({
  name: 'slot_discard',
  title: 'Discard unsaved changes',
  description:
    "Reload the active slot's file, dropping changes not yet autosaved (about 1 s); further back: undo.",
  group: 'slots',
  kind: 'destructive',
  capability: 'jumperless.wire',
  requires: RESTORE_REQUIRES,
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
  hazard: () => "Drop the board's unsaved changes and reload the active slot?",
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
