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

const TRACEBACK_HEADER = 'Traceback (most recent call last):';

/**
 * Whether stderr reads as MicroPython's report of an uncaught exception: text whose last line is `Type` or `Type: message`, after a traceback header when there is more than one
 * line. Our helpers always run in a function frame, so their errors always have the header.
 * Anything else on stderr (binary junk, a half reply) is the link's fault, not the code's.
 */
export function isExceptionReport(stderr: string, needsTraceback: boolean): boolean {
  // U+FFFD: bytes that were not UTF-8; control characters other than tab and line ends. Only for
  // our helpers: a user's code may well raise with such text in its message.
  if (needsTraceback && /[\uFFFD\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(stderr)) return false;
  const lines = stderr.split(/\r?\n/).filter((line) => line.trim() !== '');
  const last = lines.at(-1)?.trim() ?? '';
  // [\s\S]: a message may hold U+2028 and U+2029, which `.` does not match.
  if (!/^[A-Za-z_][\w.]*(?::[\s\S]*)?$/.test(last)) return false;
  const headed = lines[0]?.trim() === TRACEBACK_HEADER;
  if (needsTraceback) return headed;
  return lines.length === 1 || headed;
}
