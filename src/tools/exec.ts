/**
 * `python_exec`: the one tool whose input is code, by design (DESIGN.md §4 "Trust"): hidden from
 * lists, gated by `jumperless.exec`, and run exactly as given. A Python exception is a normal
 * result here (the traceback is what the caller wants to see), not a tool failure.
 */
import { z } from 'zod';
import { isDeviceError } from '../device/errors.js';
import { defineTool, ToolError } from './tool.js';

export const CODE_MAX_CHARS = 64 * 1024;
const MAX_TIMEOUT_S = 60;

export const pythonExec = defineTool({
  name: 'python_exec',
  title: 'Run MicroPython on the board',
  description:
    "Run MicroPython code on the board's REPL as given and return stdout, stderr and the exception if one was raised. It can do anything the board can: drive supplies, rewire, delete files.",
  group: 'exec',
  kind: 'destructive',
  capability: 'jumperless.exec',
  hidden: true,
  timeoutMs: (MAX_TIMEOUT_S + 10) * 1000,
  input: z.object({
    code: z.string().min(1).max(CODE_MAX_CHARS).describe('MicroPython source'),
    timeout_seconds: z
      .number()
      .min(0.1)
      .max(MAX_TIMEOUT_S)
      .default(10)
      .describe('Interrupted (Ctrl-C) after this'),
  }),
  output: z.object({
    ok: z.boolean(),
    stdout: z.string(),
    stderr: z.string(),
    /** Exception class and message when the code raised. */
    error: z.object({ type: z.string(), message: z.string() }).nullable(),
    truncated: z.boolean(),
    duration_ms: z.number(),
  }),
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
      };
    } catch (error) {
      if (isDeviceError(error, 'python_error')) {
        const details = error.details as {
          type?: string;
          pythonMessage?: string;
          traceback?: string;
          stdout?: string;
        };
        return {
          ok: false,
          stdout: details.stdout ?? '',
          stderr: details.traceback ?? error.message,
          error: { type: details.type ?? 'Error', message: details.pythonMessage ?? '' },
          truncated: false,
          duration_ms: Date.now() - started,
        };
      }
      if (isDeviceError(error, 'invalid_code')) {
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
