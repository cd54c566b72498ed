/**
 * Waiting for the person at the board (spec §6.10): probe touches, probe buttons, the clickwheel,
 * and `ask_user`, which shows an instruction on the board and waits for an answer.
 *
 * Every wait is a host-side loop of short board jobs, each polling with non-blocking reads and
 * `time.sleep` on the board. The firmware's blocking reads wait inside C until Ctrl-C (spec §9);
 * short jobs keep the session's deadline and cancellation clean, let other calls through between
 * polls, and give progress.
 *
 * Firmware facts the tools rely on (each has a probe in src/board/probes/ui.json):
 * - `probe_read(False)` is NO_PAD when nothing is touched; a pad the tip rests on comes back at
 *   most every 500 ms (Probing.cpp:5951-5981); breadboard pads print `PAD_n`.
 * - `probe_button(False, True)` takes the latched press, which never expires until a consuming
 *   read takes it (Probing.cpp:402-461): button_wait drains it first.
 * - `clickwheel_get_position()` counts raw encoder steps, not detents (RotaryEncoder.cpp:912-917);
 *   `clickwheel_get_button()` is read without being consumed and may be 5 (long hold) or 6
 *   (medium hold), which have no module constants (RotaryEncoder.h:60).
 * - Without a display `oled_get_framebuffer()` is None and OLED calls do nothing.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { py } from '../device/pyLiteral.js';
import { autoTextSize, checkText } from './oled.js';
import type { PythonPart } from './pythonParts.js';
import { defineDeviceTool, type ToolContext } from './tool.js';

/** Python run on the board, inside `_jlt`. */
export const python: readonly PythonPart[] = [
  {
    name: 'user',
    source: `
def user_touch(ms):
    import time
    t0 = time.ticks_ms()
    while True:
        p = probe_read(False)
        if int(p) != -1:
            return [int(p), str(p)]
        if time.ticks_diff(time.ticks_ms(), t0) >= ms:
            return None
        time.sleep_ms(20)
def user_button(ms, want):
    import time
    t0 = time.ticks_ms()
    while True:
        b = int(probe_button(False, True))
        if b and (want == 0 or b == want):
            return b
        if time.ticks_diff(time.ticks_ms(), t0) >= ms:
            return 0
        time.sleep_ms(20)
def user_drain():
    probe_button(False, True)
def user_wheel():
    return [clickwheel_get_position(), clickwheel_get_direction(True), clickwheel_get_button()]
def ask_begin(token, ms, top, bottom, color, text, size):
    import time
    now = time.ticks_ms()
    a = getattr(_jlt, 'ask', None)
    if a is not None and time.ticks_diff(a[1], now) > 0:
        return None
    fb = a[2] if a is not None else None
    if fb is None and text:
        fb = oled_get_framebuffer()
    _jlt.ask = [token, time.ticks_add(now, ms), fb]
    shown = False
    if text and fb is not None:
        oled_print(text, size=size)
        shown = True
    lit = True
    for name, y, cols in (('ask_top', 1, top), ('ask_bottom', 6, bottom)):
        if cols:
            x = min(cols)
            w = max(cols) - x + 1
            line = [color if x + i in cols else 0 for i in range(w)]
            if overlay_set(name, x, y, 5, w, line * 5) < 0:
                lit = False
    _jlt.user_drain()
    return [shown, lit]
def ask_end(token):
    a = getattr(_jlt, 'ask', None)
    if a is None or a[0] != token:
        return
    _jlt.ask = None
    overlay_clear('ask_top')
    overlay_clear('ask_bottom')
    if a[2] is not None:
        oled_set_framebuffer(a[2])
`,
  },
];

/** Longest wait a tool accepts; the tool deadline leaves room for setup and clean-up. */
const MAX_WAIT_S = 300;
const WAIT_TOOL_TIMEOUT_MS = (MAX_WAIT_S + 30) * 1000;
/** Each board job polls this long; between jobs come progress and other callers' jobs. */
const POLL_CHUNK_MS = 1000;
/** A board job may take this much longer than its poll before the session interrupts it. */
const CHUNK_SLACK_MS = 5000;
/** About 25 % brightness, as the docs advise for overlays (spec §6.12). */
const HIGHLIGHT = 0x3f2a00;

const timeoutField = (seconds: number) => z.number().min(0.1).max(MAX_WAIT_S).default(seconds);

interface PollResult<T> {
  value: T | undefined;
  waitedSeconds: number;
}

/**
 * Polls `once` in chunks until it yields a value or `totalMs` passes, reporting progress in
 * seconds. `signal` (default: the call's) cancels the running chunk.
 */
