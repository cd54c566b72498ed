/**
 * The board itself (spec §6.4 context, §6.14 misc, §6.3 undo): versions and link health, the
 * Python context, the core-2 pause, the Arduino reset line, and the firmware's connection undo.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import type { PythonPart } from './pythonParts.js';
import { defineDeviceTool } from './tool.js';

/** Python run on the board, inside `_jlt`. */
const systemPython: PythonPart = {
  name: 'system',
  source: `
def sys_info():
    import sys, gc
    gc.collect()
    i = sys.implementation
    r = {'micropython': '.'.join([str(x) for x in i.version[:3]]), 'machine': getattr(i, '_machine', ''), 'platform': sys.platform, 'mem_free': gc.mem_free(), 'mem_total': gc.mem_free() + gc.mem_alloc(), 'fs': None}
    try:
        import jfs
        t = jfs.info()
        r['fs'] = [t[0], t[2]]
    except Exception:
        pass
    return r
def sys_context(flip):
    if flip:
        context_toggle()
    return context_get()
def sys_pause(on):
    pause_core2(on)
def sys_reset():
    arduino_reset()
    return True
`,
};

/**
 * Board-side helpers, inside `_jlt`: the firmware's undo history (Undo.cpp), and the runs of it a
 * measurement made. A measurement's temporary bridges are history steps too (every connect and
 * disconnect is one, Undo.cpp:2052-2127); `hist_mark` notes the run it added (its cursor span and
 * labels), and `hist_step` steps over such runs, so firmware_undo never undoes a measurement's
 * bridges as if they were a change. A run is recognised by its labels at its place; anything else
 * in the history (another program's changes after it) makes it an ordinary step again. A full
 * history (64 steps on 5.7.11 without PSRAM) drops its oldest step for each new one, so the cursor
 * moves less than the run: `hist_mark` finds the run's start by the three labels that were on top
 * before it (`hist_now` keeps them), and moves the older marks down by the steps dropped.
 */
export const historyPython: PythonPart = {
  name: 'history',
  source: `
hist_marks = []
hist_sig = []
def hist_pos():
    try:
        return [history_size(), history_position()]
    except NameError:
        return None
def hist_now():
    p = _jlt.hist_pos()
    if p is not None:
        _jlt.hist_sig = [history_label(-j) for j in range(3)]
    return p
def hist_mark(h0):
    h1 = _jlt.hist_pos()
    if h0 is None or h1 is None:
        return
    start = h0[0] + h0[1]
    end = h1[0] + h1[1]
    n = end - start
    k = max(n, 1)
    while k < 256 and [history_label(-k - j) for j in range(3)] != _jlt.hist_sig:
        k += 1
    drop = k - n if k < 256 else 0
    n += drop
    if n <= 0:
        return
    labels = [history_label(-k) for k in range(n)]
    kept = [[m[0] - drop, m[1] - drop, m[2]] for m in _jlt.hist_marks if m[1] <= start and m[0] >= drop]
    _jlt.hist_marks = kept[-15:] + [[end - n, end, labels]]
def hist_run(c, back):
    for m in _jlt.hist_marks:
        n = m[1] - m[0]
        if back and m[1] == c and [history_label(-k) for k in range(n)] == m[2]:
            return m
        if not back and m[0] == c and [history_label(k) for k in range(1, n + 1)] == list(reversed(m[2])):
            return m
    return None
def hist_step(step):
    over = []
    label = ''
    moved = False
    c = history_size() + history_position()
    if step < 0:
        m = _jlt.hist_run(c, True)
        while m is not None:
            for k in range(m[1] - m[0]):
                undo()
            over += m[2]
            c = m[0]
            m = _jlt.hist_run(c, True)
        label = history_label(0)
        moved = undo()
    else:
        label = history_label(1)
        moved = redo()
        c = history_size() + history_position()
        m = _jlt.hist_run(c, False)
        while moved and m is not None:
            for k in range(m[1] - m[0]):
                redo()
            over += list(reversed(m[2]))
            c = m[1]
            m = _jlt.hist_run(c, False)
    return [moved, label if moved else '', over, history_position(), history_size(), history_label(0)]
`,
};

