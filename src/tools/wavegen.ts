/** The waveform generator on one supply output (spec §6.8). */
import { z } from 'zod';
import { DAC_SAFE, WAVEGEN_AMPLITUDE_VPP, WAVEGEN_FREQ_HZ } from '../board/limits.js';
import { SUPPLIES } from './power.js';
import { py } from './py.js';
import { checkVolts, type SafetyPolicy } from './safety.js';
import { defineTool, type ToolContext, ToolError } from './tool.js';

/** Python run on the board, inside `_jlt`. Values of None leave a setting alone. */
export const python = `
def wave_status():
    return {'output': wavegen_get_output(), 'wave': wavegen_get_wave(), 'freq': wavegen_get_freq(), 'amp': wavegen_get_amplitude(), 'offset': wavegen_get_offset(), 'running': wavegen_is_running()}
def wave_config(o, w, f, a, off, amp_first):
    if o is not None:
        wavegen_set_output(o)
    if w is not None:
        wavegen_set_wave(w)
    if f is not None:
        wavegen_set_freq(f)
    if amp_first and a is not None:
        wavegen_set_amplitude(a)
    if off is not None:
        wavegen_set_offset(off)
    if not amp_first and a is not None:
        wavegen_set_amplitude(a)
    return _jlt.wave_status()
def wave_run(on):
    if on:
        wavegen_start(True)
    else:
        wavegen_stop()
    return _jlt.wave_status()
`;

/** SINE=0, TRIANGLE=1, SAWTOOTH=2, SQUARE=3 (spec §6.8; the 09.8 table is wrong, §12). */
const WAVEFORMS = ['sine', 'triangle', 'sawtooth', 'square'] as const;
type Output = (typeof SUPPLIES)[number];

const raw = z.object({
  output: z.number().int().min(0).max(3),
  wave: z.number().int().min(0).max(3),
  freq: z.number(),
  amp: z.number(),
  offset: z.number(),
  running: z.boolean(),
});
type Raw = z.infer<typeof raw>;

const status = z.object({
  output: z.enum(SUPPLIES),
  waveform: z.enum(WAVEFORMS),
  frequency_hz: z.number(),
  amplitude_vpp: z.number(),
  offset_volts: z.number(),
  /** offset - amplitude/2 and offset + amplitude/2: the swing the output sees. */
  min_volts: z.number(),
  max_volts: z.number(),
  running: z.boolean(),
});
type Status = z.infer<typeof status>;

function shape(r: Raw): Status {
  return {
    output: SUPPLIES[r.output] as Output,
    waveform: WAVEFORMS[r.wave] as (typeof WAVEFORMS)[number],
    frequency_hz: r.freq,
    amplitude_vpp: r.amp,
    offset_volts: r.offset,
    min_volts: round(r.offset - r.amp / 2),
    max_volts: round(r.offset + r.amp / 2),
    running: r.running,
  };
}

const round = (v: number): number => Math.round(v * 1e6) / 1e6;

async function readStatus(board: ToolContext['board']): Promise<Raw> {
  return raw.parse(await board.call('_jlt.wave_status()'));
}

/** The swing must stay inside the voltage policy at every instant (DESIGN.md §4). */
function checkSwing(policy: SafetyPolicy, amp: number, offset: number, output: string): void {
  checkVolts(policy, offset - amp / 2, `${output} wave minimum (offset - amplitude/2)`);
  checkVolts(policy, offset + amp / 2, `${output} wave maximum (offset + amplitude/2)`);
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(b));

