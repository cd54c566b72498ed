import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';
import { wavegenVolts } from './wavegen.js';

const getters = ['output', 'freq', 'wave', 'amplitude', 'offset'];

describe('wavegen group (spec §6.8)', () => {
  it('reports the constructor values before anything is set, and a start applies its own defaults', () => {
    const b = testBoard();
    expect(getters.map((g) => b.call(`wavegen_get_${g}`))).toEqual([0, 1000, 0, 2, 0]);
    expect(b.call('wavegen_is_running')).toBe(false);
    b.call('wavegen_start', true);
    expect(getters.map((g) => b.call(`wavegen_get_${g}`))).toEqual([1, 100, 0, 3.3, 1.65]);
  });

  it('applies the start defaults only to parameters never set', () => {
    const b = testBoard();
    b.call('wavegen_set_freq', 20);
    b.call('wavegen_set_output', 0);
    b.call('wavegen_start', true);
    expect(getters.map((g) => b.call(`wavegen_get_${g}`))).toEqual([0, 20, 0, 3.3, 1.65]);
  });

  it('clamps like the C wrappers: frequency <= 0 becomes 0.0001, negative amplitude 0; NaN passes', () => {
    const b = testBoard();
    b.call('wavegen_set_freq', -5);
    b.call('wavegen_set_amplitude', -1);
    expect(b.call('wavegen_get_freq')).toBe(0.0001);
    expect(b.call('wavegen_get_amplitude')).toBe(0);
    b.call('wavegen_set_freq', 'nan');
    expect(b.call('wavegen_get_freq')).toBe('nan');
  });

  it('makes its output channel follow the wave while it runs; stop leaves the last sample', () => {
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
    b.call('connect', 'TOP_RAIL', 20);
    b.call('connect', 'ADC0', 20);
    expect(b.call('adc_get', 0)).toBeCloseTo(3, 1);
    b.advance(50);
    expect(b.call('adc_get', 0)).toBeCloseTo(-1, 1);
    b.call('wavegen_stop');
    b.advance(50);
    expect(b.call('adc_get', 0)).toBeCloseTo(-1, 1);
    expect(b.call('dac_get', 2)).toBe(0);
    b.call('dac_set', 2, b.call('dac_get', 2));
    expect(b.call('adc_get', 0)).toBeCloseTo(0, 1);
  });

  it('leaves the old output on its last sample when a running wave moves', () => {
    const b = testBoard();
    b.call('wavegen_set_output', 1);
    b.call('wavegen_set_amplitude', 0);
    b.call('wavegen_set_offset', 2.5);
    b.call('wavegen_start', true);
    b.call('wavegen_set_output', 3);
    b.call('connect', 'DAC1', 21);
    b.call('connect', 'ADC1', 21);
    expect(b.call('adc_get', 1)).toBeCloseTo(2.5, 1);
  });

  it('has sawtooth and triangle start where the firmware table does, and clamps samples to +-8 V', () => {
    const w = { ...testBoard().hardware.wavegen, freq: 1, amplitude: 2, offset: 0, startedAt: 0 };
    expect(wavegenVolts({ ...w, wave: 2 }, 0)).toBeCloseTo(0);
    expect(wavegenVolts({ ...w, wave: 2 }, 400)).toBeCloseTo(0.8);
    expect(wavegenVolts({ ...w, wave: 1 }, 0)).toBeCloseTo(-1);
    expect(wavegenVolts({ ...w, wave: 3, amplitude: 20 }, 0)).toBe(8);
  });
});
