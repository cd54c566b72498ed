import { describe, expect, it } from 'vitest';
import { testBoard } from './testEnv.js';
import { wavegenVolts } from './wavegen.js';

describe('wavegen group (spec §6.8)', () => {
  it('has the documented defaults: DAC1, 100 Hz, sine, 3.3 Vpp, 1.65 V offset', () => {
    const b = testBoard();
    expect(['output', 'freq', 'wave', 'amplitude', 'offset'].map((g) => b.call(`wavegen_get_${g}`))).toEqual([
      1, 100, 0, 3.3, 1.65,
    ]);
    expect(b.call('wavegen_is_running')).toBe(false);
  });

  it('clamps like the C wrappers: frequency <= 0 becomes 0.0001, negative amplitude 0', () => {
    const b = testBoard();
    b.call('wavegen_set_freq', -5);
    b.call('wavegen_set_amplitude', -1);
    expect(b.call('wavegen_get_freq')).toBe(0.0001);
    expect(b.call('wavegen_get_amplitude')).toBe(0);
  });

  it('makes its output channel follow the wave while it runs', () => {
    const b = testBoard();
    b.call('wavegen_set_output', 2);
    b.call('wavegen_set_wave', 3);
    b.call('wavegen_set_freq', 10);
    b.call('wavegen_set_amplitude', 4);
    b.call('wavegen_set_offset', 1);
    b.call('wavegen_start', true);
    const w = b.hardware.wavegen;
    expect(wavegenVolts(w, 10)).toBeCloseTo(3);
    expect(wavegenVolts(w, 60)).toBeCloseTo(-1);
    b.call('dac_set', 'ADC0', 0);
    b.call('connect', 'TOP_RAIL', 'ADC0');
    expect(b.call('adc_get', 0)).toBeCloseTo(3, 1);
    b.advance(50);
    expect(b.call('adc_get', 0)).toBeCloseTo(-1, 1);
    b.call('wavegen_stop');
    expect(b.call('adc_get', 0)).toBeCloseTo(0, 1);
  });
});
