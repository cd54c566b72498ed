/** The waveform generator on one supply output (spec §6.8). */
import { z } from 'zod';
import { WAVEGEN_AMPLITUDE_VPP, WAVEGEN_FREQ_HZ } from '../board/limits.js';
import { ToolError } from '../core/errors.js';
import { py } from '../device/pyLiteral.js';
import { SUPPLIES } from './power.js';
import type { PythonPart } from './pythonParts.js';
import { checkVolts, type SafetyPolicy } from './safety.js';
import { voltsArg } from './shapes.js';
import { defineDeviceTool, type ToolContext } from './tool.js';

/**
 * Python run on the board, inside `_jlt`.
 *
 * - `wave_config` writes all five parameters, always: every setter marks its parameter set, and
 *   wavegen_start replaces the never-set ones with its own defaults (DAC1, 100 Hz, sine, 3.3 Vpp,
 *   1.65 V; JumperlessMicroPythonAPI.cpp:270-292), which the getters did not show.
 * - `wave_run(True)` writes the present values back before starting, for the same reason: what
 *   wave_status showed (and the swing check used) is what starts.
 * - Stopping leaves the DAC on the last sample (WaveGen.cpp:240-243): `wave_run(False)` and a move
 *   to another output drive the setpoint again (save=False: the stored setpoint does not change).
 */
export const python: readonly PythonPart[] = [
  {
    name: 'wavegen',
    source: `
def wave_status():
    return {'output': wavegen_get_output(), 'wave': wavegen_get_wave(), 'freq': wavegen_get_freq(), 'amp': wavegen_get_amplitude(), 'offset': wavegen_get_offset(), 'running': wavegen_is_running()}
def wave_write(o, w, f, a, off, amp_first):
    was = wavegen_get_output()
    if wavegen_is_running() and o != was:
        wavegen_stop()
        dac_set(was, dac_get(was), False)
    wavegen_set_output(o)
    wavegen_set_wave(w)
    wavegen_set_freq(f)
    if amp_first:
        wavegen_set_amplitude(a)
    wavegen_set_offset(off)
    if not amp_first:
        wavegen_set_amplitude(a)
def wave_config(o, w, f, a, off, amp_first, start):
    _jlt.wave_write(o, w, f, a, off, amp_first)
    if start:
        wavegen_start(True)
    return _jlt.wave_status()
def wave_run(on):
    if on:
        s = _jlt.wave_status()
        _jlt.wave_write(s['output'], s['wave'], s['freq'], s['amp'], s['offset'], True)
        wavegen_start(True)
    elif wavegen_is_running():
        ch = wavegen_get_output()
        wavegen_stop()
        dac_set(ch, dac_get(ch), False)
    return _jlt.wave_status()
`,
  },
];

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

/** A running wave in one line for state_get (null when it is stopped), from `_jlt.wave_status()`. */
export function runningWave(status: unknown): string | null {
  const s = shape(raw.parse(status));
  if (!s.running) return null;
  return `${s.waveform} wave on ${s.output}: ${s.frequency_hz} Hz, ${s.min_volts} to ${s.max_volts} V`;
}

async function readStatus(board: ToolContext['board']): Promise<Raw> {
  return raw.parse(await board.call('_jlt.wave_status()'));
}

/** The swing must stay inside the voltage policy at every instant (DESIGN.md §4). */
function checkSwing(policy: SafetyPolicy, amp: number, offset: number, output: string): void {
  checkVolts(policy, offset - amp / 2, `${output} wave minimum (offset - amplitude/2)`);
  checkVolts(policy, offset + amp / 2, `${output} wave maximum (offset + amplitude/2)`);
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(b));

/** What reading the generator needs. */
const WAVEGEN_GETTERS = [
  'wavegen_get_output',
  'wavegen_get_wave',
  'wavegen_get_freq',
  'wavegen_get_amplitude',
  'wavegen_get_offset',
  'wavegen_is_running',
] as const;

/** Every getter and setter the helpers use. */
const WAVEGEN_REQUIRES = [
  'wavegen_set_output',
  'wavegen_set_wave',
  'wavegen_set_freq',
  'wavegen_set_amplitude',
  'wavegen_set_offset',
  'wavegen_start',
  'wavegen_stop',
  ...WAVEGEN_GETTERS,
  'dac_set',
  'dac_get',
];

/** WaveGen.h:32: from 1 kHz the board's second core streams samples without returning. */
const BLOCKING_FROM_HZ = 1000;

/** What a user should know about a running wave. */
function runWarnings(r: Raw): string[] {
  const warnings: string[] = [];
  if (r.output === 0) warnings.push('DAC0 also powers the probe: its LEDs and sensing follow the wave.');
  if (!r.running) return warnings;
  // HelpDocs.cpp:1163-1164 says so; WaveGen::service loops until stopped from 1 kHz (WaveGen.cpp:274-280).
  warnings.push(
    r.freq >= BLOCKING_FROM_HZ
      ? 'While it runs at 1 kHz or more the second core streams samples without pause: routing and LED updates wait until it stops (wavegen_configure with running: false), and routing changes made meanwhile may be lost.'
      : 'While it runs, routing and LED updates are delayed (the second core streams the wave): stop it before connecting or measuring.',
  );
  return warnings;
}

