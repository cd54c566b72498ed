/**
 * The line state as a table: every transition, what may be written in every state, the order of
 * the steps before a job, replies that come in awkward orders, and a board model driven by random
 * host turns that checks the firmware's interrupt rule is never broken.
 */
import { describe, expect, it } from 'vitest';
import {
  advance,
  INITIAL_LINE,
  type LineEvent,
  type LineState,
  mayWrite,
  nextStep,
  type ScriptState,
  type Send,
} from './lineState.js';

const IDLE: LineState = {
  script: 'idle',
  parked: false,
  raw: true,
  synced: true,
  strayAtSync: 0,
  helpers: 'on',
  sent: 2,
  restoreGlobals: false,
};

const line = (changes: Partial<LineState> = {}): LineState => ({ ...IDLE, ...changes });

describe('advance', () => {
  const rows: Array<[string, Partial<LineState>, LineEvent, Partial<LineState>]> = [
    ['an exec request waits for its OK', {}, { type: 'sent', what: 'exec' }, { script: 'starting' }],
    ['OK: the code runs', { script: 'starting' }, { type: 'ok' }, { script: 'running' }],
    ['a late OK does not restart anything', { script: 'idle' }, { type: 'ok' }, { script: 'idle' }],
    ['OK after giving up waiting is not ours', { script: 'unknown' }, { type: 'ok' }, { script: 'unknown' }],
    [
      'the end of a reply: the REPL is back',
      { script: 'running' },
      { type: 'result', anomaly: false },
      { script: 'idle', synced: true },
    ],
    [
      'a reply out of step needs a sync',
      { script: 'running' },
      { type: 'result', anomaly: true },
      { script: 'idle', synced: false },
    ],
    [
      'the end of a reply frees what was parked',
      { script: 'unknown', parked: true },
      { type: 'result', anomaly: false },
      { script: 'idle', parked: false },
    ],
    [
      'a prompt: raw, idle, unsynced',
      { script: 'unknown', raw: false, parked: true },
      { type: 'prompt' },
      { script: 'idle', raw: true, parked: false, synced: false },
    ],
    [
      'a banner: friendly, helpers to check',
      { raw: true },
      { type: 'banner' },
      { script: 'idle', raw: false, synced: false, helpers: 'check' },
    ],
    [
      'a banner does not bring back lost helpers',
      { helpers: 'gone', sent: 0 },
      { type: 'banner' },
      { helpers: 'gone', script: 'idle', raw: false, synced: false },
    ],
    [
      'a soft reboot loses every helper',
      { script: 'running' },
      { type: 'softReboot' },
      { script: 'idle', helpers: 'gone', sent: 0, synced: false },
    ],
    [
      'a sync proves the line',
      { script: 'starting', synced: false },
      { type: 'synced', strays: 7 },
      { script: 'idle', synced: true, strayAtSync: 7 },
    ],
    ['bytes out of step', {}, { type: 'garbled' }, { synced: false }],
    [
      'a request never acknowledged may be parked',
      { script: 'starting' },
      { type: 'abandoned', echoed: false },
      { script: 'unknown', parked: true },
    ],
    [
      'a request echoed back was read (friendly mode)',
      { script: 'starting' },
      { type: 'abandoned', echoed: true },
      { script: 'unknown', parked: false },
    ],
    [
      'giving up on a running job parks nothing',
      { script: 'running' },
      { type: 'abandoned', echoed: false },
      { script: 'running', parked: false },
    ],
    [
      'Ctrl-Cs unanswered: nothing known',
      { script: 'running' },
      { type: 'unanswered' },
      { script: 'unknown' },
    ],
    [
      'Ctrl-Cs unanswered while idle changes nothing',
      { script: 'idle' },
      { type: 'unanswered' },
      { script: 'idle' },
    ],
    [
      'a reopen forgets everything but what the board kept',
      { script: 'idle' },
      { type: 'opened' },
      { script: 'unknown', raw: false, synced: false, helpers: 'check', parked: false },
    ],
    [
      'a reopen keeps a parked byte',
      { script: 'unknown', parked: true },
      { type: 'opened' },
      { parked: true, raw: false, synced: false, helpers: 'check' },
    ],
    [
      'a reopen parks a request in flight',
      { script: 'starting' },
      { type: 'opened' },
      { script: 'unknown', parked: true, raw: false, synced: false, helpers: 'check' },
    ],
    [
      'a reopen keeps lost helpers lost',
      { helpers: 'gone', sent: 0 },
      { type: 'opened' },
      { helpers: 'gone', script: 'unknown', raw: false, synced: false },
    ],
    [
      'helpers found',
      { helpers: 'check' },
      { type: 'helperCheck', present: true },
      { helpers: 'on', sent: 2 },
    ],
    [
      'helpers not found',
      { helpers: 'check' },
      { type: 'helperCheck', present: false },
      { helpers: 'gone', sent: 0 },
    ],
    ['core sent', { helpers: 'gone', sent: 0 }, { type: 'coreSent' }, { helpers: 'on', sent: 0 }],
    ['one more helper sent', { sent: 2 }, { type: 'helperSent' }, { sent: 3 }],
    [
      'a helper hit a NameError',
      {},
      { type: 'helperMissing' },
      { helpers: 'gone', sent: 0, restoreGlobals: true },
    ],
    ['globals restored', { restoreGlobals: true }, { type: 'globalsRestored' }, { restoreGlobals: false }],
    ['paste accepted', {}, { type: 'pasteAccepted' }, { script: 'pasting' }],
    ['paste refused', {}, { type: 'pasteRefused' }, { script: 'idle' }],
    [
      'Ctrl-C changes nothing by itself',
      { script: 'running' },
      { type: 'sent', what: 'interrupt' },
      { script: 'running', parked: false },
    ],
    [
      'a mode byte to an idle REPL is read at once',
      { raw: false },
      { type: 'sent', what: 'mode' },
      { parked: false },
    ],
    [
      'a mode byte while something may run parks',
      { script: 'unknown' },
      { type: 'sent', what: 'mode' },
      { parked: true },
    ],
    [
      'the end of a paste runs it',
      { script: 'pasting' },
      { type: 'sent', what: 'pasteEnd' },
      { script: 'running' },
    ],
    [
      'paste data keeps pasting',
      { script: 'pasting' },
      { type: 'sent', what: 'pasteData' },
      { script: 'pasting' },
    ],
    ['a paste request waits for the answer', {}, { type: 'sent', what: 'pasteRequest' }, { script: 'idle' }],
  ];
  it.each(rows)('%s', (_name, from, event, expected) => {
    const before = line(from);
    const after = advance(before, event);
    expect(after).toMatchObject(expected);
    // Nothing else changes, and the state before is not touched.
    const untouched = Object.keys(before).filter((key) => !(key in expected));
    for (const key of untouched) {
      expect(after[key as keyof LineState], key).toEqual(
        key === 'synced' && event.type === 'result' ? after.synced : before[key as keyof LineState],
      );
    }
    expect(before).toEqual(line(from));
  });
});

