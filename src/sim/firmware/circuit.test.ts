import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';
import { partElementId } from '../parts.js';

const DIVIDER = JSON.stringify({
  parts: [
    { type: 'resistor', id: 'R1', between: [10, 20], ohms: '1k' },
    { type: 'resistor', id: 'R2', between: [20, 30], ohms: '1k' },
    { type: 'resistor', id: 'RL', between: [40, 50], ohms: '1k' },
  ],
});

describe('circuit: ADC and INA readings from the DC solution (spec §8)', () => {
  it('reads the middle of two 1k resistors from TOP_RAIL at 5 V as 2.5 V +-1% through ADC0', () => {
    const b = testBoard({ partsFileText: DIVIDER });
    b.call('dac_set', 2, 5);
    b.call('connect', 'TOP_RAIL', 10);
    b.call('connect', 30, 'GND');
    b.call('connect', 'ADC0', 20);
    const v = b.call('adc_get', 0) as number;
    expect(Math.abs(v - 2.5) / 2.5).toBeLessThan(0.01);
  });

  it('reads a 1k load through ISENSE at 3.3 V as 3.3 mA less the path resistance', () => {
    const b = testBoard({ partsFileText: DIVIDER });
    b.call('dac_set', 2, 3.3);
    b.call('connect', 'TOP_RAIL', 'ISENSE_PLUS');
    b.call('connect', 'ISENSE_MINUS', 40);
    b.call('connect', 50, 'GND');
    const amps = b.call('ina_get_current', 0) as number;
    // 3.3 V over 1 k + 2 ohm shunt + three 2-path bridges of 40 ohm + 0.5 ohm source.
    expect(amps).toBeCloseTo(3.3 / (1000 + 2 + 120 + 0.5), 4);
    expect(amps).toBeLessThan(0.0033);
    expect(b.call('ina_get_bus_voltage', 0)).toBeCloseTo(3.3 * (1080 / 1122.5), 2);
    expect(b.call('ina_get_voltage', 0)).toBe(b.call('ina_get_bus_voltage', 0));
    const power = b.call('ina_get_power', 0) as number;
    expect(power).toBeCloseTo(amps * (b.call('ina_get_bus_voltage', 0) as number), 3);
  });

  it('saturates the INA at the shunt ADC full scale (320 mV over 2 ohm)', () => {
    const b = testBoard();
    b.call('dac_set', 2, 8);
    b.call('dac_set', 3, -8);
    b.call('connect', 'TOP_RAIL', 'ISENSE_PLUS', 8);
    b.call('connect', 'ISENSE_MINUS', 'BOTTOM_RAIL', 8);
    // 16 V over the paths the crossbar has lanes for (fewer duplicates than asked for).
    expect(b.circuit.solve().current('shunt')).toBeGreaterThan(0.16);
    expect(b.call('ina_get_current', 0)).toBeCloseTo(0.16, 3);
  });

  it('reads an unrouted or floating ADC as about 0 V', () => {
    const b = testBoard();
    expect(Math.abs(b.call('adc_get', 3) as number)).toBeLessThan(0.005);
    b.call('connect', 'ADC3', 17);
    expect(Math.abs(b.call('adc_get', 3) as number)).toBeLessThan(0.005);
  });

  it('does not route a bridge between two special nets, so no current flows through it', () => {
    const b = testBoard();
    b.call('dac_set', 2, 5);
    b.call('connect', 'TOP_RAIL', 5);
    b.call('connect', 'GND', 6);
    b.call('connect', 5, 6);
    expect(b.call('is_connected', 5, 6)).toBe(true);
    b.call('connect', 'ADC0', 5);
    expect(b.call('adc_get', 0)).toBeCloseTo(5, 1);
  });

  it('sees INA1 carry the probe supply, more in SELECT than in MEASURE', () => {
    const b = testBoard();
    const measure = b.call('ina_get_current', 1) as number;
    b.hardware.probe.switchPosition = 1;
    const select = b.call('ina_get_current', 1) as number;
    expect(measure).toBeGreaterThan(0.0003);
    expect(measure).toBeLessThan(0.0009);
    expect(select).toBeGreaterThan(0.0012);
    b.call('disconnect', 'BUFFER_IN', 'DAC0');
    expect(b.call('ina_get_current', 1)).toBe(0);
  });

  it('joins the touched pad to ADC7 through the probe tip', () => {
    const b = testBoard();
    b.call('dac_set', 2, 2);
    b.call('connect', 'TOP_RAIL', 33);
    expect(Math.abs(b.call('_adc_sample', 7) as number)).toBeLessThan(0.005);
    b.hardware.probe.pad = 33;
    expect(b.call('_adc_sample', 7)).toBeCloseTo(2, 1);
  });

  it('shows a fresh reading for an ADC net in get_state', () => {
    const b = testBoard();
    b.call('dac_set', 3, 1.5);
    b.call('connect', 'BOTTOM_RAIL', 8);
    b.call('connect', 'ADC2', 8);
    const nets = JSON.parse(b.call('get_state') as string).nets as { special: string; voltage?: number }[];
    expect(nets.find((n) => n.special === 'ADC')?.voltage).toBeCloseTo(1.5, 2);
  });

  it('tells any node voltage to the other groups (_node_volts, not exported to Python)', () => {
    const b = testBoard({ partsFileText: DIVIDER });
    b.call('dac_set', 2, 5);
    b.call('connect', 'TOP_RAIL', 10);
    b.call('connect', 30, 'GND');
    expect(b.call('_node_volts', 20)).toBeCloseTo(2.5, 2);
    expect(b.call('_node_volts', 'DAC0')).toBeCloseTo(3.33, 2);
  });

  it('reads in range only: ADC 0-3 and INA 0/1', () => {
    const b = testBoard();
    expect(b.call('adc_get', 4)).toEqual({ error: 'ValueError: ADC channel must be 0-3' });
    expect(b.call('ina_get_power', 2)).toEqual({ error: 'ValueError: INA sensor must be 0 or 1' });
    expect(typeof b.call('_adc_sample', 4)).toBe('number');
  });

  it('adds seeded noise only when asked, the same for the same seed', () => {
    const quiet = testBoard();
    quiet.call('dac_set', 2, 1);
    quiet.call('connect', 'TOP_RAIL', 'ADC0');
    const a = [1, 2, 3].map(() => quiet.call('adc_get', 0));
    expect(new Set(a).size).toBe(1);
    const noisy = (seed: number) => {
      const b = testBoard({ noiseSeed: seed });
      b.call('dac_set', 2, 1);
      b.call('connect', 'TOP_RAIL', 'ADC0');
      return [1, 2, 3, 4].map(() => b.call('adc_get', 0) as number);
    };
    expect(noisy(7)).toEqual(noisy(7));
    expect(new Set(noisy(7)).size).toBeGreaterThan(1);
    for (const v of noisy(9)) expect(v).toBeCloseTo(1, 2);
  });

  it('gives part currents to the solution by their id', () => {
    const b = testBoard({ partsFileText: DIVIDER });
    b.call('dac_set', 2, 5);
    b.call('connect', 'TOP_RAIL', 10);
    b.call('connect', 30, 'GND');
    expect(b.circuit.solve().current(partElementId('R1'))).toBeCloseTo(5 / 2080.5, 5);
  });
});
