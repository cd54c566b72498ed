/** Reads a MicroPython traceback (the stderr part of a raw-REPL reply) into its parts. */

export interface PythonErrorInfo {
  /** Exception class, e.g. `ZeroDivisionError`, `KeyboardInterrupt`. */
  type: string;
  /** Text after the colon, e.g. `divide by zero`; empty when the exception has none. */
  message: string;
  /** The whole stderr text, traceback lines included. */
  traceback: string;
}

export function parsePythonError(stderr: string): PythonErrorInfo {
  const lines = stderr.split(/\r?\n/).filter((line) => line.trim() !== '');
  const last = lines.at(-1) ?? '';
  const match = /^([A-Za-z_][\w.]*)(?::\s?(.*))?$/.exec(last.trim());
  if (match?.[1]) return { type: match[1], message: match[2] ?? '', traceback: stderr };
  return { type: 'Error', message: last.trim(), traceback: stderr };
}