describe('mayWrite', () => {
  const scripts: ScriptState[] = ['idle', 'starting', 'pasting', 'running', 'unknown'];
  const allowed = (state: LineState) =>
    (['interrupt', 'mode', 'exec', 'pasteRequest', 'pasteData', 'pasteEnd'] as Send[]).filter((what) =>
      mayWrite(state, what),
    );
  const rows: Array<[ScriptState, boolean, boolean, Send[]]> = [
    ['idle', false, true, ['interrupt', 'mode', 'exec', 'pasteRequest']],
    ['idle', false, false, ['interrupt', 'mode']],
    ['starting', false, true, []],
    ['pasting', false, true, ['interrupt', 'pasteData', 'pasteEnd']],
    ['running', false, true, ['interrupt']],
    ['unknown', false, true, ['interrupt', 'mode']],
  ];
  it.each(rows)('%s, parked %s, raw %s: %j', (script, parked, raw, sends) => {
    expect(allowed(line({ script, parked, raw }))).toEqual(sends);
  });

  it.each(scripts)('never lets a Ctrl-C follow a parked byte (%s), only more mode bytes', (script) => {
    const parked = line({ script, parked: true });
    expect(mayWrite(parked, 'interrupt')).toBe(false);
    expect(allowed(parked).filter((s) => s !== 'pasteData' && s !== 'pasteEnd')).toEqual(['mode']);
  });
});

