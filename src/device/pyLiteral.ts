/**
 * Python source from values: `pyLiteral` turns a JSON-like value into Python source text made only
 * of printable ASCII, so user text never becomes code and never carries a byte the raw REPL would
 * act on (spec §3.2, §3.3); `py` builds a snippet with every interpolated value such a literal.
 * Every value that goes into a snippet passes through here (DESIGN.md §4 "Device").
 */
import { DeviceError } from './errors.js';

export type PyValue =
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | PyValue[]
  | { [key: string]: PyValue };

/**
 * Builds Python source where every interpolated value becomes a literal (DESIGN.md §4: user text
 * never becomes code). `py\`_jlt.connect(${a}, ${b})\`` with a = "1'); import os; ('" gives a string
 * argument, not a statement.
 */
export function py(strings: TemplateStringsArray, ...values: PyValue[]): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += pyLiteral(values[i]) + (strings[i + 1] ?? '');
  return out;
}

export function pyLiteral(value: PyValue): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new DeviceError(
        'invalid_code',
        `cannot pass ${value} to Python: only finite numbers are allowed`,
      );
    }
    if (Object.is(value, -0)) return '-0.0';
    // JS and Python read the same decimal and exponent forms (e.g. 1e+21, 5e-7).
    return String(value);
  }
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) return `[${value.map(pyLiteral).join(', ')}]`;
  const entries = Object.entries(value).map(([key, item]) => `${pyString(key)}: ${pyLiteral(item)}`);
  return `{${entries.join(', ')}}`;
}

export function pyString(text: string): string {
  let out = "'";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') out += '\\\\';
    else if (char === "'") out += "\\'";
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code < 0x100) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdfff)
      out += '\\ufffd'; // a lone surrogate has no UTF-8 form
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}'`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
