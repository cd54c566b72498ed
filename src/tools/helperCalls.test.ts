/**
 * Meta-test over the whole catalog: every `_jlt.<name>` a tool (or another helper) uses is defined
 * in some group's board-side Python, and the helper compiles and defines them on a board. A helper
 * called but defined nowhere would fail only on the board, at the worst moment.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { boardHelper, groups } from './index.js';
import { toolsHelper } from './pythonParts.js';

const toolsDir = fileURLToPath(new URL('.', import.meta.url));
const sources = readdirSync(toolsDir)
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !/^test[A-Z]/.test(name))
  .map((name) => ({ name, text: readFileSync(toolsDir + name, 'utf8') }));

/** Functions the helper class defines (one level of indentation inside `class _jlt`). */
const defined = new Set([...boardHelper.source.matchAll(/^ {4}def ([A-Za-z_]\w*)\(/gm)].map((m) => m[1]));
/** Attributes the helper stores on itself (`_jlt.name = ...`), e.g. a saved framebuffer. */
const stored = new Set([...boardHelper.source.matchAll(/_jlt\.([A-Za-z_]\w*)\s*=(?!=)/g)].map((m) => m[1]));

function uses(): Array<{ file: string; name: string }> {
  const found: Array<{ file: string; name: string }> = [];
  for (const { name: file, text } of sources) {
    // Comments may mention helpers that do not exist; code may not.
    const code = text.replace(/^\s*(\/\/|\/?\*|#).*$/gm, '');
    for (const m of code.matchAll(/_jlt\.([A-Za-z_]\w*)/g)) found.push({ file, name: m[1] as string });
  }
  return found;
}

describe('board-side helpers', () => {
  it('every _jlt name a tool or helper uses is defined by some group', () => {
    const missing = uses().filter((u) => u.name !== 'V' && !defined.has(u.name) && !stored.has(u.name));
    expect(missing).toEqual([]);
    expect(defined.size).toBeGreaterThan(20);
  });

  it('no helper function is defined twice (a later group would silently replace it)', () => {
    const all = [...boardHelper.source.matchAll(/^ {4}def ([A-Za-z_]\w*)\(/gm)].map((m) => m[1]);
    expect(all.filter((name, i) => all.indexOf(name) !== i)).toEqual([]);
  });

  it('each group lists every part its board-side code calls, not relying on another group', () => {
    const missing = groups.flatMap((group) => {
      const source = toolsHelper(group.python ?? []).source;
      const own = new Set([...source.matchAll(/^ {4}def ([A-Za-z_]\w*)\(/gm)].map((m) => m[1]));
      const kept = new Set([...source.matchAll(/_jlt\.([A-Za-z_]\w*)\s*=(?!=)/g)].map((m) => m[1]));
      const calls = [...source.matchAll(/_jlt\.([A-Za-z_]\w*)/g)].map((m) => m[1] as string);
      const name = group.default[0]?.group ?? '?';
      return calls.filter((n) => n !== 'V' && !own.has(n) && !kept.has(n)).map((n) => `${name}: _jlt.${n}`);
    });
    expect(missing).toEqual([]);
  });

  it('puts each part in once, and refuses two different parts under one name', () => {
    const part = { name: 'p', source: 'def p_one():\n    return 1\n' };
    expect(toolsHelper([part, part, { ...part }]).source.match(/def p_one/g)).toHaveLength(1);
    expect(() => toolsHelper([part, { name: 'p', source: 'def p_two():\n    return 2\n' }])).toThrow(
      /named p/,
    );
  });

  describe('on the virtual board', () => {
    let harness: ToolHarness;
    beforeAll(async () => {
      harness = await startToolHarness();
    });
    afterAll(async () => {
      await harness.close();
    });

    it('the primed helper defines every function the catalog uses', async () => {
      const names = [...new Set(uses().map((u) => u.name))].filter((n) => n !== 'V' && !stored.has(n));
      const absent = await harness.python<string[]>(
        `[n for n in ${JSON.stringify(names)} if not hasattr(_jlt, n)]`,
      );
      expect(absent).toEqual([]);
    });
  });
});