describe('nextStep', () => {
  const rows: Array<[string, Partial<LineState>, number, number, string]> = [
    ['a ready line runs', {}, 0, 2, 'run'],
    ['unknown: enter raw', { script: 'unknown' }, 0, 2, 'enterRaw'],
    ['parked: enter raw (listening)', { parked: true }, 0, 2, 'enterRaw'],
    ['friendly: enter raw', { raw: false }, 0, 2, 'enterRaw'],
    ['running (never at a job boundary): enter raw', { script: 'running' }, 0, 2, 'enterRaw'],
    ['unsynced: sync', { synced: false }, 0, 2, 'sync'],
    ['stray bytes since the sync: sync', {}, 3, 2, 'sync'],
    [
      'globals to restore come before the helpers',
      { restoreGlobals: true, helpers: 'gone' },
      0,
      2,
      'restoreGlobals',
    ],
    ['helpers to check', { helpers: 'check' }, 0, 2, 'checkHelpers'],
    ['helpers gone: the core first', { helpers: 'gone', sent: 0 }, 0, 2, 'sendCore'],
    ['an added helper not sent yet', { sent: 1 }, 0, 2, 'sendHelper'],
    [
      'raw before sync before helpers',
      { script: 'unknown', synced: false, helpers: 'gone' },
      5,
      2,
      'enterRaw',
    ],
    ['sync before helpers', { synced: false, helpers: 'gone' }, 0, 2, 'sync'],
  ];
  it.each(rows)('%s', (_name, from, strays, helpers, step) => {
    expect(nextStep(line(from), strays, helpers)).toBe(step);
  });

  it('walks a fresh board to ready, step by step', () => {
    let state = advance(INITIAL_LINE, { type: 'opened' });
    const steps: string[] = [];
    const answer: Record<string, LineEvent[]> = {
      enterRaw: [
        { type: 'sent', what: 'interrupt' },
        { type: 'sent', what: 'mode' },
        { type: 'banner' },
        { type: 'prompt' },
      ],
      sync: [
        { type: 'sent', what: 'exec' },
        { type: 'synced', strays: 0 },
      ],
      checkHelpers: [
        { type: 'sent', what: 'exec' },
        { type: 'ok' },
        { type: 'result', anomaly: false },
        { type: 'helperCheck', present: false },
      ],
      sendCore: [
        { type: 'sent', what: 'exec' },
        { type: 'ok' },
        { type: 'result', anomaly: false },
        { type: 'coreSent' },
      ],
      sendHelper: [
        { type: 'sent', what: 'exec' },
        { type: 'ok' },
        { type: 'result', anomaly: false },
        { type: 'helperSent' },
      ],
    };
    for (let i = 0; i < 10; i++) {
      const step = nextStep(state, 0, 1);
      steps.push(step);
      if (step === 'run') break;
      for (const event of answer[step] ?? []) state = advance(state, event);
    }
    expect(steps).toEqual(['enterRaw', 'sync', 'checkHelpers', 'sendCore', 'sendHelper', 'run']);
  });
});

describe('replies in awkward orders', () => {
  const run = (events: LineEvent[], from: LineState = IDLE) => events.reduce(advance, from);

  it('the end of a reply before its OK (one chunk, the OK lost) still means idle', () => {
    const state = run([
      { type: 'sent', what: 'exec' },
      { type: 'result', anomaly: true },
    ]);
    expect(state).toMatchObject({ script: 'idle', synced: false });
    expect(nextStep(state, 0, 2)).toBe('sync');
  });

  it('OK after the host gave up on it does not make the line look busy', () => {
    const state = run([{ type: 'sent', what: 'exec' }, { type: 'abandoned', echoed: false }, { type: 'ok' }]);
    expect(state).toMatchObject({ script: 'unknown', parked: true });
    expect(mayWrite(state, 'interrupt')).toBe(false);
  });

  it('a banner just before the prompt (Ctrl-B, then Ctrl-A) ends raw and idle', () => {
    const state = run(
      [
        { type: 'sent', what: 'interrupt' },
        { type: 'sent', what: 'mode' },
        { type: 'banner' },
        { type: 'prompt' },
      ],
      advance(IDLE, { type: 'opened' }),
    );
    expect(state).toMatchObject({ script: 'idle', raw: true, parked: false, helpers: 'check' });
  });

  it('a reboot banner in the middle of a job leaves the line friendly with the helpers to check', () => {
    const state = run([{ type: 'sent', what: 'exec' }, { type: 'ok' }, { type: 'banner' }]);
    expect(state).toMatchObject({ script: 'idle', raw: false, helpers: 'check' });
    expect(nextStep(state, 0, 2)).toBe('enterRaw');
  });

  it('sys.exit in a job: the reply, then soft reboot, then the header', () => {
    const state = run([
      { type: 'sent', what: 'exec' },
      { type: 'ok' },
      { type: 'softReboot' },
      { type: 'result', anomaly: true },
      { type: 'prompt' },
    ]);
    expect(state).toMatchObject({ script: 'idle', raw: true, helpers: 'gone', synced: false });
    expect(nextStep(state, 0, 2)).toBe('sync');
  });

  it('a script that swallows Ctrl-C: two interrupts, then one parked raw request, then only listening', () => {
    let state = run([{ type: 'sent', what: 'exec' }, { type: 'ok' }]);
    for (let i = 0; i < 2; i++) {
      expect(mayWrite(state, 'interrupt')).toBe(true);
      state = advance(state, { type: 'sent', what: 'interrupt' });
    }
    expect(mayWrite(state, 'mode')).toBe(false);
    state = advance(state, { type: 'unanswered' });
    expect(mayWrite(state, 'mode')).toBe(true);
    state = advance(state, { type: 'sent', what: 'mode' });
    expect(state.parked).toBe(true);
    state = advance(state, { type: 'opened' });
    expect(mayWrite(state, 'interrupt')).toBe(false);
    expect(mayWrite(state, 'exec')).toBe(false);
    // The script ends on its own: its reply, then the parked Ctrl-A's header.
    state = run([{ type: 'result', anomaly: false }, { type: 'prompt' }], state);
    expect(state).toMatchObject({ script: 'idle', parked: false });
    expect(mayWrite(state, 'interrupt')).toBe(true);
  });

  it('a sync that gets only stale replies leaves its own request possibly parked', () => {
    const state = run(
      [
        { type: 'sent', what: 'exec' },
        { type: 'abandoned', echoed: false },
      ],
      line({ synced: false }),
    );
    expect(state).toMatchObject({ script: 'unknown', parked: true, synced: false });
  });
});

