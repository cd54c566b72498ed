/**
 * `python_exec`: the one tool whose input is code, by design (DESIGN.md §4 "Trust"): the escape
 * hatch, listed only to callers holding `jumperless.exec` (issue 13), gated by it, and run exactly
 * as given. A Python exception is a normal
 * result here (the traceback is what the caller wants to see), not a tool failure; so is code that
 * soft-resets the board (SystemExit), which the result says.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { isDeviceError } from '../device/errors.js';
import type { ExecResult } from '../device/session.js';
import { defineDeviceTool } from './tool.js';

/**
 * The size a board with PSRAM compiles without trouble. Without PSRAM the 96 KB heap (probe
 * repl.heap_total) holds the firmware's globals and the server's helpers too, and the bytecode alone
 * takes about 0.9 bytes per byte of source (measured on the sim), so code beyond about 16 KB fails
 * there with MemoryError: the description says so, and a MemoryError result says what to do.
 */
export const CODE_MAX_CHARS = 64 * 1024;
const MAX_TIMEOUT_S = 60;

/**
 * What a soft reset does (JumperlessMicroPythonAPI.cpp:1336-1436): a new VM, so every global is
 * gone; the firmware's names come back, the hardware state is untouched.
 */
function softResetNote(reset: NonNullable<ExecResult['softReset']>): string {
  return (
    'The code soft-reset the board (SystemExit, e.g. sys.exit() or machine.soft_reset()): every Python global ' +
    'it or earlier calls made is gone, the firmware functions are back, and connections, supplies and GPIO are ' +
    `unchanged. ${reset.helpersReprimed ? "The server's helpers were re-primed." : 'The server could not re-prime its helpers yet; the next call does.'}`
  );
}

const MEMORY_NOTE =
  "The board ran out of heap (96 KB on a board without PSRAM, shared with the server's helpers): send " +
  'smaller pieces (globals persist between calls), or free memory (del big objects, then gc.collect()).';

export const pythonExec = defineDeviceTool({
  name: 'python_exec',
  title: 'Run MicroPython on the board',
  description:
    'Run MicroPython on the board, for what no tool does: it can drive supplies, rewire, delete files. Globals last until a soft reset.',
  group: 'exec',
  kind: 'destructive',
  capability: 'jumperless.exec',
  timeoutMs: (MAX_TIMEOUT_S + 10) * 1000,
  input: z.object({
    code: z.string().min(1).max(CODE_MAX_CHARS),
    timeout_seconds: z.number().min(0.1).max(MAX_TIMEOUT_S).default(10).describe('Then Ctrl-C'),
  }),
  output: z.object({
    ok: z.boolean(),
    stdout: z.string(),
    stderr: z.string(),
    /** Exception class and message when the code raised. */
    error: z.object({ type: z.string(), message: z.string() }).nullable(),
    truncated: z.boolean(),
    duration_ms: z.number(),
    /** The code ended by soft-resetting the board. */
    soft_reset: z.boolean(),
    /** What the caller should know about the board's state after this call, if anything. */
    note: z.string().nullable(),
  }),
  // The person sees the code itself (cut, if long): it can do anything a tool can.
  hazard: ({ code }) =>
    `Run this MicroPython on the board?\n\n${code.length > 600 ? `${code.slice(0, 600)}\n… (${code.length} characters)` : code}`,
  handle: async ({ code, timeout_seconds }, { board }) => {
    const started = Date.now();
    try {
      const result = await board.exec(code, { timeoutMs: timeout_seconds * 1000 });
      return {
        ok: true,
        stdout: result.stdout,
        stderr: result.stderr,
        error: null,
        truncated: result.truncated,
        duration_ms: Math.round(result.durationMs * 1000) / 1000,
        soft_reset: result.softReset !== undefined,
        note: result.softReset ? softResetNote(result.softReset) : null,
      };
    } catch (error) {
      if (isDeviceError(error, 'python_error')) {
        const details = error.details as {
          type?: string;
          pythonMessage?: string;
          traceback?: string;
          stdout?: string;
          softReset?: ExecResult['softReset'];
        };
        return {
          ok: false,
          stdout: details.stdout ?? '',
          stderr: details.traceback ?? error.message,
          error: { type: details.type ?? 'Error', message: details.pythonMessage ?? '' },
          truncated: false,
          duration_ms: Date.now() - started,
          soft_reset: details.softReset !== undefined,
          note: details.softReset
            ? softResetNote(details.softReset)
            : details.type === 'MemoryError'
              ? MEMORY_NOTE
              : null,
        };
      }
      if (isDeviceError(error, 'invalid_code')) {
        // Code the board would hard-fault on (native emitters) says why itself.
        if (error.details.decorator) throw new ToolError('invalid_code', `${error.message}.`);
        // Raw-REPL control bytes (Ctrl-C, Ctrl-D, ...) cannot travel inside code (spec §3.2).
        throw new ToolError(
          'invalid_code',
          `${error.message}. Write such characters as escapes, e.g. '\\x03'.`,
        );
      }
      throw error;
    }
  },
});

export default [pythonExec];
