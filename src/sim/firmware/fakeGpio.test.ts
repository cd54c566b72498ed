import { describe, expect, it } from 'vitest';
import { FAKE_GP_IN_0 } from '../../board/nodes.js';
import { createFakeGpioState, fakeGpioFunctions } from './fakeGpio.js';
import type { Json } from './types.js';

function setup() {
  const volts: Record<number, number> = {};
  const bridges: [number, number, number][] = [];
  let main = '';
  const others: Record<string, (...args: Json[]) => Json> = {
    _node_volts: (n) => volts[n as number] ?? 0,
    get_num_bridges: () => bridges.length,
    get_bridge: (i) => bridges[i as number] ?? null,
    connect: (a, b, d) => {
      bridges.push([a as number, b as number, d as number]);
      return null;
    },
  };
  const fns = fakeGpioFunctions(
    createFakeGpioState(),
    (name) => others[name],
    (text) => {
      main += text;
    },
  );
  const call = (name: string, ...args: Json[]) => fns[name]?.(...args);
  return { call, volts, bridges, takeMain: () => main };
}

describe('fake GPIO (spec §6.14)', () => {
  it('takes inputs on rows 1-60 only, bridging the row to a FAKE_GP_IN node', () => {
    const { call, bridges, takeMain } = setup();
    expect(call('fake_gpio_config_input', 131, 2, 0.8)).toBe(-1);
    expect(takeMain()).toContain('node must be 1-60');
    expect(call('fake_gpio_config_input', 20, 2, 0.8)).toBe(0);
    expect(call('fake_gpio_config_input', 21, 2, 0.8)).toBe(1);
    expect(call('fake_gpio_config_input', 20, 2.5, 0.8)).toBe(0);
    expect(bridges.map((b) => b.slice(0, 2))).toEqual([
      [20, FAKE_GP_IN_0],
      [21, FAKE_GP_IN_0 + 1],
      [20, FAKE_GP_IN_0],
    ]);
  });

  it('needs a free ADC the first time', () => {
    const { call, bridges } = setup();
    for (let ch = 0; ch < 4; ch++) bridges.push([110 + ch, 30 + ch, 2]);
    expect(call('fake_gpio_config_input', 20, 2, 0.8)).toBe(-1);
    bridges.pop();
    expect(call('fake_gpio_config_input', 20, 2, 0.8)).toBe(0);
  });

  it('reads an input with hysteresis, starting LOW', () => {
    const { call, volts } = setup();
    call('fake_gpio_config_input', 20, 2.0, 0.8);
    volts[20] = 1.2;
    expect(call('fake_gpio_read', 20)).toBe(0);
    volts[20] = 3.3;
    expect(call('fake_gpio_read', 20)).toBe(1);
    volts[20] = 1.2;
    expect(call('fake_gpio_read', 20)).toBe(1);
    volts[20] = 0.2;
    expect(call('fake_gpio_read', 20)).toBe(0);
  });

  it('has outputs disabled: configuring succeeds, nothing is stored, a read is -1', () => {
    const { call, takeMain, bridges } = setup();
    expect(call('fake_gpio_config_output', 20)).toBe(0);
    expect(call('fake_gpio_config_output_nodes', 20)).toBe(0);
    expect(takeMain()).toBe('fake GPIO output disabled (until I fix it)');
    expect(call('fake_gpio_write', 20, 1)).toBe(-1);
    expect(call('fake_gpio_read', 20)).toBe(-1);
    expect(bridges).toEqual([]);
    expect(call('fake_gpio_disconnect', 1, 2)).toBe(-1);
    expect(call('fake_gpio_reconnect', 1, 2)).toBe(-1);
  });
});
