/**
 * The tools' own helper namespace on the board, `_jlt`, made of parts: Python `def`s (unindented,
 * each a method of `_jlt`), owned by the module whose code calls them. A tool group lists every
 * part its tools call, its own and the shared ones (the snapshot, the RAM state), so no group
 * relies on another's.
 */
import type { HelperModule } from '../device/session.js';

export interface PythonPart {
  /** Unique among all parts: the same part listed by several groups is put in once. */
  readonly name: string;
  readonly source: string;
}

/** The union of the parts the groups list, each once, in the order first listed; two different parts under one name are refused. */
export function toolsHelper(parts: readonly PythonPart[]): HelperModule {
  const byName = new Map<string, PythonPart>();
  for (const part of parts) {
    const known = byName.get(part.name);
    if (known && known.source !== part.source) {
      throw new Error(`Two board-side helper parts are named ${part.name}.`);
    }
    byName.set(part.name, part);
  }
  const body = [...byName.values()]
    .flatMap((part) => part.source.trim().split('\n'))
    .map((line) => (line.trim() === '' ? '' : `    ${line}`))
    .join('\n');
  return { name: '_jlt', source: `class _jlt:\n    V = 1\n${body}\n` };
}
