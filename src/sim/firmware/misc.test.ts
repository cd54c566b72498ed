import { describe, expect, it } from 'vitest';
import { createFakeGpioState, fakeGpioFunctions } from './fakeGpio.js';
import { createHardware } from './hardware.js';
import { HELP_SECTIONS } from './help.js';
import { createInputs } from './inputs.js';
import { createMiscState, hueToAnsi, miscFunctions, parseChip } from './misc.js';
import { scriptedHost } from './scriptedHost.js';
import { PyError } from './types.js';

function setup(volts: Record<number, number> = {}) {
  const host = scriptedHost();
  const inputs = createInputs(host, createHardware({ host }));
  host.apply = inputs.applyInput;
  const state = createMiscState();
  const fns = {
    ...miscFunctions(state, { host, inputs: inputs.state }),
    ...fakeGpioFunctions(createFakeGpioState(), (name) =>
      name === 'get_node_voltage' ? (node) => volts[node as number] ?? null : undefined,
    ),
  };
  const call = (name: string, ...args: unknown[]) => fns[name]?.(...(args as never[]));
  return { host, state, call, volts };
}

describe('misc (spec §6.14)', () => {
  it('pause_core2 sets a flag other groups can read', () => {
    const { state, call } = setup();
    call('pause_core2', true);
    expect(state.core2Paused).toBe(true);
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

  it('terminal colours are ANSI escapes; cycling walks the hue', () => {
    const { call } = setup();
    expect(call('change_terminal_color', -1)).toBe('\x1b[0m');
    expect(call('change_terminal_color', 196)).toBe('\x1b[38;5;196m');
    const first = call('cycle_term_color', true, 0);
    expect(first).toBe(`\x1b[38;5;${hueToAnsi(0)}m`);
    expect(hueToAnsi(0)).toBe(196);
    expect(hueToAnsi(120)).toBe(46);
    expect(hueToAnsi(240)).toBe(21);
    expect(call('cycle_term_color', false, 120)).toBe('\x1b[38;5;46m');
  });

  it('services are found by name, case-insensitively, and by index', () => {
    const { call } = setup();
    expect(call('get_service_index', 'probebutton')).toBe(0);
    expect(call('get_service_index', 'nope')).toBe(-1);
    expect(call('force_service', 'OLED')).toBe(true);
    expect(call('force_service', 'nope')).toBe(false);
    expect(call('force_service_by_index', -1)).toBe(false);
    expect(call('force_service_by_index', 2)).toBe(true);
  });

  it('run_app blocks until the clickwheel is held, and Ctrl-C interrupts it', () => {
    const { host, state, call } = setup();
    host.at(300, { kind: 'clickwheel_button', state: 'held' });
    expect(call('run_app', 'Snake')).toBeNull();
    expect(host.now()).toBeGreaterThanOrEqual(300);
    expect(state.app).toBeUndefined();
    host.interruptAt(host.now() + 100);
    expect(() => call('run_app', 'Snake')).toThrow(PyError);
  });

  it('fake GPIO inputs follow the node voltage with hysteresis; outputs remember their level', () => {
    const { call, volts } = setup();
    expect(call('fake_gpio_config', 500, 0, 2.0, 0.8)).toBe(false);
    expect(call('fake_gpio_config', 20, 0, 2.0, 0.8)).toBe(true);
    volts[20] = 3.3;
    expect(call('fake_gpio_read', 20)).toBe(1);
    volts[20] = 1.2;
    expect(call('fake_gpio_read', 20)).toBe(1);
    volts[20] = 0.2;
    expect(call('fake_gpio_read', 20)).toBe(0);
    call('fake_gpio_config', 21, 1, 2.0, 0.8);
    call('fake_gpio_write', 21, 1);
    expect(call('fake_gpio_read', 21)).toBe(1);
  });

  it('check_interrupt sleeps 1 ms and lets Ctrl-C through', () => {
    const { host, call } = setup();
    call('check_interrupt');
    expect(host.now()).toBe(1);
    host.interruptAt(1);
    expect(() => call('check_interrupt')).toThrow(PyError);
  });
});

describe('help (spec §6.9)', () => {
  it('help() lists every section, then prints them all', () => {
    const { call } = setup();
    const text = call('help_text', null) as string;
    for (const section of HELP_SECTIONS) expect(text).toContain(`help("${section}")`);
    for (const fn of [
      'dac_set',
      'adc_get',
      'probe_read',
      'oled_print',
      'overlay_set',
      'jfs.open',
      'pause_core2',
    ]) {
      expect(text).toContain(fn);
    }
    expect(text).toContain('\x1b[38;5;');
  });

  it('one section, case-insensitive; an unknown one says so', () => {
    const { call } = setup();
    const oled = call('help_text', 'oled') as string;
    expect(oled).toContain('oled_print');
    expect(oled).not.toContain('dac_set');
    expect(call('help_text', 'encoder')).toContain('clickwheel_get_position');
    expect(call('help_text', 'bogus')).toBe(
      'Unknown help section: bogus\nUse help() to see available sections.\n\n',
    );
    expect(call('help_text', 'all')).not.toContain('Help sections');
  });

  it('nodes_help explains the three ways to name a node', () => {
    const { call } = setup();
    const text = call('nodes_help_text') as string;
    expect(text).toContain('connect(D13, TOP_RAIL)');
    expect(text).toContain('NANO_D13');
  });
});
