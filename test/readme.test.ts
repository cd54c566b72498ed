/**
 * The README's figures, each measured here from what it describes, so a change that moves one
 * fails until the README says the new one (issue 24 found it 25% off). Sizes are rounded as the
 * README prints them: KB to the unit, tokens to the hundred.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { citesLaterSource, PROBES, probesFor } from '../src/board/probes.js';
import { CAPABILITIES, type Capability } from '../src/core/capabilities.js';
import { createDispatcher } from '../src/core/dispatcher.js';
import { listTools } from '../src/core/listTools.js';
import { ToolSubsystem } from '../src/core/toolSubsystem.js';
import { catalog } from '../src/tools/index.js';
import { TOOLSET_NAMES } from '../src/tools/toolsets.js';
import { startToolHarness } from './support/toolHarness.js';

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

/** The numbers a README sentence holds; fails, quoting the pattern, when the sentence is gone. */
function figures(pattern: RegExp): number[] {
  const match = pattern.exec(readme);
  expect(match, `README no longer says ${pattern}`).not.toBeNull();
  return (match as RegExpExecArray).slice(1).map((text) => Number(text.replace(/,/g, '')));
}

const kb = (bytes: number) => Math.round(bytes / 1000);
const hundreds = (n: number) => Math.round(n / 100) * 100;

describe("the README's figures", () => {
  const dispatcher = createDispatcher({ root: new ToolSubsystem({ name: 'local', tools: catalog }) });
  const operator = { granted: new Set<Capability>(CAPABILITIES) };
  const list = (mode: 'full' | 'names' | 'discovery') =>
    JSON.stringify(listTools(dispatcher, { caller: operator, mode }));

  it("give the size of one board's tools/list in bytes and tokens (npm run bench:catalog)", () => {
    const full = list('full');
    const [size, tokens] = figures(/full `tools\/list` is about (\d+) KB \(about ([\d,]+) tokens/);
    expect(size, `full: ${Buffer.byteLength(full)} bytes`).toBe(kb(Buffer.byteLength(full)));
    expect(tokens, `full: ${countTokens(full)} tokens`).toBe(hundreds(countTokens(full)));
    const [names] = figures(/`tools_describe` for the schemas; about (\d+) KB\)/);
    expect(names).toBe(kb(Buffer.byteLength(list('names'))));
    figures(/`discovery`\s+\(only those two; under 1 KB\)/);
    expect(Buffer.byteLength(list('discovery'))).toBeLessThan(1000);
  });

  it('count the tools, toolsets and firmware probes', () => {
    expect(figures(/(\d+) tools in (\d+) toolsets/)).toEqual([catalog.length, TOOLSET_NAMES.length]);
    const count = (keep: (probe: (typeof PROBES)[number]) => boolean) => PROBES.filter(keep).length;
    expect(
      figures(
        /(\d+) probes: (\d+) read-only, (\d+)\s+that change the board, (\d+) about power-on defaults, (\d+) of them raw-REPL/,
      ),
    ).toEqual([
      PROBES.length,
      count((p) => !p.mutates),
      count((p) => p.mutates),
      count((p) => p.kind === 'exec' && p.fresh),
      count((p) => p.kind === 'raw'),
    ]);
  });

  it('count the probes of each firmware release, and those that cite a 5.7.11 source', () => {
    expect(
      figures(
        /(\d+) hold for 5\.7\.0\.13 and (\d+) for 5\.7\.11\.0, (\d+) of those\s+cite a 5\.7\.11 source/,
      ),
    ).toEqual([
      probesFor('5.7.0.13').length,
      probesFor('5.7.11.0').length,
      probesFor('5.7.11.0').filter(citesLaterSource).length,
    ]);
  });

  it("give the heap a board job has once the server's helpers are in (as src/tools/heapLimits.test.ts measures it)", async () => {
    const h = await startToolHarness({ firmware: '5.7.0.13' });
    try {
      await h.python('1');
      const free = Number(
        (await h.client.exec('import gc\ngc.collect()\nprint(gc.mem_free())')).stdout.trim(),
      );
      expect(figures(/\(about (\d+) KB once\s+the server's helpers are in\)/)).toEqual([kb(free)]);
    } finally {
      await h.close();
    }
  }, 60_000);
});
