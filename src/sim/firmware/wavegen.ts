/**
 * The waveform generator (spec §6.8). While it runs, its output channel follows the wave: the
 * circuit asks `wavegenVolts` for the value at the present time instead of the DAC setpoint.
 */
import { asInt, asNum, pyFloat, truthy } from './args.js';
import type { DacChannel, Hardware, WaveGenState } from './hardware.js';
import { touch } from './hardware.js';
import type { FirmwareFunctions } from './types.js';

/** The wave's value in volts at `nowMs`. */
export function wavegenVolts(w: WaveGenState, nowMs: number): number {
  const phase = (((((nowMs - w.startedAt) / 1000) * w.freq) % 1) + 1) % 1;
  const half = w.amplitude / 2;
  let unit: number; // -1..1
  if (w.wave === 0) unit = Math.sin(2 * Math.PI * phase);
  else if (w.wave === 1) unit = phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase;
  else if (w.wave === 2) unit = 2 * phase - 1;
  else unit = phase < 0.5 ? 1 : -1;
  return w.offset + half * unit;
}

const clampInt = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
/** `x` when it is a positive number, else `fallback` (NaN included, as the C comparisons do). */
const positiveOr = (x: number, fallback: number): number => (x > 0 ? x : fallback);

export function wavegenGroup(hw: Hardware): FirmwareFunctions {
  const w = hw.wavegen;
  const changed = (): null => {
    touch(hw);
    return null;
  };
  return {
    // jl_wavegen_*: out-of-range values are clamped, never refused (the Python side raises first).
    wavegen_set_output: (ch) => {
      w.output = clampInt(asInt(ch), 0, 3) as DacChannel;
      return changed();
    },
    wavegen_set_freq: (hz) => {
      const f = asNum(hz);
      w.freq = positiveOr(f, 0.0001);
      return changed();
    },
    wavegen_set_wave: (wave) => {
      w.wave = clampInt(asInt(wave), 0, 3) as 0 | 1 | 2 | 3;
      return changed();
    },
    wavegen_set_amplitude: (vpp) => {
      const a = asNum(vpp);
      w.amplitude = positiveOr(a, 0);
      return changed();
    },
    wavegen_set_offset: (v) => {
      w.offset = asNum(v);
      return changed();
    },
    wavegen_set_sweep: (start, end, seconds) => {
      const s = asNum(start);
      const e = asNum(end);
      const t = asNum(seconds);
      w.sweep = { start: positiveOr(s, 0.0001), end: positiveOr(e, 0.0001), seconds: positiveOr(t, 0) };
      return null;
    },
    wavegen_start: (run = true) => {
      if (truthy(run)) {
        if (!w.running) w.startedAt = hw.now();
        w.running = true;
      } else {
        w.running = false;
      }
      return changed();
    },
    wavegen_stop: () => {
      w.running = false;
      return changed();
    },
    wavegen_get_output: () => w.output,
    wavegen_get_freq: () => pyFloat(w.freq),
    wavegen_get_wave: () => w.wave,
    wavegen_get_amplitude: () => pyFloat(w.amplitude),
    wavegen_get_offset: () => pyFloat(w.offset),
    wavegen_is_running: () => w.running,
  };
}
