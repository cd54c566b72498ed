import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import { dacSet, powerGet } from './power.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());

describe('power tools', () => {
  it('reads fresh-slot setpoints', async () => {
    const { result } = await h.run(powerGet);
    expect(result).toEqual({ dac0_volts: 3.33, dac1_volts: 0, top_rail_volts: 0, bottom_rail_volts: 0 });
  });

  it('sets a rail, reads the stored setpoint back and reports the previous value', async () => {
    const { result } = await h.run(dacSet, { channel: 'TOP_RAIL', volts: 5 });
    expect(result).toEqual({ channel: 'TOP_RAIL', volts: 5, previous_volts: 0 });
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(5);
    // The read-back is the request, not the 12-bit output (5.25 mV steps).
    const { result: fine } = await h.run(dacSet, { channel: 'TOP_RAIL', volts: 1.2345 });
    expect(fine).toMatchObject({ volts: 1.2345 });
  });

  it('refuses voltages outside the envelope before touching the board', async () => {
    expect(() => dacSet.input.parse({ channel: 'DAC1', volts: 9 })).toThrow();
    await expect(
      h.run(dacSet, { channel: 'DAC1', volts: 4 }, { safety: { maxVolts: 3.3, minVolts: 0 } }),
    ).rejects.toBeInstanceOf(ToolError);
    expect(await h.python('dac_get(1)')).toBe(0);
  });

  it('refuses a supply the waveform generator drives, and leaves its setpoint alone', async () => {
    await h.session.exec(
      'wavegen_set_output(1); wavegen_set_amplitude(0); wavegen_set_offset(0); wavegen_set_freq(10); wavegen_set_wave(0); wavegen_start()',
    );
    try {
      await expect(h.run(dacSet, { channel: 'DAC1', volts: 1 })).rejects.toMatchObject({ code: 'busy' });
      expect(await h.python('dac_get(1)')).toBe(0);
      await h.run(dacSet, { channel: 'BOTTOM_RAIL', volts: 1 });
    } finally {
      await h.session.exec('wavegen_stop()');
    }
  });
});
