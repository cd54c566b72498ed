import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gpioDirectionSet, gpioGet, gpioPullSet, gpioSet, pwmStart, pwmStop } from './gpio.js';
import { hostileStrings } from './hostileStrings.js';
import { startToolHarness, type ToolHarness } from './testHarness.js';

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
  it('reads a pin: level, direction, pull and net', async () => {
    await h.python('connect(7, GPIO_1)');
    const { result } = await h.run(gpioGet, { pin: 1 });
    expect(result).toMatchObject({
      pin: 1,
      node: 'GP_1',
      direction: 'INPUT',
      state: 'FLOATING',
      net: 'Net 6',
    });
  });

  it('drives a pin: makes it an output first, and the board agrees', async () => {
    const { result } = await h.run(gpioSet, { pin: 2, level: 'HIGH' });
    expect(result).toMatchObject({ pin: 2, level: 'HIGH', direction: 'OUTPUT', net: null });
    expect(await h.python('str(gpio_get_dir(2))')).toBe('OUTPUT');
  });

  it('sends directions as strings (an int 1 would mean INPUT on this firmware)', async () => {
    await h.run(gpioDirectionSet, { pin: 3, direction: 'OUTPUT' });
    expect(await h.python('str(gpio_get_dir(3))')).toBe('OUTPUT');
    const { result } = await h.run(gpioDirectionSet, { pin: 3, direction: 'INPUT' });
    expect(result).toMatchObject({ direction: 'INPUT' });
    expect(await h.python('str(gpio_get_dir(3))')).toBe('INPUT');
  });

  it('sets each pull and reads it back', async () => {
    for (const pull of ['PULLUP', 'PULLDOWN', 'BUS_KEEPER', 'NO_PULL'] as const) {
      const { result } = await h.run(gpioPullSet, { pin: 4, pull });
      expect(result).toMatchObject({ pull });
      expect(await h.python('str(gpio_get_pull(4))')).toBe(pull);
    }
  });

  it('reads a pulled-up pin as HIGH once routed to a rail-free row', async () => {
    await h.run(gpioPullSet, { pin: 5, pull: 'PULLUP' });
    await h.python('dac_set(TOP_RAIL, 3.3)');
    await h.python('connect(9, TOP_RAIL)');
    await h.python('connect(9, GPIO_5)');
    const { result } = await h.run(gpioGet, { pin: 5 });
    expect(result).toMatchObject({ state: 'HIGH', net: 'Top Rail' });
  });

  it('refuses to drive a pin whose net holds a rail, GND or another output', async () => {
    await h.python('connect(5, TOP_RAIL)');
    await h.python('connect(5, GPIO_2)');
    await expect(h.run(gpioSet, { pin: 2, level: 'LOW' })).rejects.toEqual(refusal('unsafe_drive'));
    await expect(h.run(gpioDirectionSet, { pin: 2, direction: 'OUTPUT' })).rejects.toEqual(
      refusal('unsafe_drive'),
    );
    await expect(h.run(pwmStart, { pin: 2, frequency_hz: 1000 })).rejects.toEqual(refusal('unsafe_drive'));
    expect(await h.python('str(gpio_get_dir(2))')).toBe('INPUT');
    // Input direction stays allowed: it drives nothing.
    await h.run(gpioDirectionSet, { pin: 2, direction: 'INPUT' });

    await h.python('connect(6, GND)');
    await h.python('connect(6, GPIO_6)');
    await expect(h.run(gpioSet, { pin: 6, level: 'HIGH' })).rejects.toEqual(refusal('unsafe_drive'));

    await h.python('connect(12, GPIO_7)');
    await h.python('connect(12, GPIO_8)');
    await h.run(gpioSet, { pin: 7, level: 'HIGH' });
    await expect(h.run(gpioSet, { pin: 8, level: 'LOW' })).rejects.toEqual(refusal('unsafe_drive'));
  });

  it('starts and stops PWM and reports the pin state', async () => {
    const { result } = await h.run(pwmStart, { pin: 1, frequency_hz: 1000, duty_cycle: 0.25 });
    expect(result).toMatchObject({ pin: 1, frequency_hz: 1000, duty_cycle: 0.25, pwm_active: true });
    const stopped = await h.run(pwmStop, { pin: 1 });
    expect(stopped.result).toMatchObject({ pin: 1, direction: 'OUTPUT' });
    const state = JSON.parse(await h.python<string>('get_state()'));
    expect(state.gpio[0].function).toBe('SIO');
  });

  it('reports a firmware refusal of a PWM setup as a tool error', async () => {
    await expect(h.run(pwmStart, { pin: 1, frequency_hz: 0.005 })).rejects.toEqual(refusal('refused'));
  });

  it('validates ranges before anything reaches the board', () => {
    expect(() => gpioSet.input.parse({ pin: 0, level: 'HIGH' })).toThrow();
    expect(() => gpioSet.input.parse({ pin: 11, level: 'HIGH' })).toThrow();
    expect(() => pwmStart.input.parse({ pin: 9, frequency_hz: 10 })).toThrow();
    expect(() => pwmStart.input.parse({ pin: 1, frequency_hz: 1e9 })).toThrow();
    expect(() => pwmStart.input.parse({ pin: 1, frequency_hz: 10, duty_cycle: 1.5 })).toThrow();
  });

  it('refuses every hostile string in its enum fields by validation', () => {
    for (const s of hostileStrings()) {
      // Only the exact enum words pass (the list holds 'HIGH' and 'OUTPUT' on purpose).
      expect(gpioSet.input.safeParse({ pin: 1, level: s }).success).toBe(s === 'HIGH');
      expect(gpioDirectionSet.input.safeParse({ pin: 1, direction: s }).success).toBe(s === 'OUTPUT');
      expect(gpioPullSet.input.safeParse({ pin: 1, pull: s }).success).toBe(false);
    }
  });
});