export const wavegenConfigure = defineTool({
  name: 'wavegen_configure',
  title: 'Configure the waveform generator',
  description:
    'Set the generator output (DAC0, DAC1, TOP_RAIL, BOTTOM_RAIL), waveform, frequency_hz, amplitude_vpp and offset_volts; omitted fields keep their value. offset +- amplitude/2 must stay within the voltage limits. While running, the output changes at once; DAC0 also powers the probe LEDs.',
  group: 'wavegen',
  kind: 'physical',
  capability: 'jumperless.power',
  requires: [
    'wavegen_set_output',
    'wavegen_set_wave',
    'wavegen_set_freq',
    'wavegen_set_amplitude',
    'wavegen_set_offset',
    'wavegen_start',
    'wavegen_stop',
    'wavegen_get_output',
    'wavegen_get_wave',
    'wavegen_get_freq',
    'wavegen_get_amplitude',
    'wavegen_get_offset',
    'wavegen_is_running',
  ],
  input: z.object({
    output: z.enum(SUPPLIES).optional().describe('Supply the wave replaces'),
    waveform: z.enum(WAVEFORMS).optional(),
    frequency_hz: z.number().min(WAVEGEN_FREQ_HZ.min).max(WAVEGEN_FREQ_HZ.max).optional().describe('Hz'),
    amplitude_vpp: z
      .number()
      .min(WAVEGEN_AMPLITUDE_VPP.min)
      .max(WAVEGEN_AMPLITUDE_VPP.max)
      .optional()
      .describe('Peak to peak, volts'),
    offset_volts: z
      .number()
      .min(DAC_SAFE.min)
      .max(DAC_SAFE.max)
      .optional()
      .describe('Centre of the wave, volts'),
  }),
  output: status.extend({ restarted: z.boolean() }),
  handle: async (args, { board, safety }) => {
    const before = await readStatus(board);
    const amp = args.amplitude_vpp ?? before.amp;
    const offset = args.offset_volts ?? before.offset;
    const output = args.output ?? (SUPPLIES[before.output] as Output);
    checkSwing(safety, amp, offset, output);
    const outputIndex = SUPPLIES.indexOf(output);
    // Moving a running wave to another supply: stop it first so no output sees a half-made change.
    const restart = before.running && outputIndex !== before.output;
    if (restart) await board.call('_jlt.wave_run(False)');
    // While running, order the two writes so the swing in between stays inside the new and old
    // swings: shrink the amplitude before moving the offset, move the offset before growing it.
    const ampFirst = amp <= before.amp;
    const wave = args.waveform === undefined ? null : WAVEFORMS.indexOf(args.waveform);
    const after = raw.parse(
      await board.call(
        py`_jlt.wave_config(${args.output === undefined ? null : outputIndex}, ${wave}, ${args.frequency_hz ?? null}, ${args.amplitude_vpp ?? null}, ${args.offset_volts ?? null}, ${ampFirst})`,
      ),
    );
    const final = restart ? raw.parse(await board.call('_jlt.wave_run(True)')) : after;
    const mismatches: string[] = [];
    if (final.output !== outputIndex) mismatches.push(`output ${SUPPLIES[final.output]}`);
    if (wave !== null && final.wave !== wave) mismatches.push(`waveform ${WAVEFORMS[final.wave]}`);
    if (args.frequency_hz !== undefined && !close(final.freq, args.frequency_hz))
      mismatches.push(`frequency ${final.freq} Hz`);
    if (!close(final.amp, amp)) mismatches.push(`amplitude ${final.amp} Vpp`);
    if (!close(final.offset, offset)) mismatches.push(`offset ${final.offset} V`);
    if (mismatches.length > 0) {
      throw new ToolError('not_applied', `The generator reads back ${mismatches.join(', ')}.`, {
        details: { status: shape(final) },
      });
    }
    return { ...shape(final), restarted: restart };
  },
});

export const wavegenStart = defineTool({
  name: 'wavegen_start',
  title: 'Start the waveform generator',
  description:
    'Start the configured wave on its output: that supply stops holding its setpoint and everything on its net sees the wave. Refused when the configured swing exceeds the voltage limits.',
  group: 'wavegen',
  kind: 'physical',
  capability: 'jumperless.power',
  requires: ['wavegen_start', 'wavegen_is_running', 'wavegen_get_output', 'wavegen_get_amplitude'],
  input: z.object({}),
  output: status,
  handle: async (_args, { board, safety }) => {
    const before = await readStatus(board);
    checkSwing(safety, before.amp, before.offset, SUPPLIES[before.output] ?? 'output');
    const after = raw.parse(await board.call('_jlt.wave_run(True)'));
    if (!after.running)
      throw new ToolError('not_applied', 'The generator does not report running after start.');
    return shape(after);
  },
});

export const wavegenStop = defineTool({
  name: 'wavegen_stop',
  title: 'Stop the waveform generator',
  description: 'Stop the wave; its output goes back to the supply setpoint.',
  group: 'wavegen',
  kind: 'physical',
  capability: 'jumperless.power',
  requires: ['wavegen_stop', 'wavegen_is_running'],
  input: z.object({}),
  output: status,
  handle: async (_args, { board }) => {
    const after = raw.parse(await board.call('_jlt.wave_run(False)'));
    if (after.running) throw new ToolError('not_applied', 'The generator still reports running after stop.');
    return shape(after);
  },
});

export const wavegenStatus = defineTool({
  name: 'wavegen_status',
  title: 'Read the waveform generator',
  description:
    'Read the generator settings (output, waveform, frequency_hz, amplitude_vpp, offset_volts) and whether it runs.',
  group: 'wavegen',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['wavegen_get_output', 'wavegen_is_running'],
  input: z.object({}),
  output: status,
  handle: async (_args, { board }) => shape(await readStatus(board)),
});

export default [wavegenConfigure, wavegenStart, wavegenStop, wavegenStatus];
