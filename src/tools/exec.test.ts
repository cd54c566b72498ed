import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import { CODE_MAX_CHARS, pythonExec } from './exec.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

describe('python_exec', () => {
  it('is listed (to exec holders only: listTools filters), destructive, and needs the exec capability', () => {
    expect(pythonExec).toMatchObject({ kind: 'destructive', capability: 'jumperless.exec' });
    expect(pythonExec.hidden).not.toBe(true);
  });

  it('runs code as given and returns its output', async () => {
    const { result } = await h.run(pythonExec, { code: 'x = 6 * 7\nprint(x)\nprint(dac_get(0))' });
    expect(result).toMatchObject({
      ok: true,
      stdout: '42\n3.33\n',
      stderr: '',
      error: null,
      truncated: false,
      soft_reset: false,
      note: null,
    });
  });

  it('says when the code soft-reset the board, and the next call finds its globals gone', async () => {
    await h.run(pythonExec, { code: 'y = 5' });
    const { result } = await h.run(pythonExec, {
      code: "print('bye')\nimport machine\nmachine.soft_reset()",
    });
    expect(result).toMatchObject({ ok: true, stdout: 'bye\n', soft_reset: true, error: null });
    expect(result.note).toMatch(/soft-reset the board.*re-primed/);
    const next = await h.run(pythonExec, { code: 'print(y)' });
    expect(next.result).toMatchObject({ ok: false, error: { type: 'NameError' }, soft_reset: false });
  });

  it('explains a MemoryError', async () => {
    const { result } = await h.run(pythonExec, { code: "raise MemoryError('memory allocation failed')" });
    expect(result).toMatchObject({ ok: false, error: { type: 'MemoryError' } });
    expect(result.note).toMatch(/ran out of heap/);
  });

  it('returns an exception as a result, with the traceback and what was printed before it', async () => {
    const { result } = await h.run(pythonExec, { code: "print('before')\n1/0" });
    expect(result).toMatchObject({
      ok: false,
      stdout: 'before\n',
      error: { type: 'ZeroDivisionError', message: 'divide by zero' },
    });
    expect(result.stderr).toContain('Traceback');
  });

  it('interrupts code that overruns its timeout, and the next call works', async () => {
    const outcome = await h
      .run(pythonExec, { code: 'import time\nwhile True:\n    time.sleep(0.01)', timeout_seconds: 0.3 })
      .catch((e: unknown) => e);
    // What a client sees: the device's timeout as a tool failure, retryable.
    expect(outcome).toMatchObject({ code: 'timeout', options: { retryable: true } });
    expect((await h.run(pythonExec, { code: 'print(1)' })).result).toMatchObject({ ok: true, stdout: '1\n' });
  });

  it('refuses raw-REPL control bytes with a hint', async () => {
    await expect(h.run(pythonExec, { code: "print('a\x03b')" })).rejects.toMatchObject({
      code: 'invalid_code',
    });
    const escaped = await h.run(pythonExec, { code: "print(len('a\\x03b'))" });
    expect(escaped.result).toMatchObject({ ok: true, stdout: '3\n' });
  });

  it('refuses native, viper and asm_thumb code before anything is sent, and says why', async () => {
    const code =
      'ran = 1\nimport micropython\n@micropython.viper\ndef f(x: int) -> int:\n    return x\nprint(f(2))';
    const refused = await h.run(pythonExec, { code }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ToolError);
    expect(refused).toMatchObject({ code: 'invalid_code' });
    expect((refused as Error).message).toMatch(
      /line 3: @micropython\.viper code hard-faults the Jumperless V5.*5\.7\.0\.13 and 5\.7\.11\.0.*Nothing was sent/,
    );
    expect(await h.python("'ran' in globals()")).toBe(false);
  });

  it('never wedges the session, whatever the code', async () => {
    for (const code of hostileStrings()) {
      const outcome: { ok: boolean } | Error = await h
        .run<{ ok: boolean }>(pythonExec, { code, timeout_seconds: 5 })
        .then(
          (r) => r.result,
          (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
        );
      if (outcome instanceof ToolError) expect(outcome.code).toBe('invalid_code');
      else if (outcome instanceof Error) expect(code.length === 0 || code.length > CODE_MAX_CHARS).toBe(true);
      else expect(typeof outcome.ok).toBe('boolean');
      expect(await h.python('1 + 1')).toBe(2);
    }
  }, 120_000);
});
