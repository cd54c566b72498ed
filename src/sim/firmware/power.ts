/**
 * DAC and rail setpoints (spec §6.5). `dac_set` always moves the output; with save=False the state
 * keeps its old setpoint, so `dac_get` and get_state still report the old value.
 */
import { DAC_CHANNELS } from '../../board/limits.js';
import { BOTTOM_RAIL, DAC0, DAC1, TOP_RAIL } from '../../board/nodes.js';
import { asNode, asNum, pyFloat, truthy } from './args.js';
import { type DacChannel, dacOutputVolts, type Hardware, POWER_KEYS, touch } from './hardware.js';
import { recordSupplyChange } from './history.js';
import { type FirmwareFunctions, type Json, PyError } from './types.js';

const DAC_ERROR = 'Invalid DAC channel or node. Use 0-3, DAC0, DAC1, TOP_RAIL, or BOTTOM_RAIL';
const NODE_TO_CHANNEL: Record<number, DacChannel> = {
  [DAC0]: DAC_CHANNELS.DAC0,
  [DAC1]: DAC_CHANNELS.DAC1,
  [TOP_RAIL]: DAC_CHANNELS.TOP_RAIL,
  [BOTTOM_RAIL]: DAC_CHANNELS.BOTTOM_RAIL,
};

/** `map_node_to_dac_channel`: DAC0/DAC1/TOP_RAIL/BOTTOM_RAIL as nodes or names, or 0-3. */
export function dacChannel(x: Json | undefined): DacChannel {
  const v = asNode(x);
  const ch = NODE_TO_CHANNEL[v] ?? (v >= 0 && v <= 3 ? (v as DacChannel) : undefined);
  if (ch === undefined) throw new PyError('ValueError', DAC_ERROR);
  return ch;
}

/**
 * Sets a DAC output, and the stored setpoint when `save`; a stored change is an undo step
 * (history.ts `recordSupplyChange`).
 */
export function setDac(hw: Hardware, ch: DacChannel, volts: number, save: boolean): void {
  hw.dacOut[ch] = dacOutputVolts(volts);
  if (save) {
    const prev = hw.power[POWER_KEYS[ch]];
    hw.power[POWER_KEYS[ch]] = volts;
    recordSupplyChange(hw, ch, prev, volts, (v) => {
      hw.power[POWER_KEYS[ch]] = v;
      hw.dacOut[ch] = dacOutputVolts(v);
      touch(hw);
    });
  }
  touch(hw);
}

export function powerGroup(hw: Hardware): FirmwareFunctions {
  return {
    dac_set: (ch, volts, save = true) => {
      setDac(hw, dacChannel(ch), asNum(volts), truthy(save));
      return null;
    },
    dac_get: (ch) => pyFloat(hw.power[POWER_KEYS[dacChannel(ch)]]),
  };
}
