import { type PyValue, pyLiteral } from '../device/pyLiteral.js';

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
