import { describe, expect, it } from 'vitest';
import { scriptedHost } from '../../../test/support/scriptedHost.js';
import { createHardware } from './hardware.js';
import { HELP_SECTIONS } from './help.js';
import { createInputs } from './inputs.js';
import { createMiscState, hueToAnsi, miscFunctions, parseChip } from './misc.js';
import { PyError } from './types.js';

function setup() {
  const host = scriptedHost();
  const hw = createHardware({ host });
  const inputs = createInputs(host, hw);
  host.apply = inputs.applyInput;
  const state = createMiscState();
  const fns = miscFunctions(state, { host, inputs: inputs.state, hw });
  const call = (name: string, ...args: unknown[]) => fns[name]?.(...(args as never[]));
  return { host, hw, state, call };
}

describe('misc (spec §6.14)', () => {
  it('pause_core2 sets a flag other groups can read', () => {
    const { hw, call } = setup();
    call('pause_core2', true);
    expect(hw.core2Paused).toBe(true);
    expect(call('_core2_paused')).toBe(true);
    call('pause_core2', false);
    expect(call('_core2_paused')).toBe(false);
  });

  it('send_raw takes chips 0-11 or A-L and ignores anything out of range', () => {
    const { call } = setup();
    expect([parseChip(0), parseChip(11), parseChip('a'), parseChip('L'), parseChip('7')]).toEqual([
      0, 11, 0, 11, 7,
    ]);
    expect([parseChip(12), parseChip('M'), parseChip('AB'), parseChip(1.5)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    call('send_raw', 'B', 3, 4, 1);
    call('send_raw', 2, 16, 0, 1);
    call('send_raw', 'Q', 1, 1, 1);
    expect(call('_raw_crosspoints')).toEqual([[1, 3, 4]]);
    call('send_raw', 1, 3, 4, 0);
    expect(call('_raw_crosspoints')).toEqual([]);
  });

  it('terminal colours go to the main port as ANSI escapes, never to the REPL', () => {
    const { host, call } = setup();
    expect(call('change_terminal_color', -1)).toBeNull();
    expect(call('change_terminal_color', 196)).toBeNull();
    expect(call('change_terminal_color', -5)).toBeNull();
    expect(call('cycle_term_color', true, 0)).toBeNull();
    expect(host.main).toEqual(['\x1b[0m', '\x1b[38;5;196m', '\x1b[38;5;-5m', `\x1b[38;5;${hueToAnsi(0)}m`]);
    expect(hueToAnsi(0)).toBe(196);
    expect(hueToAnsi(120)).toBe(46);
    expect(hueToAnsi(240)).toBe(21);
  });

  it('services: the firmware names, case-sensitive, in jOS order; the index is cast to uint8', () => {
    const { call } = setup();
    expect(call('get_service_index', 'TermSerial')).toBe(0);
    expect(call('get_service_index', 'ProbeButton')).toBe(2);
    expect(call('get_service_index', 'ConfigSave')).toBe(19);
    expect(call('get_service_index', 'probebutton')).toBe(-1);
    expect(call('force_service', 'OLED')).toBe(true);
    expect(call('force_service', 'oled')).toBe(false);
    expect(call('force_service_by_index', -1)).toBe(false);
    expect(call('force_service_by_index', 200)).toBe(false);
    expect(call('force_service_by_index', 256)).toBe(true);
  });

  it('run_app: an unknown app returns at once; a known one blocks until the clickwheel is held', () => {
    const { host, state, call } = setup();
    expect(call('run_app', 'no such app')).toBeNull();
    expect(host.main).toEqual(['App not found\r\n']);
    expect(host.now()).toBe(0);
    host.at(300, { kind: 'clickwheel_button', state: 'held' });
    expect(call('run_app', '  calib dacs ')).toBeNull();
    expect(host.main[1]).toBe('Running app: calib dacs\r\n');
    expect(host.now()).toBeGreaterThanOrEqual(300);
    expect(state.app).toBeUndefined();
    host.interruptAt(host.now() + 100);
    expect(() => call('run_app', 'Snake')).toThrow(PyError);
  });
});

describe('help (spec §6.9)', () => {
  it('help() starts with the firmware title and overview, then prints every section', () => {
    const { host, call } = setup();
    const text = call('help_text', null) as string;
    expect(text.startsWith('Jumperless Native MicroPython Module\nAvailable help sections:\n\n')).toBe(true);
    expect(text).toContain('  help() or help("all")     - Show all functions\n');
    for (const section of HELP_SECTIONS) expect(text).toContain(`help("${section}")`);
    for (const fn of [
      'dac_set',
      'adc_get',
      'probe_read',
      'oled_print',
      'oled_screen',
      'overlay_set',
      'jfs.open',
    ]) {
      expect(text).toContain(fn);
    }
    expect(text).not.toContain('\x1b');
    expect(host.main.join('')).toContain('\x1b[38;5;');
  });

  it('one section, case-insensitive, with its firmware heading; an unknown one says so', () => {
    const { call } = setup();
    const oled = call('help_text', 'oled') as string;
    expect(oled.startsWith('OLED Display:\n\n')).toBe(true);
    expect(oled).toContain('OLED Layout (retained screens, live-updating):');
    expect(oled).not.toContain('dac_set');
    expect(call('help_text', 'encoder')).toContain('clickwheel_get_position');
    expect(call('help_text', 'bogus')).toBe(
      'Unknown help section: bogus\nUse help() to see available sections.\n\n',
    );
    const all = call('help_text', 'all') as string;
    expect(all.startsWith('DAC (Digital-to-Analog Converter):')).toBe(true);
    expect(all).not.toContain('Available help sections');
    expect(call('help_text', 'MISC')).toMatch(/^Misc:\n\n {3}arduino_reset\(\) {18}- Reset Arduino\n/);
  });

  it('nodes_help starts with the firmware title and explains the three ways to name a node', () => {
    const { call } = setup();
    const text = call('nodes_help_text') as string;
    expect(text.startsWith('Jumperless Node Reference\n========================\n\n')).toBe(true);
    expect(text).toContain('connect(D13, TOP_RAIL)');
  });
});
