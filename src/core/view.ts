/**
 * The board in view (issue 25): what every open page and app is shown, kept once per process.
 * While someone watches, a change of the board (a tool that may change it succeeded) is read
 * once and handed to every watcher; reads never overlap, and changes that arrive during a read are
 * folded into one more read. Nobody watching: nothing is read. Tool calls are told as their audit
 * events.
 *
 * Watching never delays a tool call: where the board has a telemetry port (CDC3), the view reads
 * it (the state JSON and the LEDs), never the REPL; where it has none, it reads the same resources a
 * client reads, in turns that yield to every caller (device/turns.ts `yields`). Either way one
 * renderer (tools/resources.ts: the state document and boardPicture's PNG) draws what the page, the
 * app and `board_picture` show. And the view acts on a call only after its response has gone.
 */
import { type BoardNotes, withResult } from '../tools/boardNotes.js';
import { viewDocument } from '../tools/viewPage.js';
import type { AuditEvent } from './audit.js';
import { CAPABILITIES } from './capabilities.js';
import type { Dispatcher } from './dispatcher.js';
import { lookRenderer } from './lookRender.js';
import { readResource } from './offers.js';
import type { Caller } from './runTool.js';

/** One look at the board. */
export interface BoardLook {
  /** Counts looks since the process started. */
  seq: number;
  /** ISO time the read ended. */
  time: string;
  /** The tool whose change this look shows (undefined: the first look). */
  after: string | undefined;
  /** The state document with every bridge (`jumperless://board/state`). */
  state: unknown;
  /** PNG, base64 (`jumperless://board/picture`). */
  picture: string | undefined;
  /** Where it was read: the telemetry port's address, or `repl`. */
  source: string;
  /** Why the board could not be read, when it could not. */
  error?: string;
}

export interface ViewWatcher {
  look(look: BoardLook): void;
  call(event: AuditEvent): void;
}

export interface BoardView {
  /** The last look, if any; a new watcher gets it at once and a fresh one after the next change. */
  readonly last: BoardLook | undefined;
  watch(watcher: ViewWatcher): () => void;
  /** Reads the board now (the first watcher, a page asking again). */
  refresh(after?: string): Promise<void>;
  close(): void;
}

/**
 * How long after a call has answered the view acts on it. The answer is written by then, but its
 * caller (another process) still has to be scheduled to read it, and on a machine with few cores
 * the pages and the board's port woken by the view at once compete with it: measured call by call
 * with the board and 10 pages in their own processes, answer written to answer read went 0.62 ->
 * 1.28 ms p50 when the view acted on the next turn, 0.64 -> 0.67 ms 20 ms later. The pages see
 * a change that much later, well within their 200 ms.
 */
export const AFTER_CALL_MS = 20;

/** The view reads as a caller of its own, with reading only: a person watching changes nothing. */
const VIEWER: Caller = { id: 'view', granted: new Set(CAPABILITIES.filter((c) => c === 'jumperless.read')) };

export function createBoardView(dispatcher: Dispatcher): BoardView {
  const watchers = new Set<ViewWatcher>();
  let last: BoardLook | undefined;
  let seq = 0;
  let reading: Promise<void> | undefined;
  let again: string | undefined | null = null;
  // What the telemetry port cannot tell (the latest readings, the OLED's text), from the calls that
  // made them; through the REPL the state resource carries the board's own (tools/boardNotes.ts).
  let notes: BoardNotes = { readings: [] };

  const renderer = lookRenderer();
  const find = (suffix: string) => dispatcher.resources().find((r) => r.uri.endsWith(suffix))?.uri;

  /** Through the REPL: the state and picture resources, each in a turn that yields to every caller. */
  const readRepl = async (signal: AbortSignal) => {
    const stateUri = find('/board/state');
    const pictureUri = find('/board/picture');
    const [state, picture] = await Promise.all([
      stateUri ? readResource(dispatcher, VIEWER, stateUri, signal, { yields: true }) : undefined,
      pictureUri ? readResource(dispatcher, VIEWER, pictureUri, signal, { yields: true }) : undefined,
    ]);
    const text = state?.[0] && 'text' in state[0] ? state[0].text : undefined;
    const blob = picture?.[0] && 'blob' in picture[0] ? picture[0].blob : undefined;
    return { state: text === undefined ? null : JSON.parse(text), picture: blob, source: 'repl' };
  };

  const readOnce = async (after: string | undefined): Promise<void> => {
    const signal = AbortSignal.timeout(30_000);
    let look: BoardLook;
    try {
      const telemetry = await dispatcher.telemetry();
      let read: { state: unknown; picture: string | undefined; source: string } | undefined;
      if (telemetry) {
        try {
          const reading = await telemetry.read(signal);
          read = {
            ...(await renderer.render(reading.state, reading.leds, notes)),
            source: telemetry.address,
          };
        } catch {
          // The port went quiet or answered garbage: this look comes through the REPL instead.
        }
      }
      read ??= await readRepl(signal);
      look = {
        seq: ++seq,
        time: new Date().toISOString(),
        after,
        ...read,
      };
    } catch (error) {
      look = {
        seq: ++seq,
        time: new Date().toISOString(),
        after,
        state: last?.state ?? null,
        picture: last?.picture,
        source: last?.source ?? 'repl',
        error: error instanceof Error ? error.message : String(error),
      };
    }
    last = look;
    for (const watcher of watchers) watcher.look(look);
  };

  const refresh = (after?: string): Promise<void> => {
    if (reading) {
      again = after;
      return reading;
    }
    reading = (async () => {
      let next: string | undefined | null = after;
      while (next !== null) {
        again = null;
        await readOnce(next);
        next = again;
      }
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  };

  // The dispatcher tells us while the call is still finishing: its response is not yet written.
  // Telling every page and starting a read there put that work (a write per page, the telemetry
  // port's request and the serial traffic it starts) between the tool's end and its caller's
  // answer: about 0.7 ms a call with 10 pages (bench/view.ts). So the view only takes note there
  // and acts AFTER_CALL_MS later, once the answer has gone and been read; in order, and nothing
  // once closed.
  let closed = false;
  const later = (act: () => void) => {
    setTimeout(() => {
      if (!closed) act();
    }, AFTER_CALL_MS);
  };
  const unfollowBoard = dispatcher.onBoardChange((tool) => {
    if (watchers.size > 0) later(() => void refresh(tool));
  });
  // A reading changes no board but shows in every drawing of it: one more look follows it.
  const unfollowResults = dispatcher.onResult((tool, args, result) => {
    const before = notes;
    notes = withResult(notes, tool, args, result);
    if (notes !== before && watchers.size > 0) later(() => void refresh(tool));
  });
  const unfollowCalls = dispatcher.onCall((event) => {
    if (event.caller === VIEWER.id || watchers.size === 0) return;
    later(() => {
      for (const watcher of watchers) watcher.call(event);
    });
  });

  return {
    get last() {
      return last;
    },
    watch(watcher) {
      watchers.add(watcher);
      renderer.start();
      if (last) watcher.look(last);
      else void refresh();
      return () => watchers.delete(watcher);
    },
    refresh,
    close() {
      closed = true;
      unfollowBoard();
      unfollowCalls();
      unfollowResults();
      renderer.close();
      watchers.clear();
    },
  };
}

/** The browser page (tools/viewPage.ts), made once. */
let page: string | undefined;
export function viewPageDocument(): string {
  page ??= viewDocument('page');
  return page;
}
