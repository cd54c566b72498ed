/** Supplies: the two DACs and the two rails (spec §6.5). */
import { z } from 'zod';
import { DAC_CHANNELS } from '../board/limits.js';
import { ToolError } from '../core/errors.js';
import { py } from '../device/pyLiteral.js';
import { recordChange } from './journal.js';
import type { PythonPart } from './pythonParts.js';
import { checkVolts } from './safety.js';
import { voltsArg } from './shapes.js';
import { defineDeviceTool } from './tool.js';

export const SUPPLIES = Object.keys(DAC_CHANNELS) as [
  keyof typeof DAC_CHANNELS,
  ...(keyof typeof DAC_CHANNELS)[],
];

/**
 * Python run on the board, inside the `_jlt` helper class (no `self`: called as `_jlt.fn()`).
 * `dac_get` is the stored setpoint, not a measurement (JumperlessMicroPythonAPI.cpp:351-365).
 * `power_set` refuses a channel the waveform generator drives: the wave would overwrite the DAC
 * within microseconds (WaveGen.cpp:262-300).
 */
export const python: readonly PythonPart[] = [
  {
    name: 'power',
    source: `
def power_get():
    return {'dac0_volts': dac_get(0), 'dac1_volts': dac_get(1), 'top_rail_volts': dac_get(2), 'bottom_rail_volts': dac_get(3)}
def power_set(ch, v):
    if wavegen_is_running() and wavegen_get_output() == ch:
        return None
    dac_set(ch, v)
    return dac_get(ch)
`,
  },
];

const setpoints = z.object({
  dac0_volts: z.number(),
  dac1_volts: z.number(),
  top_rail_volts: z.number(),
  bottom_rail_volts: z.number(),
});

export const powerGet = defineDeviceTool({
  name: 'power_get',
  title: 'Read supply setpoints',
  description: 'Setpoints of DAC0, DAC1 and both rails in volts (not measured).',
  group: 'power',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['dac_get'],
  input: z.object({}),
  output: setpoints,
  handle: async (_args, { board }) => setpoints.parse(await board.call('_jlt.power_get()')),
});

export const dacSet = defineDeviceTool({
  name: 'dac_set',
  title: 'Set a supply voltage',
  description:
    'Set a supply; all on its net gets it; reads back the setpoint. DAC0 also powers the probe (misbehaves outside about 2.8-3.9 V).',
  group: 'power',
  kind: 'physical',
  capability: 'jumperless.power',
  requires: ['dac_set', 'dac_get', 'wavegen_is_running', 'wavegen_get_output'],
  input: z.object({
    channel: z.enum(SUPPLIES),
    volts: voltsArg,
  }),
  output: z.object({
    channel: z.enum(SUPPLIES),
    volts: z.number().describe('The stored setpoint after the call (the request, read back)'),
    previous_volts: z.number(),
  }),
  hazard: ({ channel, volts }, { aboveVolts }) =>
    Math.abs(volts) > aboveVolts
      ? `Set ${channel} to ${volts} V? Everything wired to it gets ${volts} V (above ${aboveVolts} V).`
      : undefined,
  handle: async ({ channel, volts }, { board, safety }) => {
    checkVolts(safety, volts, channel);
    const before = setpoints.parse(await board.call('_jlt.power_get()'));
    const after = z
      .number()
      .nullable()
      .parse(await board.call(py`_jlt.power_set(${DAC_CHANNELS[channel]}, ${volts})`));
    if (after === null) {
      throw new ToolError(
        'busy',
        `The waveform generator is running on ${channel}; it would overwrite the setpoint at once. Stop it first (wavegen_configure with running: false).`,
      );
    }
    if (Math.abs(after - volts) > 0.01) {
      throw new ToolError('not_applied', `${channel} reads back ${after} V after setting ${volts} V.`, {
        details: { requested_volts: volts, setpoint_volts: after },
      });
    }
    const key = `${channel.toLowerCase()}_volts` as keyof typeof before;
    if (Math.abs(before[key] - after) > 0.001) {
      recordChange(board, {
        tool: 'dac_set',
        label: `dac_set ${channel} ${before[key]} V -> ${after} V`,
        power: [{ channel: DAC_CHANNELS[channel], before: before[key], after }],
      });
    }
    return { channel, volts: after, previous_volts: before[key] };
  },
});

export default [powerGet, dacSet];