async function pollBoard<T>(
  context: Pick<ToolContext, 'progress'>,
  totalMs: number,
  message: string,
  once: (ms: number) => Promise<T | undefined>,
): Promise<PollResult<T>> {
  const start = Date.now();
  const total = totalMs / 1000;
  const elapsed = () => Math.min(total, (Date.now() - start) / 1000);
  context.progress(0, total, message);
  for (;;) {
    const left = totalMs - (Date.now() - start);
    if (left <= 0) return { value: undefined, waitedSeconds: round(elapsed()) };
    const value = await once(Math.min(POLL_CHUNK_MS, left));
    if (value !== undefined) return { value, waitedSeconds: round(elapsed()) };
    context.progress(elapsed(), total, message);
  }
}

const round = (s: number): number => Math.round(s * 1000) / 1000;

const chunkOptions = (ms: number, signal?: AbortSignal) => ({
  timeoutMs: ms + CHUNK_SLACK_MS,
  ...(signal ? { signal } : {}),
});

export const probeWait = defineDeviceTool({
  name: 'probe_wait',
  title: 'Wait for a probe touch',
  description: 'Wait for the probe to touch a pad; returns the pad (1-60 are rows).',
  group: 'user',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['probe_read'],
  // Waits for a person for minutes: each poll takes its own turn at the board.
  atomic: false,
  timeoutMs: WAIT_TOOL_TIMEOUT_MS,
  input: z.object({ timeout_seconds: timeoutField(30) }),
  output: z.object({
    pad: z.number().nullable(),
    pad_name: z.string().nullable(),
    timed_out: z.boolean(),
    waited_seconds: z.number(),
  }),
  handle: async ({ timeout_seconds }, context) => {
    const touch = z.tuple([z.number(), z.string()]).nullable();
    const { value, waitedSeconds } = await pollBoard(
      context,
      timeout_seconds * 1000,
      'Waiting for a probe touch',
      async (ms) =>
        touch.parse(await context.board.call(py`_jlt.user_touch(${ms})`, chunkOptions(ms))) ?? undefined,
    );
    return {
      pad: value?.[0] ?? null,
      pad_name: value?.[1] ?? null,
      timed_out: value === undefined,
      waited_seconds: waitedSeconds,
    };
  },
});

const BUTTONS = { connect: 1, remove: 2 } as const;
const buttonName = (b: number): 'connect' | 'remove' => (b === 2 ? 'remove' : 'connect');

export const buttonWait = defineDeviceTool({
  name: 'button_wait',
  title: 'Wait for a probe button',
  description: "Wait for a press of the probe's connect or remove button.",
  group: 'user',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['probe_button'],
  // Waits for a person for minutes: each poll takes its own turn at the board.
  atomic: false,
  timeoutMs: WAIT_TOOL_TIMEOUT_MS,
  input: z.object({
    timeout_seconds: timeoutField(30),
    button: z.enum(['connect', 'remove', 'any']).default('any'),
  }),
  output: z.object({
    button: z.enum(['connect', 'remove']).nullable(),
    timed_out: z.boolean(),
    waited_seconds: z.number(),
  }),
  handle: async ({ timeout_seconds, button }, context) => {
    const want = button === 'any' ? 0 : BUTTONS[button];
    await context.board.call('_jlt.user_drain()');
    const { value, waitedSeconds } = await pollBoard(
      context,
      timeout_seconds * 1000,
      'Waiting for a probe button',
      async (ms) => {
        const b = z
          .number()
          .parse(await context.board.call(py`_jlt.user_button(${ms}, ${want})`, chunkOptions(ms)));
        return b === 0 ? undefined : b;
      },
    );
    return {
      button: value === undefined ? null : buttonName(value),
      timed_out: value === undefined,
      waited_seconds: waitedSeconds,
    };
  },
});

const WHEEL_DIRECTIONS = ['none', 'up', 'down'] as const;
/** encoderButtonStates (RotaryEncoder.h:60): 0-4 have module constants, 5 and 6 do not. */
const WHEEL_BUTTONS = [
  'idle',
  'pressed',
  'held',
  'released',
  'doubleclicked',
  'long_held',
  'medium_held',
] as const;

export const clickwheelRead = defineDeviceTool({
  name: 'clickwheel_read',
  title: 'Read the clickwheel',
  description:
    "The clickwheel's raw position (several counts a click), last turn direction (reading clears it) and button.",
  group: 'user',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['clickwheel_get_position', 'clickwheel_get_direction', 'clickwheel_get_button'],
  input: z.object({}),
  output: z.object({
    position_counts: z.number().describe('Raw encoder counts since reset, signed'),
    direction: z.enum(WHEEL_DIRECTIONS),
    button: z.enum([...WHEEL_BUTTONS, 'unknown']),
  }),
  handle: async (_args, { board }) => {
    const [position, direction, button] = z
      .tuple([z.number(), z.number(), z.number()])
      .parse(await board.call('_jlt.user_wheel()'));
    return {
      position_counts: position,
      direction: WHEEL_DIRECTIONS[direction] ?? 'none',
      button: WHEEL_BUTTONS[button] ?? ('unknown' as const),
    };
  },
});

