/**
 * This server's changes to a board, newest last, for `undo` (stateUndo.ts): each entry holds what a
 * tool changed as it was before and after (a snapshot of just the parts it touched), so undo puts
 * back exactly that part and names it, and leaves alone what others changed since. Kept host-side
 * per board, like the snapshots. Measurements never write here: their temporary bridges are no
 * change of the board.
 *
 * A slot switch ends the list: what came before belongs to another slot's wiring.
 */
import type { BoardClient } from '../device/board.js';
import { customNetName, type StateDocument } from './boardState.js';

export type BridgeRow = readonly [number, number, number];

/** A GPIO pin as undo puts it back. `pwm` is null when no PWM runs (or its setting is unknown: `unknown_pwm`). */
export interface PinState {
  direction: 'INPUT' | 'OUTPUT';
  pull: 'PULLUP' | 'PULLDOWN' | 'NO_PULL' | 'BUS_KEEPER';
  level: 'HIGH' | 'LOW';
  pwm: { frequency: number; duty: number } | null;
  /** PWM ran, at a frequency this server did not set (started outside it). */
  unknown_pwm?: boolean;
}

/** An overlay as the board lists it (canvas position, size, RRGGBB per pixel). */
export interface OverlayState {
  name: string;
  row: number;
  col: number;
  width: number;
  height: number;
  colors: readonly string[];
}

export interface Change {
  id: number;
  /** The tool that made it. */
  tool: string;
  /** What it did, in words: `connect 50-TOP_RAIL`, `dac_set TOP_RAIL 0 V -> 5 V`. */
  label: string;
  at: string;
  bridges?: { before: readonly BridgeRow[]; after: readonly BridgeRow[] };
  /** Custom net names the change dropped, by a member node (nets renumber). */
  names?: ReadonlyArray<readonly [string, string]>;
  power?: ReadonlyArray<{ channel: number; before: number; after: number }>;
  pins?: ReadonlyArray<{ pin: number; before: PinState; after: PinState }>;
  overlays?: { before: readonly OverlayState[]; after: readonly OverlayState[] };
}

interface Journal {
  changes: Change[];
  /** Why the list is empty when a slot change ended it. */
  endedBy?: string;
  /**
   * The PWM that slot change started, by pin (the slot file's rate): this server knows its rate as
   * well as a pwm_start's, until a later change to the pin says otherwise.
   */
  startedPwm?: ReadonlyMap<number, NonNullable<PinState['pwm']>>;
}

const MAX_CHANGES = 32;
const journals = new Map<string, Journal>();
let nextId = 1;

const journalOf = (board: BoardClient): Journal => {
  let journal = journals.get(board.id);
  if (!journal) {
    journal = { changes: [] };
    journals.set(board.id, journal);
  }
  return journal;
};

/** Writes down a change this server made (after the tool checked it took effect). */
export function recordChange(board: BoardClient, change: Omit<Change, 'id' | 'at'>): void {
  const journal = journalOf(board);
  journal.changes.push({ ...change, id: nextId++, at: new Date().toISOString() });
  if (journal.changes.length > MAX_CHANGES) journal.changes.splice(0, journal.changes.length - MAX_CHANGES);
  delete journal.endedBy;
}

/**
 * A whole-board change (a slot switch): earlier changes cannot be undone past it. `pwm`: the PWM it
 * started (checked running), whose rate gpio_get and state_get then report.
 */
export function endJournal(
  board: BoardClient,
  by: string,
  pwm: ReadonlyArray<{ pin: number; frequency: number; duty: number }> = [],
): void {
  const startedPwm = new Map(pwm.map((p) => [p.pin, { frequency: p.frequency, duty: p.duty }]));
  journals.set(board.id, { changes: [], endedBy: by, startedPwm });
}

export const lastChange = (board: BoardClient): Change | undefined => journalOf(board).changes.at(-1);
export const journalEnd = (board: BoardClient): string | undefined => journalOf(board).endedBy;
export const changeCount = (board: BoardClient): number => journalOf(board).changes.length;

export function dropChange(board: BoardClient, id: number): void {
  const journal = journalOf(board);
  journal.changes = journal.changes.filter((c) => c.id !== id);
}

/** The PWM this server last started on a pin, if the journal still holds it (to undo a pwm_stop). */
export function knownPwm(board: BoardClient, pin: number): PinState['pwm'] {
  for (const change of [...journalOf(board).changes].reverse()) {
    const p = change.pins?.find((x) => x.pin === pin);
    if (p?.after.pwm) return p.after.pwm;
    if (p?.before.pwm) return p.before.pwm;
  }
  return journalOf(board).startedPwm?.get(pin) ?? null;
}

/**
 * The PWM this server's last change to `pin` left running, or null (its last change stopped it or
 * drove a level; none changed it, and no slot restore here started it). Not knownPwm's
 * before-states: a PWM stopped here and started again by a script is not at the rate this server
 * once set.
 */
export function pwmLeftRunning(board: BoardClient, pin: number): PinState['pwm'] {
  for (const change of [...journalOf(board).changes].reverse()) {
    const p = change.pins?.find((x) => x.pin === pin);
    if (p) return p.after.pwm;
  }
  return journalOf(board).startedPwm?.get(pin) ?? null;
}

/** Bridges in `a` that `b` lacks (by their two ends), with `a`'s duplicates. */
export function bridgesMissing(a: readonly BridgeRow[], b: readonly BridgeRow[]): BridgeRow[] {
  const key = ([x, y]: BridgeRow) => (x < y ? `${x}-${y}` : `${y}-${x}`);
  const inB = new Set(b.map(key));
  return a.filter((row) => !inB.has(key(row)));
}

/** The custom net names of a state, each by its first node, for the journal. */
export function namesOf(state: StateDocument): Array<[string, string]> {
  return state.nets.flatMap((net) => {
    const name = customNetName(net);
    const node = net.nodes[0];
    return name !== undefined && node !== undefined ? [[node, name] as [string, string]] : [];
  });
}
