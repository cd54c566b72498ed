import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';
import { dacOutputVolts } from './hardware.js';

describe('power group (spec §6.5)', () => {
  it('starts with the fresh-slot setpoints: DAC0 3.33 V, the rest 0 V', () => {
    const b = testBoard();
    expect([0, 1, 2, 3].map((ch) => b.call('dac_get', ch))).toEqual([3.33, 0, 0, 0]);
  });

  it('accepts channel numbers, node ids and names', () => {
    const b = testBoard();
    b.call('dac_set', 101, 5);
    b.call('dac_set', 'bottom_rail', -2.5);
    b.call('dac_set', 1, 1.25);
    expect(b.call('dac_get', 2)).toBe(5);
    expect(b.call('dac_get', 'B_R')).toBe(-2.5);
    expect(b.call('dac_get', 'DAC1')).toBe(1.25);
  });

  it('moves the output but keeps the stored setpoint with save=False', () => {
    const b = testBoard();
    b.call('dac_set', 2, 4, false);
    expect(b.call('dac_get', 2)).toBe(0);
    expect(b.hardware.dacOut[2]).toBeCloseTo(4, 2);
    expect(b.hardware.power.topRail).toBe(0);
  });

  it('refuses other channels with the firmware message', () => {
    const b = testBoard();
    const error = 'ValueError: Invalid DAC channel or node. Use 0-3, DAC0, DAC1, TOP_RAIL, or BOTTOM_RAIL';
    expect(b.call('dac_set', 4, 1)).toEqual({ error });
    expect(b.call('dac_get', 'GND')).toEqual({ error });
    expect(b.call('dac_get', 'nonsense')).toEqual({ error: 'ValueError: Unknown node name' });
  });

  it('clips the hardware output to the 12-bit DAC range, not the setpoint', () => {
    expect(dacOutputVolts(100)).toBeCloseTo(12.84, 1);
    expect(dacOutputVolts(-100)).toBeCloseTo(-8.66, 1);
    expect(Math.abs(dacOutputVolts(5) - 5)).toBeLessThan(0.006);
    const b = testBoard();
    b.call('dac_set', 0, 50);
    expect(b.call('dac_get', 0)).toBe(50);
  });
});
