/**
 * The two INA219 monitors (spec §6.6, §8.6). Sensor 0 measures the user shunt ISENSE_PLUS ->
 * ISENSE_MINUS (2 ohm); sensor 1 the probe/DAC0 supply. Both are configured for a 2 ohm shunt and
 * 1 A, so the current register counts 1 A / 32768 (30.5 uA), the bus register 4 mV (0-16 V, never below
 * zero), and power 20 current LSBs. The shunt input saturates at +-320 mV, so a reading stops at
 * +-0.16 A through the 2 ohm shunt, whatever the configured 1 A says. `ina_get_voltage` returns the
 * bus voltage, as the firmware does.
 */
import { DAC0, ISENSE_MINUS } from '../../board/nodes.js';
import { gaussian } from '../noise.js';
import { asInt, f32 } from './args.js';
import { type Circuit, nodeName } from './circuit.js';
import type { Hardware } from './hardware.js';
import { type FirmwareFunctions, type Json, PyError } from './types.js';

const CURRENT_LSB = 1 / 32768;
const BUS_LSB = 0.004;
const POWER_LSB = 20 * CURRENT_LSB;
/** `setBusVoltageRange(16)`: the bus register saturates at 16 V. */
const MAX_BUS = 16;
/** Full scale of the shunt ADC (PGA /8) over the 2 ohm shunt. */
const MAX_CURRENT = 0.32 / 2;
/** Noise of one reading, in A (about a third of an LSB). */
const CURRENT_NOISE = 10e-6;

export interface InaReading {
  current: number;
  bus: number;
  power: number;
}

export function inaGroup(hw: Hardware, circuit: Circuit): FirmwareFunctions {
  const measure = (sensor: Json): InaReading => {
    const s = asInt(sensor);
    if (s !== 0 && s !== 1) throw new PyError('ValueError', 'INA sensor must be 0 or 1');
    const solution = circuit.solve();
    let amps = s === 0 ? solution.current('shunt') : solution.current('dac0');
    const busVolts = solution.voltage(nodeName(s === 0 ? ISENSE_MINUS : DAC0));
    if (hw.rng) amps += CURRENT_NOISE * gaussian(hw.rng);
    const current = Math.max(
      -MAX_CURRENT,
      Math.min(MAX_CURRENT, Math.round(amps / CURRENT_LSB) * CURRENT_LSB),
    );
    const bus = Math.min(MAX_BUS, Math.max(0, Math.round(busVolts / BUS_LSB) * BUS_LSB));
    const power = Math.round(Math.abs(current * bus) / POWER_LSB) * POWER_LSB;
    return { current, bus, power };
  };
  return {
    ina_get_current: (s) => f32(measure(s).current),
    ina_get_voltage: (s) => f32(measure(s).bus),
    ina_get_bus_voltage: (s) => f32(measure(s).bus),
    ina_get_power: (s) => f32(measure(s).power),
  };
}