export const python: readonly PythonPart[] = [systemPython, historyPython];

const healthOutput = z.object({
  connected: z.boolean(),
  state: z.string(),
  latency_p50_ms: z.number(),
  latency_p99_ms: z.number(),
  jobs_done: z.number(),
  jobs_failed: z.number(),
  jobs_canceled: z.number(),
  reconnects: z.number(),
  interrupts: z.number(),
  resets: z.number(),
  last_error: z.string().nullable(),
});

/**
 * The GC heap of a board without PSRAM: 96 KB less its tables (JumperlessDefines.h:41-42, gc.c:146-191;
 * probe repl.heap_total). With PSRAM the firmware adds most of the chip (micropython_embed.c:110-122).
 */
const HEAP_WITHOUT_PSRAM = 96_000;

export const deviceInfo = defineDeviceTool({
  name: 'device_info',
  title: 'Board versions and health',
  description: 'Firmware and MicroPython versions, heap, free flash and link health.',
  group: 'system',
  kind: 'read',
  capability: 'jumperless.read',
  input: z.object({}),
  output: z.object({
    firmware: z.string().nullable(),
    micropython: z.string(),
    machine: z.string(),
    platform: z.string(),
    port: z.string(),
    ram_free_bytes: z.number(),
    ram_total_bytes: z.number(),
    psram: z.boolean(),
    flash_total_bytes: z.number().nullable(),
    flash_free_bytes: z.number().nullable(),
    firmware_functions: z.number(),
    health: healthOutput,
    /** Who holds the board (board_lease, or an outside lease) and until when; absent: nobody. */
    lease: z
      .object({ holder: z.string(), since: z.string(), until: z.string(), note: z.string().optional() })
      .optional(),
  }),
  handle: async (_args, { board }) => {
    const info = z
      .object({
        micropython: z.string(),
        machine: z.string(),
        platform: z.string(),
        mem_free: z.number(),
        mem_total: z.number(),
        fs: z.tuple([z.number(), z.number()]).nullable(),
      })
      .parse(await board.call('_jlt.sys_info()'));
    const functions = await board.firmwareFunctions();
    const h = await board.health();
    return {
      firmware: h.firmware ?? null,
      // The boot banner names the firmware build; sys.implementation is the fallback.
      micropython: h.micropython ?? info.micropython,
      machine: h.machine ?? info.machine,
      platform: info.platform,
      port: h.port,
      ram_free_bytes: info.mem_free,
      ram_total_bytes: info.mem_total,
      psram: info.mem_total > HEAP_WITHOUT_PSRAM,
      flash_total_bytes: info.fs?.[0] ?? null,
      flash_free_bytes: info.fs?.[1] ?? null,
      firmware_functions: functions.size,
      health: {
        connected: h.connected,
        state: h.state,
        latency_p50_ms: h.latencyMs.p50,
        latency_p99_ms: h.latencyMs.p99,
        jobs_done: h.jobs.done,
        jobs_failed: h.jobs.failed,
        jobs_canceled: h.jobs.canceled,
        reconnects: h.reconnects,
        interrupts: h.interrupts,
        resets: h.resets,
        last_error: h.lastError ? `${h.lastError.code}: ${h.lastError.message}` : null,
      },
      ...(h.lease ? { lease: h.lease } : {}),
    };
  },
});

const CONTEXTS = ['global', 'python'] as const;

export const contextGet = defineDeviceTool({
  name: 'context_get',
  title: 'Python context',
  description:
    "Whether Python's wiring changes are kept (global) or undone when the board's REPL exits (python).",
  group: 'system',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['context_get'],
  input: z.object({}),
  output: z.object({ context: z.enum(CONTEXTS) }),
  handle: async (_args, { board }) => ({
    context: z.enum(CONTEXTS).parse(await board.call('_jlt.sys_context(False)')),
  }),
});

