import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { voltageMeasure } from './measure.js';
import { dacSet, powerGet } from './power.js';
import {
  arduinoReset,
  boardLease,
  contextGet,
  contextToggle,
  corePause,
  deviceInfo,
  firmwareUndo,
} from './system.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
/** Test-only: the simulator's own pause flag, which the real firmware does not expose. */
const core2Paused = () =>
  h.python("__import__('json').loads(__import__('_fw').call('_core2_paused', '[]'))[1]");
afterAll(async () => h.close());

const refusal = (code: string) => expect.objectContaining({ code });

describe('system tools', () => {
  it('reports versions, resources and link health', async () => {
    const { result } = await h.run(deviceInfo);
    expect(result).toMatchObject({
      firmware: '5.7.11.0',
      machine: 'jumperless-v5 v5.7.11.0 with rp2350b',
      platform: 'jumperless-rp2350',
      ram_total_bytes: 64_000,
      psram: false,
      health: expect.objectContaining({ connected: true, state: 'ready' }),
    });
    expect(result.micropython).toMatch(/^1\.28\.0/);
    expect(result.firmware_functions).toBeGreaterThan(100);
    expect(result.flash_free_bytes).toBeGreaterThan(0);
    expect(result.ram_free_bytes).toBeGreaterThan(0);
    expect(result.ram_free_bytes).toBeLessThan(96_000);
  });

  it('still lists the firmware functions after a soft reset (no `jumperless` global then)', async () => {
    const before = (await h.run(deviceInfo)).result.firmware_functions;
    await h.client.exec('import sys\nsys.exit()');
    const { result } = await h.run(deviceInfo);
    expect(result.firmware_functions).toBe(before);
    expect(result.health).toMatchObject({ resets: 1 });
  });

  it('reads and switches the Python context, verified', async () => {
    expect((await h.run(contextGet)).result).toEqual({ context: 'global' });
    expect((await h.run(contextToggle)).result).toEqual({ context: 'python', previous: 'global' });
    expect(await h.python('context_get()')).toBe('python');
    // A target already reached is left alone.
    expect((await h.run(contextToggle, { context: 'python' })).result).toEqual({
      context: 'python',
      previous: 'python',
    });
    expect((await h.run(contextToggle, { context: 'global' })).result).toEqual({
      context: 'global',
      previous: 'python',
    });
    expect(await h.python('context_get()')).toBe('global');
  });

  it('pauses core 2 once, refuses a second pause, and resumes', async () => {
    const first = await h.run(corePause);
    expect(first.result).toMatchObject({ paused: true });
    expect(await core2Paused()).toBe(true);
    // The raw REPL's after-exec hook is compiled out (mpconfigport.h:517-523): later jobs keep it.
    await h.run(contextGet);
    expect(await core2Paused()).toBe(true);
    await expect(h.run(corePause)).rejects.toEqual(refusal('already_paused'));
    // Concurrent pauses: exactly one may win.
    await h.run(corePause, { resume: true });
    const both = await Promise.allSettled([h.run(corePause), h.run(corePause)]);
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const resumed = await h.run(corePause, { resume: true });
    expect(resumed.result).toEqual({ paused: false, was_paused: true });
    expect(await core2Paused()).toBe(false);
    expect((await h.run(corePause, { resume: true })).result).toEqual({ paused: false, was_paused: false });
  });

  it('pulses the Arduino reset', async () => {
    expect((await h.run(arduinoReset)).result).toEqual({ reset: true });
  });

  it("steps the firmware's history back and forward, naming the step it took", async () => {
    await h.python('connect(3, 9)');
    const undone = await h.run(firmwareUndo);
    expect(undone.result).toMatchObject({ changed: true, step: 'connect 3-9', stepped_over: [] });
    expect(await h.python('bool(is_connected(3, 9))')).toBe(false);
    const redone = await h.run(firmwareUndo, { redo: true });
    expect(redone.result).toMatchObject({ changed: true });
    expect(await h.python('bool(is_connected(3, 9))')).toBe(true);
    expect((await h.run(firmwareUndo, { redo: true })).result).toMatchObject({ changed: false, step: '' });
  });

  it("steps over a measurement's temporary bridges and names the change it undid (the issue's trap)", async () => {
    await h.python('connect(50, 51)');
    const measured = await h.run(voltageMeasure, { node: 15 });
    expect(measured.result).toMatchObject({ adc: 'ADC0', routed_temporarily: true });
    const undone = await h.run(firmwareUndo);
    expect(undone.result).toMatchObject({
      changed: true,
      step: 'connect 50-51',
      stepped_over: ['disconnect ADC_0-15', 'connect ADC_0-15'],
    });
    expect(await h.python('bool(is_connected(50, 51))')).toBe(false);
    expect(await h.python('bool(is_connected(ADC0, 15))')).toBe(false);
    const redone = await h.run(firmwareUndo, { redo: true });
    expect(redone.result).toMatchObject({
      changed: true,
      step: 'connect 50-51',
      stepped_over: ['connect ADC_0-15', 'disconnect ADC_0-15'],
    });
    expect(await h.python('bool(is_connected(50, 51))')).toBe(true);
    expect(await h.python('bool(is_connected(ADC0, 15))')).toBe(false);
  });

  it('refuses every hostile string as a context by validation', () => {
    for (const s of hostileStrings())
      expect(contextToggle.input.safeParse({ context: s }).success).toBe(false);
  });
});

