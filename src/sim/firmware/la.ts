/**
 * The logic analyser as Python reaches it (JumperlessMicroPythonAPI.cpp:1602-1687, LogicAnalyzer.cpp).
 * The settings are kept (Python has no getters for them); a capture is only the wait:
 *
 * - `la_capture_single_sample` leaves the analyser at 1 sample at 1 kHz for good, runs one capture
 *   (LogicAnalyzer::run waits 101 ms before sampling) and returns True. On the board the sample goes
 *   out framed on USB CDC 2 (`$<bytes>+`), which is the port the raw REPL uses; here nothing is sent.
 * - `la_start_continuous_capture` captures 0x7FFFFFFF samples at 1 MHz in the foreground: the board
 *   blocks for about 36 minutes, streaming on CDC 2, until a `+` arrives on that port
 *   (LogicAnalyzer.cpp:717). The simulator refuses it instead of hanging the REPL.
 * - Running is only true inside that blocking run, so `la_is_capturing` and `la_stop_capture` are
 *   always False from Python.
 */
import { asInt, asNum, truthy } from './args.js';
import type { FirmwareFunctions, FirmwareHost } from './types.js';
import { PyError } from './types.js';

/** LogicAnalyzer.cpp:42-47. */
export interface LogicAnalyzerState {
  sampleRateHz: number;
  numSamples: number;
  analogMask: number;
  digitalMask: number;
}

/** LogicAnalyzer::run's fixed waits (100 ms + 1 ms) before the first sample. */
const RUN_DELAY_MS = 101;

export function createLogicAnalyzer(): LogicAnalyzerState {
  return { sampleRateHz: 10000, numSamples: 5000, analogMask: 0x0f, digitalMask: 0xff };
}

export function laGroup(la: LogicAnalyzerState, host: FirmwareHost): FirmwareFunctions {
  return {
    la_set_trigger: (type, channel, value) => {
      asInt(type);
      asInt(channel);
      asNum(value);
      return true;
    },
    la_capture_single_sample: () => {
      la.numSamples = 1;
      la.sampleRateHz = 1000;
      host.sleep(RUN_DELAY_MS);
      return true;
    },
    la_start_continuous_capture: () => {
      la.numSamples = 0x7fffffff;
      la.sampleRateHz = 1_000_000;
      throw new PyError(
        'NotImplementedError',
        'la_start_continuous_capture is not simulated: the board would block for about 36 minutes streaming samples on the REPL port',
      );
    },
    la_stop_capture: () => false,
    la_is_capturing: () => false,
    // mp_obj_get_int stored as uint32_t.
    la_set_sample_rate: (rate) => {
      la.sampleRateHz = asInt(rate) >>> 0;
      return null;
    },
    la_set_num_samples: (n) => {
      la.numSamples = asInt(n) >>> 0;
      return null;
    },
    la_enable_channel: (type, channel, enable) => {
      const t = asInt(type);
      const ch = asInt(channel);
      if (ch < 0 || ch > 7 || (t !== 0 && t !== 1)) return null;
      const bit = 1 << ch;
      const on = truthy(enable);
      if (t === 0) la.digitalMask = on ? la.digitalMask | bit : la.digitalMask & ~bit;
      else la.analogMask = on ? la.analogMask | bit : la.analogMask & ~bit;
      return null;
    },
  };
}