export const contextToggle = defineDeviceTool({
  name: 'context_toggle',
  title: 'Switch the Python context',
  description: 'Switch between global and python context; omit context to flip.',
  group: 'system',
  kind: 'write',
  capability: 'jumperless.admin',
  requires: ['context_get', 'context_toggle'],
  input: z.object({ context: z.enum(CONTEXTS).optional() }),
  output: z.object({ context: z.enum(CONTEXTS), previous: z.enum(CONTEXTS) }),
  handle: async ({ context }, { board }) => {
    const previous = z.enum(CONTEXTS).parse(await board.call('_jlt.sys_context(False)'));
    const flip = context === undefined || context !== previous;
    const now = flip ? z.enum(CONTEXTS).parse(await board.call('_jlt.sys_context(True)')) : previous;
    const wanted = context ?? (previous === 'global' ? 'python' : 'global');
    if (now !== wanted)
      throw new ToolError('not_applied', `The context is ${now} after switching to ${wanted}.`);
    return { context: now, previous };
  },
});

/**
 * Core 2 refreshes the LEDs (spec §6.8). The pause is a plain flag (JumperlessMicroPythonAPI.cpp:193-195)
 * that outlives the job: the raw REPL's after-exec hook that would clear it is compiled out
 * (mpconfigport.h:517-523, so MpRemoteService.cpp:328-333 never runs). Routing goes on while paused:
 * connect() hands the paths to core 2's bypass, which runs inside the pause loop (FileParsing.cpp:290-292, Commands.cpp:471,
 * main.cpp:1323-1331). Every full refresh ends the pause (Commands.cpp:142, 175): nodes_clear,
 * nodes_save, switch_slot, set_state (JumperlessMicroPythonAPI.cpp:1271, 1298, 1579, 3063) and the
 * firmware's own menus. No probe can show any of this: the firmware offers no getter for the flag,
 * so the server remembers its own pause per board, and a second pause is refused (DESIGN.md §4),
 * since it would hide the first one's owner and a single resume would undo both.
 */
const paused = new Map<string, { since: string }>();
const boardKey = (board: BoardClient): string => board.id;

async function pauseCore(board: BoardClient) {
  const key = boardKey(board);
  const held = paused.get(key);
  if (held) {
    throw new ToolError(
      'already_paused',
      `This server paused core 2 at ${held.since} (the firmware may have resumed it since, e.g. on nodes_clear or a slot change); call core_pause with resume: true first.`,
      {
        details: { since: held.since },
      },
    );
  }
  const since = new Date().toISOString();
  // Claim before sending, so a concurrent second pause is refused too.
  paused.set(key, { since });
  try {
    await board.call('_jlt.sys_pause(True)');
  } catch (error) {
    paused.delete(key);
    throw error;
  }
  return { paused: true, since };
}

async function resumeCore(board: BoardClient) {
  const key = boardKey(board);
  const wasPaused = paused.has(key);
  // Resume even when we did not pause: someone may have paused it from Python.
  await board.call('_jlt.sys_pause(False)');
  paused.delete(key);
  return { paused: false, was_paused: wasPaused };
}

/** Pause and resume in one tool (it replaced core_resume). */
export const corePause = defineDeviceTool({
  name: 'core_pause',
  title: 'Pause or resume core 2',
  description:
    'Pause core 2 (LED refresh) for timing-critical Python, or resume: true. Wiring still changes; a full rewire resumes it.',
  group: 'system',
  kind: 'physical',
  capability: 'jumperless.admin',
  requires: ['pause_core2'],
  input: z.object({ resume: z.boolean().default(false) }),
  output: z.object({ paused: z.boolean(), since: z.string().optional(), was_paused: z.boolean().optional() }),
  handle: async ({ resume }, { board }) => (resume ? resumeCore(board) : pauseCore(board)),
});

export const arduinoReset = defineDeviceTool({
  name: 'arduino_reset',
  title: 'Reset the Arduino',
  description: "Pulse the Arduino Nano's reset line: its sketch restarts.",
  group: 'system',
  kind: 'physical',
  capability: 'jumperless.io',
  requires: ['arduino_reset'],
  input: z.object({}),
  output: z.object({ reset: z.boolean() }),
  handle: async (_args, { board }) => {
    // The firmware reports nothing back: the pulse went out when the call returned.
    return { reset: z.literal(true).parse(await board.call('_jlt.sys_reset()')) };
  },
});