/**
 * A board reduced to what the interrupt rule needs: a FIFO of what the host wrote and a script that
 * runs or not. While a script runs only the head of the FIFO is looked at; a Ctrl-C there stops a
 * script that heeds it, any other byte stays. Replies reach the host after a random delay, so the
 * host acts on old news, as it does on a real line.
 */
class ModelBoard {
  fifo: Send[] = [];
  running: 'no' | 'heeds' | 'swallows' | 'ends' = 'no';
  /** Ctrl-Cs that arrived behind another byte while a script ran: the wedge. */
  hidden = 0;
  private outbox: Array<{ at: number; event: LineEvent }> = [];

  constructor(private readonly random: () => number) {}

  write(what: Send, now: number): void {
    if (what === 'interrupt' && this.running !== 'no' && this.fifo.length > 0) this.hidden++;
    this.fifo.push(what);
    this.step(now);
  }

  /** The board's main loop: serve the FIFO when no script runs, peek at its head when one does. */
  step(now: number): void {
    for (;;) {
      if (this.running === 'ends' && this.random() < 0.3) this.finish(now);
      if (this.running !== 'no') {
        if (this.fifo[0] !== 'interrupt') return;
        this.fifo.shift();
        if (this.running === 'heeds' || this.running === 'ends') this.finish(now);
        continue;
      }
      const head = this.fifo.shift();
      if (head === undefined) return;
      if (head === 'mode') this.say(now, { type: 'prompt' });
      if (head === 'exec' || head === 'pasteEnd') {
        this.say(now, { type: 'ok' });
        const kind = this.random();
        this.running = kind < 0.4 ? 'heeds' : kind < 0.6 ? 'swallows' : 'ends';
      }
    }
  }

  private finish(now: number): void {
    this.running = 'no';
    this.say(now, { type: 'result', anomaly: false });
  }

  private say(now: number, event: LineEvent): void {
    this.outbox.push({ at: now + Math.floor(this.random() * 5), event });
  }

  /** What reached the host by `now`. */
  heard(now: number): LineEvent[] {
    const due = this.outbox.filter((m) => m.at <= now);
    this.outbox = this.outbox.filter((m) => m.at > now);
    return due.map((m) => m.event);
  }
}

describe('a board model under random host turns', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'never gets a Ctrl-C behind another byte while a script runs (seed %i)',
    (seed) => {
      let s = seed * 7919;
      const random = () => {
        s = (s * 1103515245 + 12345) & 0x7fffffff;
        return s / 0x7fffffff;
      };
      const board = new ModelBoard(random);
      let state = advance(INITIAL_LINE, { type: 'opened' });
      let wrote = 0;
      for (let now = 0; now < 4000; now++) {
        for (const event of board.heard(now)) state = advance(state, event);
        board.step(now);
        // The host does whatever the session might do next, if the line allows it.
        const choice = Math.floor(random() * 8);
        const act = (what: Send) => {
          if (!mayWrite(state, what)) return;
          board.write(what, now);
          state = advance(state, { type: 'sent', what });
          wrote++;
        };
        if (choice === 0) act('interrupt');
        else if (choice === 1) act('mode');
        else if (choice === 2) act('exec');
        else if (choice === 3 && state.script === 'starting')
          state = advance(state, { type: 'abandoned', echoed: false });
        else if (choice === 4 && state.script === 'running') state = advance(state, { type: 'unanswered' });
        else if (choice === 5 && random() < 0.05) state = advance(state, { type: 'opened' });
      }
      expect(wrote).toBeGreaterThan(200);
      expect(board.hidden).toBe(0);
    },
  );

  it('catches the wedge when the rule is ignored (the model is live)', () => {
    const board = new ModelBoard(() => 0.5); // every script swallows Ctrl-C
    board.write('exec', 0);
    board.write('mode', 1);
    board.write('interrupt', 2);
    expect(board.hidden).toBe(1);
  });
});
