/**
 * What the session knows about the line to the board, as a pure state machine (no timers, no I/O):
 * whether code may be running on the board, whether a byte of ours may be waiting ahead of a
 * Ctrl-C, raw mode, a clean line, the helpers. `advance` is the only way the state changes; the
 * driver calls it for every byte it writes and every reply it reads, the session for what it
 * learns (a sync, the helpers). `nextStep` says what a job needs first; `mayWrite` says what may go
 * on the wire now.
 *
 * The wedge (issue 21). While a script runs from the raw REPL, nothing on the board reads its REPL
 * port: MpRemoteService::service() returns at its re-entrancy guard, and the only reader is
 * check_stream_for_interrupt(), which peeks at the FIRST byte waiting and consumes it only when it
 * is 0x03/0x11 (KeyboardInterrupt) or 0x04 (SystemExit) (src/Python_Proper.cpp:497-549 at 5.7.0.13;
 * src/snakes/Python_Proper.cpp at Architeuthis-Flux/JumperlOS 313f52e, which skips leading CR/LF
 * only for scripts that do not own the REPL port). Any other byte at the head hides every Ctrl-C
 * behind it until the script ends by itself; a script that never ends then holds the board until a
 * wheel hold or a power cycle. So the host writes nothing but Ctrl-C while code of its own may run,
 * and no Ctrl-C at all behind a byte that may not have been read.
 */

/**
 * Whether code may be running on the board.
 * - `idle`: the REPL came back (a prompt, the end of a reply, a banner) and nothing was sent since.
 * - `starting`: an exec request went out and the board has not said `OK`: it may still sit unread.
 * - `pasting`: the board accepted a raw paste and reads our code as data (Ctrl-C still interrupts).
 * - `running`: the board took our code (`OK`) and its reply has not ended.
 * - `unknown`: a link just opened, or Ctrl-Cs brought no end: something may run, or nothing.
 */
export type ScriptState = 'idle' | 'starting' | 'pasting' | 'running' | 'unknown';

export interface LineState {
  readonly script: ScriptState;
  /**
   * A byte other than Ctrl-C went out while the REPL may not have been reading (a raw-mode request
   * while a script may run, a request never acknowledged): it may wait ahead of any Ctrl-C we send.
   * Survives a reopen of the port (the board keeps its input buffer); cleared when the REPL shows
   * it read its input (a prompt, the end of a reply, a banner, a soft reboot).
   */
  readonly parked: boolean;
  /** The REPL is in raw mode. */
  readonly raw: boolean;
  /** No stale reply can still arrive: a sync proved it, and no stray byte came since. */
  readonly synced: boolean;
  /** The driver's stray-byte count at the last sync; more since means another sync. */
  readonly strayAtSync: number;
  /** `_jlh` is on the board (`on`), may be (`check`: a reopen, a Ctrl-B banner), or is lost. */
  readonly helpers: 'on' | 'check' | 'gone';
  /** How many of the added helper namespaces are on the board (they are sent in order). */
  readonly sent: number;
  /** Before the next prime, put the firmware's names back in the globals (a helper hit a NameError). */
  readonly restoreGlobals: boolean;
}

/** What the host writes: each kind has its own rule in `mayWrite`. */
export type Send =
  /** 0x03: interrupts a running script; on an idle raw line it clears the input. */
  | 'interrupt'
  /** 0x01 or 0x02 (enter raw mode, leave it): read only by an idle REPL. */
  | 'mode'
  /** Code + 0x04 (a job, a sync, a setup step): runs once the REPL reads the 0x04. */
  | 'exec'
  /** `\x05A\x01`, asking for a raw paste. */
  | 'pasteRequest'
  /** Code inside an accepted raw paste, and its closing 0x04. */
  | 'pasteData'
  | 'pasteEnd';

export type LineEvent =
  | { type: 'sent'; what: Send }
  /** The board acknowledged an exec with `OK`. */
  | { type: 'ok' }
  | { type: 'pasteAccepted' }
  | { type: 'pasteRefused' }
  /** An exec reply ended at the raw prompt (`\x04...\x04>`); `anomaly`: bytes out of step inside it. */
  | { type: 'result'; anomaly: boolean }
  /** The raw-REPL header. */
  | { type: 'prompt' }
  /** A banner: the board booted, or Ctrl-B took it to the friendly prompt. */
  | { type: 'banner' }
  /** `soft reboot`: a new VM; the board drops what waited in its input (jl_soft_reboot). */
  | { type: 'softReboot' }
  /** A reply came with bytes out of step: the rest of it, or older replies, may still arrive. */
  | { type: 'garbled' }
  /** A sync's own reply came back clean; `strays`: the driver's stray-byte count then. */
  | { type: 'synced'; strays: number }
  /**
   * The host stopped waiting for the reply to its last request. `echoed`: the board printed the
   * request back before any `OK` (a friendly REPL typing it), so it was read, not left waiting.
   */
  | { type: 'abandoned'; echoed: boolean }
  /** Ctrl-Cs spaced past the firmware's debounce brought no end of the running script. */
  | { type: 'unanswered' }
  /** The port was (re)opened: nothing is known of the board's side but what it kept. */
  | { type: 'opened' }
  /** The helper check's answer. */
  | { type: 'helperCheck'; present: boolean }
  /** `_jlh` itself was sent. */
  | { type: 'coreSent' }
  /** The next added helper namespace was sent. */
  | { type: 'helperSent' }
  /** A helper job hit a NameError: a global it relies on is gone. */
  | { type: 'helperMissing' }
  | { type: 'globalsRestored' };

/** A board not yet opened: nothing known, the helpers to be checked. */
export const INITIAL_LINE: LineState = {
  script: 'unknown',
  parked: false,
  raw: false,
  synced: false,
  strayAtSync: 0,
  helpers: 'check',
  sent: 0,
  restoreGlobals: false,
};

