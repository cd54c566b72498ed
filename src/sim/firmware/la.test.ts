import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';
import { createLogicAnalyzer, laGroup } from './la.js';

describe('logic analyser (spec §6.14)', () => {
  it('answers from Python as the firmware does: constants, a 101 ms single capture, no background capture', () => {
    const b = testBoard();
    expect(b.call('la_set_trigger', 0, 0, 1.5)).toBe(true);
    expect(b.call('la_is_capturing')).toBe(false);
    expect(b.call('la_stop_capture')).toBe(false);
    const t0 = b.env.host.now();
    expect(b.call('la_capture_single_sample')).toBe(true);
    expect(b.env.host.now() - t0).toBe(101);
    expect(b.call('la_start_continuous_capture')).toEqual({
      error: expect.stringContaining('NotImplementedError: la_start_continuous_capture is not simulated'),
    });
  });

  it('keeps the settings: a single capture leaves 1 sample at 1 kHz; masks take channels 0-7', () => {
    const la = createLogicAnalyzer();
    const fns = laGroup(la, {
      sleep: () => {},
      checkInterrupt: () => {},
      pollInputs: () => {},
      writeMain: () => {},
      now: () => 0,
    });
    fns.la_set_sample_rate?.(-1);
    expect(la.sampleRateHz).toBe(0xffffffff);
    fns.la_enable_channel?.(1, 0, false);
    fns.la_enable_channel?.(0, 9, false);
    fns.la_enable_channel?.(2, 1, false);
    expect(la).toMatchObject({ analogMask: 0x0e, digitalMask: 0xff });
    fns.la_capture_single_sample?.();
    expect(la).toMatchObject({ numSamples: 1, sampleRateHz: 1000 });
  });
});