const configInput = z.object({
  output: z.enum(SUPPLIES).optional(),
  waveform: z.enum(WAVEFORMS).optional(),
  frequency_hz: z.number().min(WAVEGEN_FREQ_HZ.min).max(WAVEGEN_FREQ_HZ.max).optional(),
  amplitude_vpp: z.number().min(WAVEGEN_AMPLITUDE_VPP.min).max(WAVEGEN_AMPLITUDE_VPP.max).optional(),
  offset_volts: voltsArg.optional(),
  running: z.boolean().optional(),
});
type ConfigInput = z.infer<typeof configInput>;
type Board = ToolContext['board'];

async function configureWave(args: ConfigInput, board: Board, safety: ToolContext['safety']) {
  const before = await readStatus(board);
  const amp = args.amplitude_vpp ?? before.amp;
  const offset = args.offset_volts ?? before.offset;
  const output = args.output ?? (SUPPLIES[before.output] as Output);
  const freq = args.frequency_hz ?? before.freq;
  const wave = args.waveform === undefined ? before.wave : WAVEFORMS.indexOf(args.waveform);
  checkSwing(safety, amp, offset, output);
  const outputIndex = SUPPLIES.indexOf(output);
  // Moving a running wave to another supply: the board-side helper stops it, puts the old
  // output back on its setpoint, writes everything and starts again.
  const restart = before.running && outputIndex !== before.output;
  // While running, order the two writes so the swing in between stays inside the new and old
  // swings: shrink the amplitude before moving the offset, move the offset before growing it.
  const ampFirst = amp <= before.amp;
  const final = raw.parse(
    await board.call(
      py`_jlt.wave_config(${outputIndex}, ${wave}, ${freq}, ${amp}, ${offset}, ${ampFirst}, ${restart})`,
    ),
  );
  const mismatches: string[] = [];
  if (final.output !== outputIndex) mismatches.push(`output ${SUPPLIES[final.output]}`);
  if (final.wave !== wave) mismatches.push(`waveform ${WAVEFORMS[final.wave]}`);
  if (!close(final.freq, freq)) mismatches.push(`frequency ${final.freq} Hz`);
  if (!close(final.amp, amp)) mismatches.push(`amplitude ${final.amp} Vpp`);
  if (!close(final.offset, offset)) mismatches.push(`offset ${final.offset} V`);
  if (restart && !final.running) mismatches.push('not running after the move');
  if (mismatches.length > 0) {
    throw new ToolError('not_applied', `The generator reads back ${mismatches.join(', ')}.`, {
      details: { status: shape(final) },
    });
  }
  return { ...shape(final), restarted: restart, warnings: runWarnings(final) };
}

async function startWave(board: Board, safety: ToolContext['safety']) {
  const before = await readStatus(board);
  checkSwing(safety, before.amp, before.offset, SUPPLIES[before.output] ?? 'output');
  const after = raw.parse(await board.call('_jlt.wave_run(True)'));
  if (!after.running)
    throw new ToolError('not_applied', 'The generator does not report running after start.');
  return { ...shape(after), warnings: runWarnings(after) };
}

async function stopWave(board: Board) {
  const after = raw.parse(await board.call('_jlt.wave_run(False)'));
  if (after.running) throw new ToolError('not_applied', 'The generator still reports running after stop.');
  const setpoint = z.number().parse(await board.call(py`dac_get(${after.output})`));
  return { ...shape(after), setpoint_volts: setpoint, warnings: [] };
}

/** Settings, start and stop in one tool (it replaced wavegen_start and wavegen_stop). */
export const wavegenConfigure = defineDeviceTool({
  name: 'wavegen_configure',
  title: 'Set, start or stop the wave generator',
  description:
    'Set/start/stop the wave (unset fields kept); offset +- amplitude/2 in limits. Running, it takes output.',
  group: 'wavegen',
  kind: 'physical',
  capability: 'jumperless.power',
  requires: WAVEGEN_REQUIRES,
  input: configInput,
  output: status.extend({
    restarted: z.boolean().describe('A running wave moved to another output'),
    setpoint_volts: z.number().optional().describe('After a stop: the setpoint the output went back to'),
    warnings: z.array(z.string()),
  }),
  handle: async (args, { board, safety }) => {
    const { running, ...settings } = args;
    const configures = Object.values(settings).some((value) => value !== undefined) || running === undefined;
    if (running === false) {
      // Stopped first, so that a new output never carries the wave, not even for a moment.
      const stopped = await stopWave(board);
      if (!configures) return { ...stopped, restarted: false };
      const configured = await configureWave(settings, board, safety);
      return { ...configured, setpoint_volts: stopped.setpoint_volts, restarted: false };
    }
    const configured = configures ? await configureWave(settings, board, safety) : undefined;
    const restarted = configured?.restarted ?? false;
    if (running === true && !configured?.running) return { ...(await startWave(board, safety)), restarted };
    return configured ?? { ...shape(await readStatus(board)), restarted, warnings: [] };
  },
});

export const wavegenStatus = defineDeviceTool({
  name: 'wavegen_status',
  title: 'Read the waveform generator',
  description: "The wave generator's settings and whether it runs.",
  group: 'wavegen',
  kind: 'read',
  capability: 'jumperless.read',
  requires: WAVEGEN_GETTERS,
  input: z.object({}),
  output: status,
  handle: async (_args, { board }) => shape(await readStatus(board)),
});

export default [wavegenConfigure, wavegenStatus];
