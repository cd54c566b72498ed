import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { gpioConfig, gpioGet, pwmStart, pwmStop } from './gpio.js';
import { voltageMeasure } from './measure.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.python('nodes_clear()');
  await h.python("[gpio_set_dir(p, 'INPUT') for p in range(1, 9)]");
});

const refusal = (code: string) => expect.objectContaining({ code });

describe('gpio tools', () => {
  it('drives a row the same whether the pin was connected before or after gpio_config, and reads the pin back', async () => {
    // Configured, then connected.
    const first = await h.run(gpioConfig, { pin: 3, level: 'HIGH' });
    expect(first.result).toMatchObject({
      state: 'HIGH',
      direction: 'OUTPUT',
      state_means: expect.any(String),
    });
    await h.python('connect(GPIO_3, 25)');
    // Connected, then configured.
    await h.python('connect(GPIO_4, 27)');
    const second = await h.run(gpioConfig, { pin: 4, level: 'HIGH' });
    expect(second.result).toMatchObject({ state: 'HIGH', direction: 'OUTPUT', net: expect.any(String) });
    const volts = async (node: number) =>
      ((await h.run(voltageMeasure, { node })).result as { volts: number }).volts;
    const [after, before] = [await volts(25), await volts(27)];
    expect(after).toBeGreaterThan(3);
    expect(Math.abs(after - before)).toBeLessThan(0.05);
  });

  it('reads a pin: level, direction, pull and net', async () => {
    await h.python('connect(7, GPIO_1)');
    const { result } = await h.run(gpioGet, { pin: 1 });
    expect(result).toMatchObject({
      pin: 1,
      node: 'GPIO_1',
      direction: 'INPUT',
      state: 'LOW',
      held_by_pull: true,
      net: 'Net 6',
    });
  });

  it('drives a pin: makes it an output first, and the board agrees', async () => {
    // Said plainly where a model reads it (issue 20: "pull (level alone: output)" was cryptic).
    expect(gpioConfig.description).toMatch(/level alone makes it an output driving it/);
    const { result } = await h.run(gpioConfig, { pin: 2, level: 'HIGH' });
    expect(result).toMatchObject({ pin: 2, level: 'HIGH', direction: 'OUTPUT', net: null });
    expect(await h.python('str(gpio_get_dir(2))')).toBe('OUTPUT');
  });

  it('says a pin runs PWM, with the rate this server started it at, or that the firmware gives none', async () => {
    try {
      // Issue 20: a snapshot level alone could not tell a PWM pin from a steady one.
      expect((await h.run(gpioGet, { pin: 5 })).result).not.toHaveProperty('pwm');
      await h.run(pwmStart, { pin: 5, frequency_hz: 2, duty_cycle: 0.25 });
      const slow = (await h.run(gpioGet, { pin: 5 })).result;
      expect(slow).toMatchObject({
        pwm: { frequency_hz: 2, duty_cycle: 0.25 },
        state_means: expect.stringMatching(/pwm: PWM drives the pin at this rate.*state is one moment of it/),
      });
      // Started by a script (hardware PWM): running, its rate not reported by the firmware.
      await h.session.exec('pwm(3, 1000, 0.5)');
      const fast = (await h.run(gpioGet, { pin: 3 })).result;
      expect(fast).toMatchObject({
        pwm: { frequency_hz: null, duty_cycle: null },
        state_means: expect.stringMatching(/does not report its rate/),
      });
      await h.run(pwmStop, { pin: 5 });
      expect((await h.run(gpioGet, { pin: 5 })).result).not.toHaveProperty('pwm');
      // Stopped here, then started again by a script: not at the rate this server once set.
      await h.session.exec('pwm(5, 1000, 0.5)');
      expect((await h.run(gpioGet, { pin: 5 })).result).toMatchObject({
        pwm: { frequency_hz: null, duty_cycle: null },
      });
    } finally {
      await h.session.exec('pwm_stop(3)\npwm_stop(5)');
    }
  });

  it('sends directions as strings (an int 1 would mean INPUT on this firmware)', async () => {
    await h.run(gpioConfig, { pin: 3, direction: 'OUTPUT' });
    expect(await h.python('str(gpio_get_dir(3))')).toBe('OUTPUT');
    const { result } = await h.run(gpioConfig, { pin: 3, direction: 'INPUT' });
    expect(result).toMatchObject({ direction: 'INPUT' });
    expect(await h.python('str(gpio_get_dir(3))')).toBe('INPUT');
  });

  it('sets each pull and reads it back', async () => {
    for (const pull of ['PULLUP', 'PULLDOWN', 'BUS_KEEPER', 'NO_PULL'] as const) {
      const { result } = await h.run(gpioConfig, { pin: 4, pull });
      expect(result).toMatchObject({ pull });
      expect(await h.python('str(gpio_get_pull(4))')).toBe(pull);
    }
  });

  it("reads a pin only its pull holds (the firmware says FLOATING) as the pull's level, held_by_pull", async () => {
    const up = await h.run(gpioConfig, { pin: 6, direction: 'INPUT', pull: 'PULLUP' });
    expect(up.result).toMatchObject({ state: 'HIGH', pull: 'PULLUP', held_by_pull: true });
    // Said in plain words (issue 20: "is state the level read or the level asked?").
    expect(up.result).toMatchObject({
      state_means: expect.stringMatching(
        /level read on the pin now, not the level asked.*pull-up alone holds it HIGH/,
      ),
    });
    expect(await h.python('str(gpio_get(6))')).toBe('FLOATING');
    const down = await h.run(gpioConfig, { pin: 6, pull: 'PULLDOWN' });
    expect(down.result).toMatchObject({ state: 'LOW', held_by_pull: true });
    const none = await h.run(gpioConfig, { pin: 6, pull: 'NO_PULL' });
    expect(none.result).toMatchObject({ state: 'FLOATING' });
    expect(none.result).not.toHaveProperty('held_by_pull');
    await h.run(gpioConfig, { pin: 6, pull: 'PULLDOWN' });
  });

  it('reads a pulled-up pin as HIGH once routed to a rail-free row', async () => {
    await h.run(gpioConfig, { pin: 5, pull: 'PULLUP' });
    await h.python('dac_set(TOP_RAIL, 3.3)');
    await h.python('connect(9, TOP_RAIL)');
    await h.python('connect(9, GPIO_5)');
    const { result } = await h.run(gpioGet, { pin: 5 });
    expect(result).toMatchObject({ state: 'HIGH', net: 'Top Rail' });
  });

  it('refuses to drive a pin whose net holds a rail, GND or another output', async () => {
    await h.python('connect(5, TOP_RAIL)');
    await h.python('connect(5, GPIO_2)');
    await expect(h.run(gpioConfig, { pin: 2, level: 'LOW' })).rejects.toEqual(refusal('unsafe_drive'));
    await expect(h.run(gpioConfig, { pin: 2, direction: 'OUTPUT' })).rejects.toEqual(refusal('unsafe_drive'));
    await expect(h.run(pwmStart, { pin: 2, frequency_hz: 1000 })).rejects.toEqual(refusal('unsafe_drive'));
    expect(await h.python('str(gpio_get_dir(2))')).toBe('INPUT');
    // Input direction stays allowed: it drives nothing.
    await h.run(gpioConfig, { pin: 2, direction: 'INPUT' });

    await h.python('connect(6, GND)');
    await h.python('connect(6, GPIO_6)');
    await expect(h.run(gpioConfig, { pin: 6, level: 'HIGH' })).rejects.toEqual(refusal('unsafe_drive'));

    await h.python('connect(12, GPIO_7)');
    await h.python('connect(12, GPIO_8)');
    await h.run(gpioConfig, { pin: 7, level: 'HIGH' });
    await expect(h.run(gpioConfig, { pin: 8, level: 'LOW' })).rejects.toEqual(refusal('unsafe_drive'));
  });

  it('reads an output as the level it drives, and the UART pins as UNKNOWN', async () => {
    await h.run(gpioConfig, { pin: 3, level: 'HIGH' });
    expect((await h.run(gpioGet, { pin: 3 })).result).toMatchObject({ state: 'HIGH', direction: 'OUTPUT' });
    await h.run(gpioConfig, { pin: 3, level: 'LOW' });
    expect((await h.run(gpioGet, { pin: 3 })).result).toMatchObject({ state: 'LOW' });
    expect((await h.run(gpioGet, { pin: 9 })).result).toMatchObject({ node: 'UART_TX', state: 'UNKNOWN' });
  });

  it('refuses to drive the UART pins', async () => {
    await expect(h.run(gpioConfig, { pin: 9, level: 'HIGH' })).rejects.toEqual(refusal('unsupported_pin'));
    await expect(h.run(gpioConfig, { pin: 10, direction: 'OUTPUT' })).rejects.toEqual(
      refusal('unsupported_pin'),
    );
  });

  it('keeps the level through later routing changes: level first, then direction', async () => {
    await h.python("gpio_set_pull(4, 'PULLDOWN')");
    await h.python('connect(40, 41)');
    await h.run(gpioConfig, { pin: 4, level: 'LOW' });
    await h.python('disconnect(40, 41)');
    expect(await h.python('str(gpio_get(4))')).toBe('LOW');
    await h.run(gpioConfig, { pin: 4, direction: 'INPUT' });
    await h.python('connect(40, 41)');
    const { result } = await h.run(gpioConfig, { pin: 4, direction: 'OUTPUT' });
    expect(result).toMatchObject({ state: 'LOW', direction: 'OUTPUT' });
    await h.python('disconnect(40, 41)');
    expect(await h.python('str(gpio_get(4))')).toBe('LOW');
    const high = await h.run(gpioConfig, { pin: 4, direction: 'OUTPUT', level: 'HIGH' });
    expect(high.result).toMatchObject({ state: 'HIGH' });
  });

  it('does not leave a bus keeper a pull-up when it reads it', async () => {
    const { result } = await h.run(gpioConfig, { pin: 5, pull: 'BUS_KEEPER' });
    expect(result).toMatchObject({ pull: 'BUS_KEEPER', state: 'UNKNOWN' });
    await h.run(gpioConfig, { pin: 6, level: 'HIGH' });
    await h.python('connect(30, GPIO_5)');
    await h.python('connect(30, GPIO_6)');
    const read = await h.run(gpioGet, { pin: 5 });
    expect(read.result).toMatchObject({ state: 'HIGH', pull: 'BUS_KEEPER' });
    expect(await h.python('str(gpio_get_pull(5))')).toBe('BUS_KEEPER');
  });

  it('starts and stops hardware PWM; the stop keeps the SIO direction', async () => {
    const { result } = await h.run(pwmStart, { pin: 1, frequency_hz: 1000, duty_cycle: 0.25 });
    expect(result).toMatchObject({ pin: 1, frequency_hz: 1000, mode: 'hardware', pwm_active: true });
    const stopped = await h.run(pwmStop, { pin: 1 });
    expect(stopped.result).toMatchObject({ pin: 1, direction: 'INPUT', stopped: true, warnings: [] });
    const state = JSON.parse(await h.python<string>('get_state()'));
    expect(state.gpio[0].function).toBe('SIO');
  });

  it('runs below 10 Hz as a timer on an output (SIO), which the stop makes an input', async () => {
    const { result } = await h.run(pwmStart, { pin: 3, frequency_hz: 2 });
    expect(result).toMatchObject({ mode: 'timer', pwm_active: true, direction: 'OUTPUT' });
    const stopped = await h.run(pwmStop, { pin: 3 });
    expect(stopped.result).toMatchObject({ direction: 'INPUT', stopped: true });
  });

  it('counts PWM pins as drivers, and will not drive a pin that runs PWM', async () => {
    await h.python('connect(33, GPIO_1)');
    await h.python('connect(33, GPIO_2)');
    await h.run(pwmStart, { pin: 1, frequency_hz: 2 });
    await expect(h.run(gpioConfig, { pin: 2, level: 'HIGH' })).rejects.toEqual(refusal('unsafe_drive'));
    await expect(h.run(gpioConfig, { pin: 1, level: 'HIGH' })).rejects.toEqual(refusal('pwm_running'));
    await h.run(pwmStop, { pin: 1 });
    await h.run(pwmStart, { pin: 1, frequency_hz: 1000 });
    await expect(h.run(gpioConfig, { pin: 2, direction: 'OUTPUT' })).rejects.toEqual(refusal('unsafe_drive'));
    await h.run(pwmStop, { pin: 1 });
    await h.run(gpioConfig, { pin: 2, level: 'HIGH' });
  });

  it('guards the shared PWM slice of pin pairs', async () => {
    await h.run(pwmStart, { pin: 7, frequency_hz: 1000 });
    await expect(h.run(pwmStart, { pin: 8, frequency_hz: 500 })).rejects.toEqual(refusal('slice_shared'));
    // A timer PWM does not use the slice.
    await h.run(pwmStart, { pin: 8, frequency_hz: 1 });
    await h.run(pwmStop, { pin: 8 });
    const shared = await h.run(pwmStart, { pin: 8, frequency_hz: 500, share_slice: true });
    expect(shared.result.warnings).toEqual([expect.stringContaining('GPIO_7 shares the PWM slice')]);
    const stopped = await h.run(pwmStop, { pin: 8 });
    expect(stopped.result.warnings).toEqual([expect.stringContaining('GPIO_7 shares the PWM slice')]);
    await h.run(pwmStart, { pin: 7, frequency_hz: 1000 });
    // Nothing runs on pin 8: no pwm_stop is sent, which would stop pin 7's slice.
    const idle = await h.run(pwmStop, { pin: 8 });
    expect(idle.result).toMatchObject({ stopped: false });
    expect(await h.python('get_state()')).toContain('"function": "PWM"');
    await h.run(pwmStop, { pin: 7 });
  });

  it('sets pull, direction and level in one call, and refuses before changing anything', async () => {
    const { result } = await h.run(gpioConfig, { pin: 3, pull: 'PULLDOWN', level: 'HIGH' });
    expect(result).toMatchObject({
      pin: 3,
      direction: 'OUTPUT',
      level: 'HIGH',
      state: 'HIGH',
      pull: 'PULLDOWN',
    });
    await h.run(gpioConfig, { pin: 3, direction: 'INPUT', pull: 'NO_PULL' });
    // A refused drive leaves the pull as it was: the checks run before any change.
    await expect(h.run(gpioConfig, { pin: 9, level: 'HIGH', pull: 'PULLUP' })).rejects.toEqual(
      refusal('unsupported_pin'),
    );
    expect(await h.python('str(gpio_get_pull(9))')).not.toContain('PULLUP');
    expect(gpioConfig.input.safeParse({ pin: 1 }).success).toBe(false);
    expect(gpioConfig.input.safeParse({ pin: 1, direction: 'INPUT', level: 'HIGH' }).success).toBe(false);
  });

  it('validates ranges before anything reaches the board', () => {
    expect(() => gpioConfig.input.parse({ pin: 0, level: 'HIGH' })).toThrow();
    expect(() => gpioConfig.input.parse({ pin: 11, level: 'HIGH' })).toThrow();
    expect(() => pwmStart.input.parse({ pin: 9, frequency_hz: 10 })).toThrow();
    expect(() => pwmStart.input.parse({ pin: 1, frequency_hz: 1e9 })).toThrow();
    // The module accepts 0.0009 Hz, but setupPWM refuses below 0.01 Hz.
    expect(() => pwmStart.input.parse({ pin: 1, frequency_hz: 0.005 })).toThrow();
    expect(() => pwmStart.input.parse({ pin: 1, frequency_hz: 10, duty_cycle: 1.5 })).toThrow();
  });

  it('refuses every hostile string in its enum fields by validation', () => {
    for (const s of hostileStrings()) {
      // Only the exact enum words pass (the list holds 'HIGH' and 'OUTPUT' on purpose).
      expect(gpioConfig.input.safeParse({ pin: 1, level: s }).success).toBe(s === 'HIGH');
      expect(gpioConfig.input.safeParse({ pin: 1, direction: s }).success).toBe(s === 'OUTPUT');
      expect(gpioConfig.input.safeParse({ pin: 1, pull: s }).success).toBe(false);
    }
  });
});

describe('what gpio_config asks of the firmware', () => {
  const needs = (args: Record<string, unknown>) =>
    gpioConfig.requiresFor?.(gpioConfig.input.parse(args)) ?? [];

  it('asks a pull for no setter of level or direction, an input for no level, an output for both', () => {
    expect(needs({ pin: 1, pull: 'PULLUP' })).not.toEqual(expect.arrayContaining(['gpio_set']));
    expect(needs({ pin: 1, pull: 'PULLUP' })).not.toContain('gpio_set_dir');
    expect(needs({ pin: 1, direction: 'INPUT' })).toContain('gpio_set_dir');
    expect(needs({ pin: 1, direction: 'INPUT' })).not.toContain('gpio_set');
    expect(needs({ pin: 1, level: 'HIGH' })).toEqual(expect.arrayContaining(['gpio_set', 'gpio_set_dir']));
    for (const args of [
      { pin: 1, pull: 'NO_PULL' },
      { pin: 9, direction: 'OUTPUT', level: 'LOW' },
    ]) {
      // Never more than the tool declares (selftest and the firmware report read `requires`).
      for (const name of needs(args)) expect(gpioConfig.requires).toContain(name);
    }
  });
});
