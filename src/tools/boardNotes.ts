/**
 * What the board's state cannot tell but the person at the bench wants to see (issue 25 item 1):
 * the latest measurements tool calls made and the text the last `oled_print` put on the OLED (the
 * firmware has no way to read the OLED back). Kept per board, written by the device tools' wrapper
 * (tool.ts) after a call succeeds, and read by the one renderer (resources.ts: the state document
 * and the picture), so `board_picture`, the MCP App and the page show the same.
 */
import type { Board } from '../device/board.js';

/** One measurement a tool call made. */
export interface Reading {
  /** ISO time the call ended. */
  time: string;
  tool: string;
  /** What was measured: a node, or `current`. */
  what: string;
  value: number;
  unit: 'V' | 'mA';
}

export interface BoardNotes {
  /** Newest first, at most MAX_READINGS. */
  readings: Reading[];
  /** What the last oled_print showed ('' after oled_clear); undefined until one ran. */
  oled?: string;
}

export const MAX_READINGS = 8;

/** The measurement in a tool's result, if it is one (a bench's tools carry a device prefix). */
export function readingOf(tool: string, args: unknown, result: unknown): Reading | undefined {
  const name = tool.slice(tool.lastIndexOf('.') + 1);
  if (typeof result !== 'object' || result === null) return undefined;
  const out = result as Record<string, unknown>;
  const time = new Date().toISOString();
  if (typeof out.volts === 'number' && (name === 'voltage_measure' || name === 'measure')) {
    const node = typeof out.node === 'string' ? out.node : String((args as { node?: unknown })?.node ?? '?');
    return { time, tool: name, what: node, value: out.volts, unit: 'V' };
  }
  if (typeof out.milliamps === 'number' && (name === 'current_measure' || name === 'measure')) {
    return { time, tool: name, what: 'current', value: out.milliamps, unit: 'mA' };
  }
  return undefined;
}

/** `notes` after a successful call of `tool`: the same object when the call adds nothing. */
export function withResult(notes: BoardNotes, tool: string, args: unknown, result: unknown): BoardNotes {
  const name = tool.slice(tool.lastIndexOf('.') + 1);
  const reading = readingOf(tool, args, result);
  if (reading) return { ...notes, readings: [reading, ...notes.readings].slice(0, MAX_READINGS) };
  if (name === 'oled_print') return { ...notes, oled: String((args as { text?: unknown })?.text ?? '') };
  if (name === 'oled_clear') return { ...notes, oled: '' };
  return notes;
}

const EMPTY: BoardNotes = { readings: [] };
const kept = new WeakMap<Board, BoardNotes>();

/** The notes kept for one board (none yet: empty). */
export function notesOf(board: Board | undefined): BoardNotes {
  return (board && kept.get(board)) || EMPTY;
}

/** Records a successful call on `board`. */
export function noteResult(board: Board, tool: string, args: unknown, result: unknown): void {
  const before = notesOf(board);
  const after = withResult(before, tool, args, result);
  if (after !== before) kept.set(board, after);
}

/** The notes as the state document carries them: nothing at all until there is something. */
export function notesFields(notes: BoardNotes | undefined): { readings?: Reading[]; oled?: string } {
  if (!notes) return {};
  return {
    ...(notes.readings.length > 0 ? { readings: notes.readings } : {}),
    ...(notes.oled === undefined ? {} : { oled: notes.oled }),
  };
}
