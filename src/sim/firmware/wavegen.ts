/**
 * The waveform generator (spec §6.8), after JumperlessMicroPythonAPI.cpp:209-326 and WaveGen.cpp.
 * While it runs, its output channel follows the wave: the circuit asks `wavegenVolts` for the value
 * at the present time instead of the DAC output.
 *
 * - The getters start with the WaveGen constructor's values (DAC0, 1000 Hz, sine, 2 Vpp, 0 V),
 *   not with what a start applies (hardware.ts).
 * - Every setter marks its parameter set until reboot; `wavegen_start` applies DAC1 / 100 Hz /
 *   sine / 3.3 Vpp / 1.65 V only to the parameters never set (API.cpp:270-292).
 * - Stopping leaves the DAC on the last sample written (WaveGen.cpp:240-243); `dac_get` still says
 *   the setpoint. Moving a running wave to another output leaves the old one on its last sample.
 * - `wavegen_set_sweep` only stores values nothing reads.
 */
import { WAVEGEN_DEFAULTS } from '../../board/limits.js';
import { asInt, asNum, pyFloat, truthy } from './args.js';
import type { DacChannel, Hardware, WaveGenState } from './hardware.js';
import { dacOutputVolts, touch } from './hardware.js';
import type { FirmwareFunctions } from './types.js';

/** WaveGen::_voltsToCode clamps every sample to +-8 V before the DAC code (WaveGen.cpp:531-532). */
const SAMPLE_LIMIT = 8;

/** The wave's value in volts at `nowMs`, as the table of WaveGen::_buildWaveformTable has it. */
export function wavegenVolts(w: WaveGenState, nowMs: number): number {
  const t = (((((nowMs - w.startedAt) / 1000) * w.freq) % 1) + 1) % 1;
  const half = w.amplitude / 2;
  let unit: number; // -1..1
  if (w.wave === 0) unit = Math.sin(2 * Math.PI * t);
  else if (w.wave === 1) unit = 4 * Math.abs(t - Math.floor(t + 0.5)) - 1;
  else if (w.wave === 2) unit = 2 * (t - Math.floor(t + 0.5));
  else unit = t < 0.5 ? 1 : -1;
  const volts = w.offset + half * unit;
  return Math.min(SAMPLE_LIMIT, Math.max(-SAMPLE_LIMIT, volts));
}

const clampInt = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

type Parameter = 'output' | 'freq' | 'wave' | 'amplitude' | 'offset';

export function wavegenGroup(hw: Hardware): FirmwareFunctions {
  const w = hw.wavegen;
  /** s_wg_user_set_*: parameters set since boot (a soft reset keeps them, as the firmware's statics). */
  const userSet = new Set<Parameter>();
  const changed = (): null => {
    touch(hw);
    return null;
  };
  /** The DAC keeps the sample it was given last when the wave leaves it. */
  const holdLastSample = (): void => {
    hw.dacOut[w.output] = dacOutputVolts(wavegenVolts(w, hw.now()));
  };
  const setOutput = (ch: number): void => {
    const next = clampInt(ch, 0, 3) as DacChannel;
    if (w.running && next !== w.output) holdLastSample();
    w.output = next;
    userSet.add('output');
  };
  // The C comparisons let NaN through (`hz <= 0` is false for NaN).
  const setFreq = (hz: number): void => {
    w.freq = hz <= 0 ? 0.0001 : hz;
    userSet.add('freq');
  };
  const setWave = (wave: number): void => {
    w.wave = clampInt(wave, 0, 3) as 0 | 1 | 2 | 3;
    userSet.add('wave');
  };
  // The amplitude is kept as the peak (Vpp / 2) in single precision and doubled by the getter.
  const setAmplitude = (vpp: number): void => {
    w.amplitude = Math.fround(Math.fround(Math.max(vpp, 0)) * 0.5) * 2;
    userSet.add('amplitude');
  };
  const setOffset = (v: number): void => {
    w.offset = v;
    userSet.add('offset');
  };
  const stop = (): void => {
    if (w.running) holdLastSample();
    w.running = false;
  };
  return {
    // jl_wavegen_*: out-of-range values are clamped, never refused (the Python side raises first).
    wavegen_set_output: (ch) => {
      setOutput(asInt(ch));
      return changed();
    },
    wavegen_set_freq: (hz) => {
      setFreq(asNum(hz));
      return changed();
    },
    wavegen_set_wave: (wave) => {
      setWave(asInt(wave));
      return changed();
    },
    wavegen_set_amplitude: (vpp) => {
      setAmplitude(asNum(vpp));
      return changed();
    },
    wavegen_set_offset: (v) => {
      setOffset(asNum(v));
      return changed();
    },
    // jl_wavegen_set_sweep stores three statics nothing reads (API.cpp:258-268).
    wavegen_set_sweep: (start, end, seconds) => {
      const [s, e, t] = [asNum(start), asNum(end), asNum(seconds)];
      w.sweep = { start: s <= 0 ? 0.0001 : s, end: e <= 0 ? 0.0001 : e, seconds: Math.max(t, 0) };
      return null;
    },
    wavegen_start: (run = true) => {
      if (!truthy(run)) {
        stop();
        return changed();
      }
      if (!userSet.has('output')) setOutput(WAVEGEN_DEFAULTS.output);
      if (!userSet.has('freq')) setFreq(WAVEGEN_DEFAULTS.freq);
      if (!userSet.has('wave')) setWave(WAVEGEN_DEFAULTS.wave);
      if (!userSet.has('amplitude')) setAmplitude(WAVEGEN_DEFAULTS.amplitude);
      if (!userSet.has('offset')) setOffset(WAVEGEN_DEFAULTS.offset);
      // WaveGen::start restarts the table from its first sample.
      w.startedAt = hw.now();
      w.running = true;
      return changed();
    },
    wavegen_stop: () => {
      stop();
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
