/**
 * ADC readings (spec §6.6, §8.5). `adc_get` accepts channels 0-3 as firmware 5.7.0.13 does
 * (`ValueError: ADC channel must be 0-3`); `_adc_sample` also reads ADC4 (0-5 V) and ADC7 (probe)
 * for the backchannel. A reading is what the ADC node sees in the DC solution, converted like the
 * firmware: 16 samples of a 12-bit code `(v + zero) * 4095 / spread`, averaged, back to volts.
 */
import { ADC0, ADC4, ADC7 } from '../../board/nodes.js';
import { gaussian, type Rng } from '../noise.js';
import { asInt, asNode, f32 } from './args.js';
import { type Circuit, nodeName } from './circuit.js';
import type { Hardware } from './hardware.js';
import { type FirmwareFunctions, PyError } from './types.js';

/** `[calibration] adc_N_zero / adc_N_spread` defaults. */
const CALIBRATION: Record<number, { zero: number; spread: number; node: number }> = {
  0: { zero: 9, spread: 18.28, node: ADC0 },
  1: { zero: 9, spread: 18.28, node: ADC0 + 1 },
  2: { zero: 9, spread: 18.28, node: ADC0 + 2 },
  3: { zero: 9, spread: 18.28, node: ADC0 + 3 },
  4: { zero: 0, spread: 5, node: ADC4 },
  7: { zero: 9, spread: 18.28, node: ADC7 },
};
const SAMPLES = 16;
/** Noise of one sample, in V (about one LSB); averaging 16 brings it under a millivolt. */
const SAMPLE_NOISE = 0.004;

/** Volts at the pin -> the averaged 12-bit reading the firmware returns. */
export function adcConvert(volts: number, channel: number, rng?: Rng): number {
  const cal = CALIBRATION[channel] ?? CALIBRATION[0];
  if (!cal) return 0;
  let sum = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const v = rng ? volts + SAMPLE_NOISE * gaussian(rng) : volts;
    sum += Math.min(4095, Math.max(0, Math.round(((v + cal.zero) * 4095) / cal.spread)));
  }
  return ((sum / SAMPLES) * cal.spread) / 4095 - cal.zero;
}

/** Channels with an ADC input: 0-4 and 7 (the probe). */
export const ADC_CHANNELS = [0, 1, 2, 3, 4, 7] as const;

/** One reading of `channel` as the firmware returns it; remembered in `hw.lastAdc`. */
export function readAdc(hw: Hardware, circuit: Circuit, channel: number): number {
  const cal = CALIBRATION[channel];
  if (!cal) throw new PyError('ValueError', 'ADC channel must be 0-3');
  const volts = circuit.solve().voltage(nodeName(cal.node));
  const reading = f32(adcConvert(volts, channel, hw.rng));
  hw.lastAdc[channel] = reading;
  return reading;
}

export function adcGroup(hw: Hardware, circuit: Circuit): FirmwareFunctions {
  const read = (channel: number): number => readAdc(hw, circuit, channel);
  return {
    adc_get: (ch) => {
      const channel = asInt(ch);
      if (channel < 0 || channel > 3) throw new PyError('ValueError', 'ADC channel must be 0-3');
      return read(channel);
    },
    _adc_sample: (ch) => read(asInt(ch)),
    // The DC voltage of any node, for FakeGpioPin inputs and the ports (no Python name; the
    // Python get_node_voltage of 5.7.11 is the scan's, scan.ts).
    _node_volts: (n) => f32(circuit.solve().voltage(nodeName(asNode(n)))),
  };
}