/** The REPL read everything we sent and is idle. */
function replBack(state: LineState): LineState {
  return { ...state, script: 'idle', parked: false };
}

export function advance(state: LineState, event: LineEvent): LineState {
  switch (event.type) {
    case 'sent':
      return afterSend(state, event.what);
    case 'ok':
      return state.script === 'starting' ? { ...state, script: 'running' } : state;
    case 'pasteAccepted':
      return { ...state, script: 'pasting' };
    case 'pasteRefused':
      return replBack(state);
    case 'result':
      return { ...replBack(state), synced: state.synced && !event.anomaly };
    case 'prompt':
      return { ...replBack(state), raw: true, synced: false };
    case 'banner':
      return {
        ...replBack(state),
        raw: false,
        synced: false,
        helpers: state.helpers === 'gone' ? 'gone' : 'check',
      };
    case 'softReboot':
      return { ...replBack(state), synced: false, helpers: 'gone', sent: 0 };
    case 'garbled':
      return { ...state, synced: false };
    case 'synced':
      return { ...replBack(state), synced: true, strayAtSync: event.strays };
    case 'abandoned':
      // A request the board never acknowledged may wait unread behind a script we did not see.
      if (state.script !== 'starting') return state;
      return { ...state, script: 'unknown', parked: state.parked || !event.echoed };
    case 'unanswered':
      return state.script === 'running' || state.script === 'starting'
        ? { ...state, script: 'unknown' }
        : state;
    case 'opened':
      return {
        ...state,
        script: 'unknown',
        parked: state.parked || state.script === 'starting',
        raw: false,
        synced: false,
        helpers: state.helpers === 'on' ? 'check' : state.helpers,
      };
    case 'helperCheck':
      return event.present ? { ...state, helpers: 'on' } : { ...state, helpers: 'gone', sent: 0 };
    case 'coreSent':
      return { ...state, helpers: 'on', sent: 0 };
    case 'helperSent':
      return { ...state, sent: state.sent + 1 };
    case 'helperMissing':
      return { ...state, helpers: 'gone', sent: 0, restoreGlobals: true };
    case 'globalsRestored':
      return { ...state, restoreGlobals: false };
  }
}

function afterSend(state: LineState, what: Send): LineState {
  switch (what) {
    case 'interrupt':
      return state;
    case 'mode':
      // Read at once by an idle REPL; otherwise it waits at the head until the REPL is back.
      return state.script === 'idle' ? state : { ...state, parked: true };
    case 'exec':
      return { ...state, script: 'starting' };
    case 'pasteRequest':
      return state;
    case 'pasteData':
      return state;
    case 'pasteEnd':
      return { ...state, script: 'running' };
  }
}

/**
 * Whether `what` may be written now without risking the wedge, or (for code) without it landing
 * somewhere other than an idle raw REPL.
 */
export function mayWrite(state: LineState, what: Send): boolean {
  switch (what) {
    case 'interrupt':
      // Behind a parked byte it would be hidden; behind an unacknowledged request, maybe too.
      return !state.parked && state.script !== 'starting';
    case 'mode':
      // The one byte sent while a script may run, after Ctrl-Cs went unanswered (see
      // `unanswered`): it parks, and from then on no Ctrl-C goes out until the REPL is back.
      return state.parked || state.script === 'idle' || state.script === 'unknown';
    case 'exec':
    case 'pasteRequest':
      return state.script === 'idle' && !state.parked && state.raw;
    case 'pasteData':
    case 'pasteEnd':
      return state.script === 'pasting';
  }
}

/** Why `what` may not go out now, for the error that refuses it. */
export function refusal(state: LineState, what: Send): string {
  if (what === 'interrupt') {
    return state.parked
      ? 'a byte sent earlier may still wait ahead of it on the board, which would hide this Ctrl-C until the running script ends (the firmware reads only the first byte waiting)'
      : 'the board has not acknowledged the last request, which may still wait unread ahead of this Ctrl-C';
  }
  if (what === 'mode') return 'code of ours is running: anything but Ctrl-C would hide the next Ctrl-C';
  if (what === 'pasteData' || what === 'pasteEnd') return 'the board is not reading a raw paste';
  return `the board is not at an idle raw prompt (${state.script}${state.parked ? ', a byte parked' : ''}${state.raw ? '' : ', not raw'})`;
}

/** What a job needs before it can run, one step at a time (the session loops until `run`). */
export type Step =
  /** Reach an idle raw prompt (ReplDriver.enterRaw). */
  | 'enterRaw'
  /** Prove no stale reply is still coming (ReplDriver.sync). */
  | 'sync'
  /** `from jumperless import *`: a helper hit a NameError. */
  | 'restoreGlobals'
  /** Ask whether `_jlh` survived (a reopen, a Ctrl-B banner). */
  | 'checkHelpers'
  /** Send `_jlh`. */
  | 'sendCore'
  /** Send the next added helper namespace. */
  | 'sendHelper'
  | 'run';

/**
 * The next step before a job. `strays`: the driver's stray-byte count now; `helpers`: how many
 * helper namespaces were added to the session.
 */
export function nextStep(state: LineState, strays: number, helpers: number): Step {
  if (state.script !== 'idle' || state.parked || !state.raw) return 'enterRaw';
  if (!state.synced || strays !== state.strayAtSync) return 'sync';
  if (state.restoreGlobals) return 'restoreGlobals';
  if (state.helpers === 'check') return 'checkHelpers';
  if (state.helpers === 'gone') return 'sendCore';
  if (state.sent < helpers) return 'sendHelper';
  return 'run';
}