/** Rows 1-30 are canvas columns on the top half, 31-60 on the bottom half (spec §6.12). */
function rowColumns(rows: readonly number[]): { top: number[]; bottom: number[] } {
  const unique = [...new Set(rows)].sort((a, b) => a - b);
  return { top: unique.filter((r) => r <= 30), bottom: unique.filter((r) => r > 30).map((r) => r - 30) };
}

type Answer = 'confirmed' | 'declined';
const NEVER = new Promise<never>(() => {});

export const askUser = defineDeviceTool({
  name: 'ask_user',
  title: 'Ask the person at the board',
  description:
    'Ask the person to act: lights rows, shows instruction on the OLED, waits for connect (yes) or remove (no); restores both.',
  group: 'user',
  kind: 'write',
  capability: 'jumperless.io',
  requires: [
    'probe_button',
    'overlay_set',
    'overlay_clear',
    'oled_print',
    'oled_get_framebuffer',
    'oled_set_framebuffer',
  ],
  // Waits for a person for minutes: each poll takes its own turn at the board.
  atomic: false,
  timeoutMs: WAIT_TOOL_TIMEOUT_MS,
  input: z.object({
    instruction: z.string().min(1).max(200).describe('80 characters fit'),
    rows: z.array(z.number().int().min(1).max(60)).max(60).default([]),
    timeout_seconds: timeoutField(120),
  }),
  output: z.object({
    answer: z.enum(['confirmed', 'declined', 'timeout']),
    answered_by: z.enum(['probe_button', 'client']).nullable(),
    waited_seconds: z.number(),
    oled_shown: z.boolean(),
    rows_lit: z.array(z.number()),
  }),
  handle: async ({ instruction, rows, timeout_seconds }, context) => {
    checkText(instruction, 'instruction');
    const { board, signal } = context;
    const { top, bottom } = rowColumns(rows);
    const size = autoTextSize(instruction);
    // The OLED and the ask overlays are one per board: a second ask waits its turn, across
    // every caller and process, until the first ends or its deadline passes.
    const token = randomUUID();
    const begun = z
      .tuple([z.boolean(), z.boolean()])
      .nullable()
      .parse(
        await board.call(
          py`_jlt.ask_begin(${token}, ${WAIT_TOOL_TIMEOUT_MS}, ${top}, ${bottom}, ${HIGHLIGHT}, ${instruction}, ${size})`,
        ),
      );
    if (begun === null) {
      throw new ToolError(
        'busy',
        'Another ask_user is waiting for an answer at this board. Retry when it has been answered.',
        { retryable: true },
      );
    }
    const [shown, lit] = begun;
    // The board loop gets its own signal so an answer from the client can stop it.
    const boardLoop = new AbortController();
    const stop = () => boardLoop.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    const start = Date.now();
    try {
      const fromBoard = pollBoard(
        context,
        timeout_seconds * 1000,
        context.confirm
          ? 'Waiting for the probe button or an answer in the client'
          : 'Waiting for the probe button',
        async (ms) => {
          const b = z
            .number()
            .parse(await board.call(py`_jlt.user_button(${ms}, 0)`, chunkOptions(ms, boardLoop.signal)));
          return b === 0 ? undefined : b;
        },
      ).then((r) => ({
        answer:
          r.value === undefined
            ? ('timeout' as const)
            : r.value === 1
              ? ('confirmed' as const)
              : ('declined' as const),
        by: r.value === undefined ? null : ('probe_button' as const),
      }));
      // A dismissed dialog (cancel) or a client error leaves the board's button to answer.
      const fromClient: Promise<{ answer: Answer; by: 'client' }> = context.confirm
        ? context.confirm(instruction).then(
            (r) =>
              r === 'cancel' ? NEVER : { answer: r === 'accept' ? 'confirmed' : 'declined', by: 'client' },
            () => NEVER,
          )
        : NEVER;
      const result = await Promise.race([fromBoard, fromClient]);
      boardLoop.abort();
      await fromBoard.catch(() => undefined);
      return {
        answer: result.answer,
        answered_by: result.by,
        waited_seconds: round((Date.now() - start) / 1000),
        oled_shown: shown,
        rows_lit: lit ? [...new Set(rows)].sort((a, b) => a - b) : [],
      };
    } finally {
      signal.removeEventListener('abort', stop);
      boardLoop.abort();
      // Clean up even after a cancel: a short job of our own, not the call's aborted signal.
      await board
        .call(py`_jlt.ask_end(${token})`, { signal: AbortSignal.timeout(5000), timeoutMs: 3000 })
        .catch(() => undefined);
    }
  },
});

export default [probeWait, buttonWait, clickwheelRead, askUser];
