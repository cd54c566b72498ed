/**
 * Undo / redo of connection changes (spec §6.3: `undo`, `redo`, `history_*`, missing from the API
 * docs). The journal keeps a snapshot of the bridges after every change; `entries[position]` is the
 * present, so `history_size()` counts the changes and `history_position()` how many are applied.
 * Only connections are journalled (power setpoints are not), and the journal is per boot, not per
 * slot (inferred: the firmware's undo stack is not documented).
 */
import { asInt } from './args.js';
import { type Hardware, touch } from './hardware.js';
import type { FirmwareFunctions } from './types.js';

const MAX_ENTRIES = 64;

/** Journals the present connections under `label`, dropping any redo tail. */
export function recordChange(hw: Hardware, label: string): void {
  const h = hw.history;
  h.entries.splice(h.position + 1);
  h.entries.push({ label, conns: hw.conns.clone() });
  if (h.entries.length > MAX_ENTRIES) h.entries.splice(0, h.entries.length - MAX_ENTRIES);
  h.position = h.entries.length - 1;
}

function jumpTo(hw: Hardware, target: number): boolean {
  const entry = hw.history.entries[target];
  if (!entry || target === hw.history.position) return false;
  hw.conns = entry.conns.clone();
  hw.history.position = target;
  touch(hw);
  return true;
}

export function historyGroup(hw: Hardware): FirmwareFunctions {
  return {
    undo: () => jumpTo(hw, hw.history.position - 1),
    redo: () => jumpTo(hw, hw.history.position + 1),
    history_position: () => hw.history.position,
    history_size: () => hw.history.entries.length - 1,
    history_label: (offset = 0) => hw.history.entries[hw.history.position + asInt(offset)]?.label ?? '',
    history_jump: (n) => jumpTo(hw, asInt(n)),
    history_snapshot: () => {
      recordChange(hw, 'python');
      hw.history.forced++;
      return true;
    },
    history_snapshot_count: () => hw.history.forced,
  };
}
