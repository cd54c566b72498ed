/**
 * A python_exec that soft-resets the board (SystemExit) wipes every Python global, the tools'
 * helpers and the `jumperless` global included (JumperlessMicroPythonAPI.cpp:1336-1436,
 * Python_Proper.cpp:2530-2536). Every tool group must still work right after, through the same
 * firmware-function check dispatch makes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import type { AnyTool } from '../core/toolDefinition.js';
import { pythonExec } from './exec.js';
import { catalog } from './index.js';

/** One cheap read-only tool per group file, with its arguments. */
const READS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['power_get', {}],
  ['gpio_get', { pin: 1 }],
  ['bridges_list', {}],
  ['current_measure', { window_ms: 0 }],
  ['overlay_list', {}],
  ['wavegen_status', {}],
  ['oled_show', {}],
  ['clickwheel_read', {}],
  ['slot_current', {}],
  ['state_get', {}],
  ['file_list', {}],
  ['device_info', {}],
  ['context_get', {}],
  ['api_reference', { topic: 'scripts' }],
];

function tool(name: string): AnyTool {
  const found = catalog.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

/** Runs a tool as dispatch does: the firmware must offer what it requires, then the handler. */
async function runChecked(name: string, args: Record<string, unknown>) {
  const t = tool(name);
  const available = await h.client.firmwareFunctions();
  expect(t.requires?.filter((n) => !available.has(n)) ?? []).toEqual([]);
  return h.run(t, args);
}

describe('tools after a soft reset from python_exec', () => {
  it('covers every group file', () => {
    const groups = new Set(catalog.map((t) => t.group));
    const covered = new Set(READS.map(([name]) => tool(name).group));
    covered.add(pythonExec.group);
    expect([...groups].filter((g) => !covered.has(g))).toEqual([]);
  });

  it.each(['import sys\nsys.exit()', 'raise SystemExit'])(
    '%s, then one tool of every group',
    async (code) => {
      // Prime the function list first, so the reset must invalidate it.
      await runChecked('power_get', {});
      const { result } = await h.run(pythonExec, { code: `x = 1\n${code}` });
      expect(result).toMatchObject({
        ok: true,
        soft_reset: true,
        note: expect.stringContaining('re-primed'),
      });
      expect(await h.python("'x' in globals() or 'jumperless' in globals()")).toBe(false);
      for (const [name, args] of READS) {
        const outcome = await runChecked(name, args).then(
          () => 'ok',
          (error: unknown) => (error instanceof ToolError ? error.code : error),
        );
        // The virtual board has no OLED fitted: that refusal comes from the board, so the group works.
        expect([`${name}: ok`, 'oled_show: no_display']).toContain(`${name}: ${String(outcome)}`);
      }
      const after = await h.run(pythonExec, { code: 'print(1)' });
      expect(after.result).toMatchObject({ ok: true, stdout: '1\n', soft_reset: false, note: null });
    },
  );
});
