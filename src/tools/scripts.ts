/**
 * MicroPython scripts kept on the board (/python_scripts, where the board's own menu finds them):
 * script_run saves one after the board's own compiler has checked it, and runs it with a time limit
 * and its output; api_reference gives the API a script stands on. Saving and running are code, so
 * they take jumperless.exec, as python_exec does (DESIGN.md §4 "Trust").
 *
 * A save is whole or not at all: the text goes to a hidden file beside the script (`.name.py.part`,
 * dot-files are never listed), in 4 KB jobs, is checked by size, and only then replaces the script
 * (remove, then rename: FatFS's f_rename refuses an existing destination, ff.cpp:5871). A crash
 * between the two leaves the new text in the `.part` file and no script, never half a script.
 */
import { z } from 'zod';
import { ToolError } from '../core/errors.js';
import { defineTool } from '../core/toolDefinition.js';
import type { BoardClient } from '../device/board.js';
import { isDeviceError } from '../device/errors.js';
import { py } from '../device/pyLiteral.js';
import { refuseFaultingCode } from '../device/rawRepl.js';
import { API_REFERENCE, apiSection, apiSectionsFor, otherSections } from './apiReference.js';
import { checkText } from './oled.js';
import { defineDeviceTool } from './tool.js';

export const SCRIPTS_DIR = '/python_scripts';
/**
 * The largest script: its check sends it whole in one job (the compiler on the board needs all of
 * it), which a board without PSRAM holds twice next to its bytecode (heapLimits.test.ts).
 */
export const SCRIPT_MAX_BYTES = 8 * 1024;
const PART_BYTES = 4096;
const MAX_TIMEOUT_S = 60;
/** Output kept in a result: a model reads it all, so a chatty script's tail is cut. */
const OUTPUT_MAX_CHARS = 4000;

/**
 * Board-side code, sent with the job that needs it and deleted at its end rather than kept in the
 * primed helper: saving and running scripts is rare, and a board without PSRAM has no heap to
 * spare for it (the helper's functions stay resident; these took 1.7 KB there).
 */
const once = (def: string, name: string, call: string): string =>
  `${def}\ntry:\n    ${call}\nfinally:\n    del ${name}\n`;

const CHECK = `def _jls_check(src, name):
    import sys, io
    try:
        compile(src, name, 'exec')
    except SyntaxError as e:
        b = io.StringIO()
        sys.print_exception(e, b)
        return b.getvalue()`;

const PART = `def _jls_part(p, first, h):
    import jfs, binascii
    if first and not jfs.exists('${SCRIPTS_DIR}'):
        jfs.mkdir('${SCRIPTS_DIR}')
    f = jfs.open(p, 'wb' if first else 'r+b')
    try:
        f.seek(0, 2)
        f.write(binascii.unhexlify(h))
        f.flush()
        return f.size()
    finally:
        f.close()`;

const COMMIT = `def _jls_commit(part, path):
    import jfs
    if jfs.exists(path):
        jfs.remove(path)
    jfs.rename(part, path)
    return jfs.stat(path)[6]`;

const GO = `def _jls_go(p):
    f = open(p)
    src = []
    try:
        while True:
            t = f.read(4096)
            if not t:
                break
            src.append(t)
    finally:
        f.close()
    g = {'__name__': '__main__'}
    exec('from jumperless import *', g)
    exec(compile(''.join(src), p, 'exec'), g)`;

/** Runs `def` once and returns what `expression` (calling it) gives; the function is deleted after. */
async function callOnce<T>(board: BoardClient, def: string, name: string, expression: string): Promise<T> {
  return board.script<T>(once(def, name, `_jlh.out(${expression})`));
}

const exists = async (board: BoardClient, path: string): Promise<boolean> =>
  z.boolean().parse(await board.call(py`__import__('jfs').exists(${path})`));

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;
const nameField = z
  .string()
  .min(1)
  .max(43)
  .transform((n) => n.replace(/\.py$/, ''))
  .refine((n) => NAME.test(n), 'a letter, then letters, digits, _ or - (up to 40), e.g. blink');

