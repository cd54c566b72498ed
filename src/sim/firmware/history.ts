/**
 * Undo / redo (`undo`, `redo`, `history_*`), after the firmware's Undo.cpp:
 *
 * - Each slot has its own list of transactions; undo and redo walk the active slot's list only
 *   (Undo.cpp:122-144, 2295-2330).
 * - Every new bridge and every removed bridge is its own transaction, recorded as it happens
 *   (Undo.cpp:2052-2127), labelled `connect <a>-<b>` / `disconnect <a>-<b>` with the nodes' short names
 *   and cut to 22 characters (Undo.cpp:944-955; UndoTxn.label[23]). Changing an existing bridge's
 *   duplicate count is not recorded (States.cpp:609-626), nor are bridges among BUFFER_IN, DAC0 and
 *   DAC1, which the probe-power code manages (Undo.cpp:2095-2105). `nodes_clear()` is one `Clear All`
 *   transaction that keeps a snapshot of what it cleared (Undo.cpp:2135-2168).
 * - A reverted connect removes the bridge; a reverted disconnect adds it back with the default count
 *   (Undo.cpp:446-520: the ops carry no count).
 * - `history_position()` is 0 at the newest transaction and -N after N undos (Undo.cpp:2359);
 *   recording after undos drops the undone ones (Undo.cpp:1913-1940). `history_label(k)`: 0 is what
 *   the next undo reverts, -1 the one before, +1 what the next redo applies (Undo.cpp:2375-2405).
 * - The V5 has PSRAM, so `history_snapshot()` works and keeps up to 16 snapshots (Undo.cpp:632-637).
 *
 * - A stored supply setpoint change (`dac_set` with save) is a step too, labelled `DAC 0 3.30V`,
 *   `DAC 1 ...`, `Top Rail ...`, `Bot Rail ...` (States.cpp:986-1019, Undo.cpp:956-967); another
 *   change of the same channel within 1.2 s, with nothing undone, retargets that step instead
 *   (Undo.cpp:155, 2184-2209). Undo puts the setpoint and the output back (Undo.cpp:501-507, 2290-2291).
 * - The ring holds a release's number of transactions (firmware.ts `undoTransactions`); the oldest go.
 *
 * Not modelled: the board keeps the newest transactions in `/undo_history.txt` across reboots; here the
 * history lasts one boot.
 */
import { BUFFER_IN, DAC0, DAC1, shortName } from '../../board/nodes.js';
import { asInt } from './args.js';
import { type Hardware, type HistoryTxn, type SlotHistory, touch } from './hardware.js';
import type { FirmwareFunctions } from './types.js';

/** UndoTxn.label is char[23]. */
const LABEL_MAX = 22;
/** Undo.cpp:637: 16 snapshots with PSRAM. */
const SNAPSHOT_CAP = 16;

function slotHistory(hw: Hardware): SlotHistory {
  let h = hw.history.slots.get(hw.slot);
  if (!h) {
    h = { txns: [], cursor: 0 };
    hw.history.slots.set(hw.slot, h);
  }
  return h;
}

/** Records one transaction on the active slot, dropping any undone ones first. */
export function recordTxn(hw: Hardware, txn: HistoryTxn): void {
  const h = slotHistory(hw);
  h.txns.splice(h.cursor);
  h.txns.push({ ...txn, label: txn.label.slice(0, LABEL_MAX) });
  const cap = hw.psram
    ? hw.firmware.behaviour.undoTransactions.psram
    : hw.firmware.behaviour.undoTransactions.sram;
  if (h.txns.length > cap) h.txns.splice(0, h.txns.length - cap);
  h.cursor = h.txns.length;
  hw.history.last = hw.conns.clone();
}

const SUPPLY_NAMES = ['DAC 0', 'DAC 1', 'Top Rail', 'Bot Rail'];
const supplyLabel = (ch: number, volts: number): string =>
  `${SUPPLY_NAMES[ch] ?? 'DAC'} ${volts.toFixed(2)}V`;

/**
 * A stored supply setpoint moved from `prev` to `next` (already applied); `set` puts a setpoint and
 * the output back.
 */