const historyOutput = z.object({
  changed: z.boolean(),
  step: z.string().describe('The step undone (or redone), as the firmware labels it; empty when none'),
  stepped_over: z
    .array(z.string())
    .describe("A measurement's temporary bridges, undone (or redone) with it: together they change nothing"),
  position: z.number().describe('0 at the newest step, -N after N undos'),
  steps: z.number(),
  next: z.string().describe('What the next undo would undo'),
});

async function moveHistory(board: BoardClient, step: -1 | 1): Promise<z.infer<typeof historyOutput>> {
  const [moved, label, over, position, size, next] = z
    .tuple([z.boolean(), z.string(), z.array(z.string()), z.number(), z.number(), z.string()])
    .parse(await board.call(py`_jlt.hist_step(${step})`));
  board.seen.delete('connections.bridges');
  return { changed: moved, step: label, stepped_over: over, position, steps: size, next };
}

/**
 * Both directions of the firmware's history in one tool (it replaced firmware_redo). The firmware
 * records every bridge added or removed, from any source (probe, menus, scripts), and supply
 * setpoints: a DAC or rail set is a step (States.cpp:986-1019), and sets of one channel within
 * 1.2 s merge into one (Undo.cpp:155, 2184-2207). Each slot has its own history.
 */
export const firmwareUndo = defineDeviceTool({
  name: 'firmware_undo',
  title: "Step the board's own history",
  description:
    "Undo a step of the board's own history (any bridge or supply change: tools, scripts, the probe; a supply's sets within 1.2 s are one), named; redo: true redoes. This server's last change: undo.",
  group: 'system',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['undo', 'redo', 'history_position', 'history_size', 'history_label'],
  input: z.object({ redo: z.boolean().default(false) }),
  output: historyOutput,
  handle: async ({ redo }, { board }) => moveHistory(board, redo ? 1 : -1),
});

/**
 * What a take means, in words (issue 20: a model could not tell who "others" are, whether reads
 * still work or whether it expires). The holder is the caller id (boardLeases.ts leaseHolder,
 * http/caller.ts): one per token, per anonymous session, per stdio process. The lease lives in
 * this server only: nothing is sent to the board, so its probe and menu stay usable.
 */
export const leaseMeans = (until: string): string =>
  `Until ${until}, every other caller of this server is refused changes: another token, anonymous session or stdio process, your own other clients too unless they share this token; reads still work for all. It ends by itself then: renew with minutes again, end it early with 0. The probe and menu on the board itself are not blocked.`;

export const boardLease = defineDeviceTool({
  name: 'board_lease',
  title: 'Lease',
  description: 'Hold the board for minutes (again: renew, 0: release); others only read meanwhile.',
  group: 'system',
  kind: 'write',
  capability: 'jumperless.wire',
  // Answers a caller refused by another's lease with who holds it and until when.
  mutates: false,
  input: z.object({ minutes: z.number().min(0).max(1440) }),
  // Who holds it now (absent: nobody); a take that returns is this caller's. Read-only callers see
  // the lease in board health and in every refusal.
  output: z.object({
    holder: z.string().optional(),
    until: z.string().optional(),
    released: z.boolean().optional(),
    means: z.string().optional(),
  }),
  handle: async ({ minutes }, { board, leaseHolder: holder, callerName }) => {
    // The token's name goes with the lease, so a refused caller can tell its person whom to ask.
    const note = callerName ? { note: callerName } : {};
    const { lease } = await board.boardLease(
      minutes === 0
        ? { action: 'release', holder }
        : { action: 'take', holder, ttlMs: minutes * 60_000, ...note },
    );
    return lease
      ? { holder: lease.holder, until: lease.until, means: leaseMeans(lease.until) }
      : { released: true };
  },
});

export default [deviceInfo, contextGet, contextToggle, corePause, arduinoReset, firmwareUndo, boardLease];