const pathOf = (name: string): string => `${SCRIPTS_DIR}/${name}.py`;

/** `File "name", line N` and the last line of a MicroPython traceback. */
export function pythonErrorAt(traceback: string, file: string): { line: number | null; message: string } {
  const lines = traceback.trim().split('\n');
  let line: number | null = null;
  for (const l of lines) {
    const m = /File "([^"]*)", line (\d+)/.exec(l);
    if (m && m[1] === file) line = Number(m[2]);
  }
  return { line, message: lines.at(-1)?.trim() ?? traceback };
}

/** Checks `code` with the board's compiler and saves it whole as `path`; says whether it replaced one. */
async function saveScript(board: BoardClient, name: string, code: string): Promise<boolean> {
  checkText(code, 'code');
  try {
    // The session's net for code sent as text does not see a script run from a file.
    refuseFaultingCode(code);
  } catch (error) {
    if (isDeviceError(error, 'invalid_code')) throw new ToolError('invalid_code', `${error.message}.`);
    throw error;
  }
  const bytes = Buffer.from(code, 'utf8');
  if (bytes.length > SCRIPT_MAX_BYTES) {
    throw new ToolError('too_large', `${bytes.length} bytes: a script holds at most ${SCRIPT_MAX_BYTES}.`);
  }
  const path = pathOf(name);
  const problem = z
    .string()
    .nullable()
    .parse(await callOnce(board, CHECK, '_jls_check', py`_jls_check(${code}, ${path})`));
  if (problem !== null) {
    const at = pythonErrorAt(problem, path);
    throw new ToolError(
      'syntax_error',
      `${path}${at.line === null ? '' : `, line ${at.line}`}: ${at.message}. Nothing was saved or run.`,
      { details: { line: at.line } },
    );
  }
  const existed = await exists(board, path);
  const part = `${SCRIPTS_DIR}/.${name}.py.part`;
  for (let offset = 0; offset < bytes.length; offset += PART_BYTES) {
    const chunk = bytes.subarray(offset, offset + PART_BYTES).toString('hex');
    const size = z
      .number()
      .parse(await callOnce(board, PART, '_jls_part', py`_jls_part(${part}, ${offset === 0}, ${chunk})`));
    if (size !== Math.min(bytes.length, offset + PART_BYTES)) {
      throw new ToolError(
        'not_applied',
        `The board took ${size} of ${bytes.length} bytes (is the flash full?); ${path} was not changed.`,
      );
    }
  }
  const size = z
    .number()
    .parse(await callOnce(board, COMMIT, '_jls_commit', py`_jls_commit(${part}, ${path})`));
  if (size !== bytes.length) {
    throw new ToolError('not_applied', `${path} holds ${size} bytes after saving ${bytes.length}.`);
  }
  return existed;
}

const tail = (text: string): string =>
  text.length <= OUTPUT_MAX_CHARS ? text : `...${text.slice(text.length - OUTPUT_MAX_CHARS)}`;

/** Runs a saved script under a time limit: what it printed, and its error with the script line. */
async function runScript(board: BoardClient, path: string, timeoutSeconds: number) {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  try {
    const result = await board.exec(once(GO, '_jls_go', py`_jls_go(${path})`), {
      timeoutMs: timeoutSeconds * 1000,
    });
    return { ok: true, output: tail(result.stdout), error: null, timed_out: false, seconds: seconds() };
  } catch (error) {
    if (isDeviceError(error, 'python_error')) {
      const details = error.details as { traceback?: string; stdout?: string };
      return {
        ok: false,
        output: tail(details.stdout ?? ''),
        error: pythonErrorAt(details.traceback ?? error.message, path),
        timed_out: false,
        seconds: seconds(),
      };
    }
    if (isDeviceError(error, 'timeout')) {
      const details = error.details as { stdout?: string };
      return {
        ok: false,
        output: tail(details.stdout ?? ''),
        error: { line: null, message: `stopped after ${timeoutSeconds} s` },
        timed_out: true,
        seconds: seconds(),
      };
    }
    throw error;
  }
}