export function recordSupplyChange(
  hw: Hardware,
  ch: number,
  prev: number,
  next: number,
  set: (volts: number) => void,
): void {
  if (prev === next) return;
  const h = slotHistory(hw);
  const last = h.txns[h.txns.length - 1];
  const now = hw.now();
  if (
    last?.supply?.ch === ch &&
    h.cursor === h.txns.length &&
    now - last.supply.at <= hw.firmware.behaviour.supplyUndoMergeMs
  ) {
    const first = last.supply.prev;
    last.supply = { ch, prev: first, next, at: now };
    last.label = supplyLabel(ch, next).slice(0, LABEL_MAX);
    last.revert = () => set(first);
    last.apply = () => set(next);
    return;
  }
  recordTxn(hw, {
    label: supplyLabel(ch, next),
    supply: { ch, prev, next, at: now },
    revert: () => set(prev),
    apply: () => set(next),
  });
}

const AUTO_MANAGED = new Set([BUFFER_IN, DAC0, DAC1]);

/** A new bridge (`connect`) or a removed one (`disconnect`), already applied to `hw.conns`. */
export function recordBridgeChange(hw: Hardware, kind: 'connect' | 'disconnect', a: number, b: number): void {
  if (AUTO_MANAGED.has(a) && AUTO_MANAGED.has(b)) return;
  const add = (): void => {
    hw.conns.connect(a, b);
  };
  const remove = (): void => {
    hw.conns.disconnect(a, b);
  };
  recordTxn(hw, {
    label: `${kind} ${shortName(a)}-${shortName(b)}`,
    revert: kind === 'connect' ? remove : add,
    apply: kind === 'connect' ? add : remove,
  });
}

/** Counts a snapshot in the ring (Clear All takes one; history_snapshot() too). */
export function takeSnapshot(hw: Hardware): void {
  hw.history.snapshots = Math.min(SNAPSHOT_CAP, hw.history.snapshots + 1);
}

/** `nodes_clear()`: snapshot, clear, and one `Clear All` transaction (States.cpp:720-739). */
export function recordClearAll(hw: Hardware): void {
  takeSnapshot(hw);
  const before = hw.conns.clone();
  hw.conns.clear();
  touch(hw);
  recordTxn(hw, {
    label: 'Clear All',
    revert: () => {
      hw.conns = before.clone();
    },
    apply: () => {
      hw.conns.clear();
    },
  });
}

/**
 * A whole-state change another group already made (set_state, slot load, discard): reverting puts
 * back the connections as they were at the previous recorded step.
 */
export function recordChange(hw: Hardware, label: string): void {
  const before = hw.history.last.clone();
  const after = hw.conns.clone();
  recordTxn(hw, {
    label,
    revert: () => {
      hw.conns = before.clone();
    },
    apply: () => {
      hw.conns = after.clone();
    },
  });
}

function undo(hw: Hardware): boolean {
  const h = slotHistory(hw);
  const txn = h.txns[h.cursor - 1];
  if (!txn) return false;
  txn.revert();
  h.cursor--;
  hw.history.last = hw.conns.clone();
  touch(hw);
  return true;
}

function redo(hw: Hardware): boolean {
  const h = slotHistory(hw);
  const txn = h.txns[h.cursor];
  if (!txn) return false;
  txn.apply();
  h.cursor++;
  hw.history.last = hw.conns.clone();
  touch(hw);
  return true;
}

const position = (hw: Hardware): number => {
  const h = slotHistory(hw);
  return h.cursor - h.txns.length;
};

export function historyGroup(hw: Hardware): FirmwareFunctions {
  return {
    undo: () => undo(hw),
    redo: () => redo(hw),
    history_position: () => position(hw),
    history_size: () => slotHistory(hw).txns.length,
    history_label: (offset = 0) => {
      const h = slotHistory(hw);
      const k = asInt(offset);
      // 0 -> the last applied one, -1 -> the one before, +1 -> the next redo.
      const txn = h.txns[k >= 1 ? h.cursor + k - 1 : h.cursor - 1 + k];
      return txn ? txn.label || '(unlabeled)' : '';
    },
    history_jump: (target) => {
      // Undo.cpp:2425 undoScrubTo: steps one at a time; a step that fails ends it with False.
      const t = asInt(target);
      while (position(hw) !== t) {
        if (!(position(hw) > t ? undo(hw) : redo(hw))) return false;
      }
      return true;
    },
    history_snapshot: () => {
      takeSnapshot(hw);
      return true;
    },
    history_snapshot_count: () => hw.history.snapshots,
  };
}