describe('board_lease', () => {
  it("holds the board for one caller: others' changes are refused with who and until when, their reads work, until it is released", async () => {
    const alice = { caller: 'http:tok_alice' };
    const bob = { caller: 'http:tok_bob' };
    const taken = await h.run(boardLease, { minutes: 5 }, alice);
    expect(taken.result.holder).toBe('http:tok_alice');
    const until = taken.result.until as string;
    expect(Date.parse(until) - Date.now()).toBeGreaterThan(4 * 60_000);
    // The take says in words who is refused what, and how it ends (issue 20).
    expect(taken.result.means).toContain(`Until ${until}`);
    expect(taken.result.means).toMatch(
      /refused changes: another token, anonymous session or stdio process, your own other clients too unless they share this token; reads still work.*ends by itself.*0\b.*probe and menu .* not blocked/,
    );
    const before = await h.python<number>('__import__("jumperless").get_dac(1)');
    const refused = await h
      .run(dacSet, { channel: 'DAC1', volts: 2.5 }, bob)
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'busy',
      message: expect.stringContaining('leased to http:tok_alice until'),
      options: { details: expect.objectContaining({ leasedTo: 'http:tok_alice', until }), retryable: false },
    });
    expect((refused as Error).message).toContain('reads still work');
    expect((refused as Error).message).toContain('device_info');
    // Nothing of the refused call reached the board.
    expect(await h.python<number>('__import__("jumperless").get_dac(1)')).toBe(before);
    expect((await h.run(powerGet, {}, bob)).result).toHaveProperty('dac1_volts');
    // Who holds it, for anyone: board health (the board_health resource, device_info).
    expect((await h.client.health()).lease).toMatchObject({ holder: 'http:tok_alice', until });
    expect(await h.run(boardLease, { minutes: 1 }, bob).catch((error: unknown) => error)).toMatchObject({
      code: 'busy',
    });
    expect(await h.run(boardLease, { minutes: 0 }, bob).catch((error: unknown) => error)).toMatchObject({
      code: 'busy',
    });
    // Taking it again renews it from now; the holder works as usual; once released, anyone does.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renewed = await h.run(boardLease, { minutes: 5 }, alice);
    expect(Date.parse(renewed.result.until as string)).toBeGreaterThan(Date.parse(until));
    await h.run(dacSet, { channel: 'DAC1', volts: 1.5 }, alice);
    expect((await h.run(boardLease, { minutes: 0 }, alice)).result).toEqual({ released: true });
    expect((await h.run(dacSet, { channel: 'DAC1', volts: 0.5 }, bob)).result).toMatchObject({ volts: 0.5 });
  });

  it('refuses a lease of negative time or over a day by validation', () => {
    for (const minutes of [-1, 1441, Number.NaN, '5', undefined])
      expect(boardLease.input.safeParse({ minutes }).success, String(minutes)).toBe(false);
  });
});