/**
 * One tool for both halves (a save is usually followed by a run, and one call is one less for a
 * model): with code it checks and saves first; run: false only saves.
 */
export const scriptRun = defineDeviceTool({
  name: 'script_run',
  title: 'Save and run a MicroPython script',
  description: `Run ${SCRIPTS_DIR}/<name>.py (.py optional; time limit): its output, or error and line. With code: compiled on the board, saved first (run: false only saves). Module jumperless pre-imported.`,
  group: 'scripts',
  kind: 'destructive',
  capability: 'jumperless.exec',
  timeoutMs: (MAX_TIMEOUT_S + 75) * 1000,
  input: z.object({
    name: nameField,
    code: z.string().min(1).max(SCRIPT_MAX_BYTES).optional(),
    run: z.boolean().default(true),
    timeout_seconds: z.number().min(0.1).max(MAX_TIMEOUT_S).default(10),
  }),
  output: z.object({
    path: z.string(),
    saved: z.enum(['new', 'replaced']).optional().describe('When code was given'),
    ran: z.boolean(),
    ok: z.boolean().describe('Ran to the end without an exception (or only saved)'),
    output: z.string().describe('What it printed (the end, if long)'),
    error: z.object({ line: z.number().nullable(), message: z.string() }).nullable(),
    timed_out: z.boolean(),
    seconds: z.number(),
  }),
  handle: async ({ name, code, run, timeout_seconds }, { board }) => {
    const path = pathOf(name);
    const saved =
      code === undefined
        ? {}
        : { saved: (await saveScript(board, name, code)) ? ('replaced' as const) : ('new' as const) };
    if (!run)
      return { path, ...saved, ran: false, ok: true, output: '', error: null, timed_out: false, seconds: 0 };
    if (code === undefined && !(await exists(board, path))) {
      throw new ToolError('not_found', `No script ${path}: give its code to save it first.`);
    }
    return { path, ...saved, ran: true, ...(await runScript(board, path, timeout_seconds)) };
  },
});

/**
 * What a section alone would leave a script's author to guess: whether to import the API. The
 * board's own runners need no import either: the menu's file runner (FilesystemStuff.cpp:1123-1139)
 * runs a file's text with mp_embed_exec_str (Python_Proper.cpp:4831-4847) in the globals that got
 * `from jumperless import *` at VM start (2544-2608) and after a soft reset
 * (JumperlessMicroPythonAPI.cpp:1407); map588/JumperlOS @1384da4.
 */
export const SCRIPT_GLOBALS =
  'Every function below is in the `jumperless` module, imported already in script_run code and in scripts the board runs itself (no import line); `import time` for sleeps.';

/**
 * The module reference a script needs, for a model that cannot open resources by itself. A topic
 * in the asker's words picks the sections (no list of section names to choose from blind), and the
 * answer names the other sections in a line each.
 */
export const apiReference = defineTool({
  name: 'api_reference',
  title: 'The jumperless module, in brief',
  description:
    'MicroPython API for board scripts: functions, arguments, units, hazards. topic: a function or words (adc_get, read volts, pwm); none: all.',
  group: 'scripts',
  kind: 'read',
  capability: 'jumperless.read',
  input: z.object({ topic: z.string().max(200).optional() }),
  output: z.object({ text: z.string() }),
  handle: async ({ topic }) => {
    if (topic === undefined || topic.trim() === '') return { text: API_REFERENCE };
    const shown = apiSectionsFor(topic);
    const head =
      shown.length === 0
        ? 'No section of the reference matches that topic.'
        : `${SCRIPT_GLOBALS}\n\n${shown.map(apiSection).join('\n')}`;
    return { text: `${head}\n\nOther sections (topic: a name below):\n${otherSections(shown)}` };
  },
});

export default [scriptRun, apiReference];
