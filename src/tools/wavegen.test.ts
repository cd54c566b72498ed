import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { wavegenConfigure, wavegenStatus } from './wavegen.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.python('wavegen_stop()');
});

const refusal = (code: string) => expect.objectContaining({ code });
/** DAC1 routed to ADC0 through row 20, to see what the output really does. */
const dac1Volts = async (): Promise<number> => {
  await h.session.exec('connect(DAC1, 20)\nconnect(ADC0, 20)');
  return h.python<number>('adc_get(0)');
};

describe('wavegen tools', () => {
  it('reads the firmware power-on values, and starts exactly those (no firmware defaults added)', async () => {
    const { result } = await h.run(wavegenStatus);
    expect(result).toEqual({
      output: 'DAC0',
      waveform: 'sine',
      frequency_hz: 1000,
      amplitude_vpp: 2,
      offset_volts: 0,
      min_volts: -1,
      max_volts: 1,
      running: false,
    });
    const started = await h.run(wavegenConfigure, { running: true });
    expect(started.result).toMatchObject({
      output: 'DAC0',
      frequency_hz: 1000,
      amplitude_vpp: 2,
      running: true,
    });
    expect(started.result.warnings).toEqual([
      expect.stringContaining('DAC0 also powers the probe'),
      expect.stringContaining('at 1 kHz or more'),
    ]);
    await h.run(wavegenConfigure, { running: false });
  });

  it('configures every field, sends the firmware constants and verifies them', async () => {
    const { result } = await h.run(wavegenConfigure, {
      output: 'TOP_RAIL',
      waveform: 'square',
      frequency_hz: 250,
      amplitude_vpp: 2,
      offset_volts: 1,
    });
    expect(result).toMatchObject({
      output: 'TOP_RAIL',
      waveform: 'square',
      frequency_hz: 250,
      amplitude_vpp: 2,
      offset_volts: 1,
      min_volts: 0,
      max_volts: 2,
      restarted: false,
    });
    // SQUARE is 3 and TOP_RAIL is channel 2 on the firmware (spec §6.8).
    expect(await h.python('[wavegen_get_wave(), wavegen_get_output()]')).toEqual([3, 2]);
  });

  it('keeps omitted fields', async () => {
    await h.run(wavegenConfigure, {
      output: 'DAC1',
      waveform: 'triangle',
      amplitude_vpp: 1,
      offset_volts: 0,
    });
    const { result } = await h.run(wavegenConfigure, { frequency_hz: 5 });
    expect(result).toMatchObject({ output: 'DAC1', waveform: 'triangle', amplitude_vpp: 1, frequency_hz: 5 });
  });

  it('refuses a swing outside the voltage policy before touching the board', async () => {
    await h.run(wavegenConfigure, { amplitude_vpp: 2, offset_volts: 0 });
    await expect(h.run(wavegenConfigure, { amplitude_vpp: 10, offset_volts: 4 })).rejects.toEqual(
      refusal('unsafe_voltage'),
    );
    // Omitted fields count too: the present offset with a new amplitude.
    await expect(h.run(wavegenConfigure, { amplitude_vpp: 16.01 })).rejects.toThrow();
    await expect(
      h.run(wavegenConfigure, { offset_volts: 3 }, { safety: { maxVolts: 3.3, minVolts: 0 } }),
    ).rejects.toEqual(refusal('unsafe_voltage'));
    expect(await h.python('[wavegen_get_amplitude(), wavegen_get_offset()]')).toEqual([2, 0]);
  });

  it('starts and stops, verified, and start re-checks the configured swing', async () => {
    await h.run(wavegenConfigure, { output: 'DAC1', amplitude_vpp: 2, offset_volts: 1 });
    const started = await h.run(wavegenConfigure, { running: true });
    expect(started.result).toMatchObject({ running: true, output: 'DAC1' });
    expect(await h.python('wavegen_is_running()')).toBe(true);
    const stopped = await h.run(wavegenConfigure, { running: false });
    expect(stopped.result).toMatchObject({ running: false, setpoint_volts: 0 });
    // A swing set behind our back (or under looser limits) is refused at start.
    await h.python('[wavegen_set_amplitude(8), wavegen_set_offset(6)]');
    await expect(h.run(wavegenConfigure, { running: true })).rejects.toEqual(refusal('unsafe_voltage'));
    expect(await h.python('wavegen_is_running()')).toBe(false);
  });

  it('drives the output back to its setpoint after stopping (the DAC would hold the last sample)', async () => {
    await h.python('dac_set(1, 0.5)');
    await h.run(wavegenConfigure, {
      output: 'DAC1',
      waveform: 'sine',
      amplitude_vpp: 0,
      offset_volts: 2.5,
      frequency_hz: 20,
    });
    await h.run(wavegenConfigure, { running: true });
    expect(await dac1Volts()).toBeCloseTo(2.5, 1);
    await h.run(wavegenConfigure, { running: false });
    expect(await dac1Volts()).toBeCloseTo(0.5, 1);
    await h.python('dac_set(1, 0.0)');
  });

  it('moves a running wave to another output, driving the old one back to its setpoint', async () => {
    await h.run(wavegenConfigure, { output: 'DAC1', amplitude_vpp: 0, offset_volts: 2, frequency_hz: 20 });
    await h.run(wavegenConfigure, { running: true });
    const { result } = await h.run(wavegenConfigure, { output: 'BOTTOM_RAIL' });
    expect(result).toMatchObject({ output: 'BOTTOM_RAIL', running: true, restarted: true });
    expect(result.warnings).toEqual([expect.stringContaining('routing and LED updates are delayed')]);
    expect(await dac1Volts()).toBeCloseTo(0, 1);
  });

  it('stops before it moves: a stop with a new output never starts the wave there', async () => {
    await h.run(wavegenConfigure, { output: 'DAC1', amplitude_vpp: 1, offset_volts: 1, running: true });
    const { result } = await h.run(wavegenConfigure, { output: 'BOTTOM_RAIL', running: false });
    expect(result).toMatchObject({ output: 'BOTTOM_RAIL', running: false, restarted: false });
    expect(result).toHaveProperty('setpoint_volts');
  });

  it('configures and starts in one call, and a stop alone leaves the settings', async () => {
    const started = await h.run(wavegenConfigure, {
      output: 'DAC1',
      waveform: 'square',
      amplitude_vpp: 1,
      offset_volts: 1,
      running: true,
    });
    expect(started.result).toMatchObject({
      output: 'DAC1',
      waveform: 'square',
      running: true,
      restarted: false,
    });
    const stopped = await h.run(wavegenConfigure, { running: false });
    expect(stopped.result).toMatchObject({ output: 'DAC1', waveform: 'square', running: false });
    expect(stopped.result).toHaveProperty('setpoint_volts');
  });

  it('refuses every hostile string in its enum fields by validation', async () => {
    const { hostileStrings } = await import('../../test/support/hostileStrings.js');
    for (const s of hostileStrings()) {
      expect(wavegenConfigure.input.safeParse({ output: s }).success).toBe(false);
      expect(wavegenConfigure.input.safeParse({ waveform: s }).success).toBe(false);
    }
  });
});
