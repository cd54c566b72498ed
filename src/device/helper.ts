/**
 * The helper namespace the session keeps in the board's RAM (DESIGN.md §4 "Device"): one small
 * class, `_jlh`, so each call is a one-line snippet whose result comes back as one marked JSON
 * line. Generic on purpose; the tools layer registers its own helpers next to it.
 */
import { DeviceError } from './errors.js';

export const HELPER_NAME = '_jlh';
/** Bump when HELPER_SOURCE changes, so a board primed by an older version gets the new one. */
export const HELPER_VERSION = 4;
/** Starts the result line; a control char no program prints by accident. */
export const RESULT_MARKER = '\x1ejlh:';

/**
 * Python source; only printable ASCII (the marker is written as an escape). `out` streams the JSON
 * (json.dump to sys.stdout) rather than building it: on a 96 KB heap a result is held once, not
 * three times. `outs(f, g, ...)` streams a JSON list of f(), g(), ...: each item is made after the
 * previous one was written and dropped, so the board holds the largest item, not all of them (a
 * full board's snapshot is 33 KB of state text, then 13 KB of bridges and nets). `fw()` lists the
 * firmware's names through `__import__`: the `jumperless` global is gone after any soft reset
 * (JumperlessMicroPythonAPI.cpp:1403-1407, Python_Proper.cpp:2530-2536), the module is not.
 */
export const HELPER_SOURCE = `import json as _jlj, sys as _jls
class _jlh:
    V = ${HELPER_VERSION}
    def out(v):
        _jls.stdout.write('\\x1ejlh:')
        _jlj.dump(v, _jls.stdout)
        _jls.stdout.write('\\n')
    def outs(*f):
        _jls.stdout.write('\\x1ejlh:[')
        for i in range(len(f)):
            if i:
                _jls.stdout.write(',')
            _jlj.dump(f[i](), _jls.stdout)
        _jls.stdout.write(']\\n')
    def info():
        i = _jls.implementation
        return {'micropython': '.'.join(str(x) for x in i.version[:3]), 'machine': getattr(i, '_machine', ''), 'platform': _jls.platform}
    def fw():
        return [n for n in dir(__import__('jumperless')) if not n.startswith('_')]
`;

/**
 * Puts the firmware's names back in the globals, as every boot and soft reset does
 * (JumperlessMicroPythonAPI.cpp:1407): the helpers call them bare, and user code may have deleted
 * or rebound one.
 */
export const RESTORE_FIRMWARE_GLOBALS = 'from jumperless import *';

/** Prints 1 when the current helper is loaded, 0 otherwise. */
export const HELPER_CHECK = `print(1 if getattr(globals().get('${HELPER_NAME}'), 'V', 0) == ${HELPER_VERSION} else 0)`;

/** Wraps a Python expression so its value comes back as the marked JSON line. */
export function callSnippet(expression: string): string {
  return `${HELPER_NAME}.out(${expression})`;
}

/** Finds the last marked line in stdout and parses its JSON. */
export function parseMarked(stdout: string): unknown {
  const start = stdout.lastIndexOf(RESULT_MARKER);
  if (start < 0) {
    throw new DeviceError('protocol', 'the board printed no result line', { stdout: stdout.slice(-2000) });
  }
  const end = stdout.indexOf('\n', start);
  const text = stdout.slice(start + RESULT_MARKER.length, end < 0 ? undefined : end);
  try {
    return JSON.parse(text);
  } catch {
    throw new DeviceError('protocol', `the board's result is not JSON: ${text.slice(0, 200)}`, {
      stdout: stdout.slice(-2000),
    });
  }
}

/**
 * True when a helper job failed because a global it relies on is gone: a helper namespace or one of
 * its module aliases (the board was reset behind our back, or user code deleted it), or a firmware
 * name the helpers call bare. Helper code runs no user code, so any NameError in it means this.
 */
export function isMissingHelper(type: string): boolean {
  return type === 'NameError';
}
