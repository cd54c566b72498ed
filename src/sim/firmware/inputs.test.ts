import { describe, expect, it } from 'vitest';
import { scriptedHost } from '../../../test/support/scriptedHost.js';
import { createHardware } from './hardware.js';
import { createInputs, RAW_PER_CLICK } from './inputs.js';
import { PyError } from './types.js';

function setup() {
  const host = scriptedHost();
  const hw = createHardware({ host });
  const inputs = createInputs(host, hw);
  host.apply = inputs.applyInput;
  const call = (name: string, ...args: unknown[]) => {
    const fn = inputs.functions[name];
    if (!fn) throw new Error(`no ${name}`);
    return fn(...(args as never[]));
  };
  return { host, hw, inputs, call };
}

describe('probe_read (spec §6.10)', () => {
  it('blocks until a touch arrives and returns the pad with its print name', () => {
    const { host, call } = setup();
    host.at(50, { kind: 'probe_touch', pad: 83 });
    expect(call('probe_read', true)).toEqual([83, 'NANO_D13']);
    expect(host.now()).toBeGreaterThanOrEqual(50);
  });

  it('a blocking read returns at once, and again, while the tip rests on a pad', () => {
    const { host, call } = setup();
    host.apply({ kind: 'probe_touch', pad: 12 });
    expect(call('probe_read', true)).toEqual([12, 'PAD_12']);
    expect(call('probe_read', true)).toEqual([12, 'PAD_12']);
    expect(host.now()).toBe(0);
    host.apply({ kind: 'probe_release' });
    host.interruptAt(host.now() + 100);
    expect(() => call('probe_read', true)).toThrow(PyError);
  });

  it('non-blocking: NO_PAD, then the pad, then the same pad only every 500 ms', () => {
    const { host, call } = setup();
    expect(call('probe_read', false)).toEqual([-1, 'NO_PAD']);
    host.apply({ kind: 'probe_touch', pad: 142 });
    expect(call('probe_read', false)).toEqual([142, 'LOGO_PAD_TOP']);
    expect(call('probe_read', false)).toEqual([-1, 'NO_PAD']);
    host.sleep(500);
    expect(call('probe_read', false)).toEqual([142, 'LOGO_PAD_TOP']);
    host.apply({ kind: 'probe_touch', pad: 5 });
    expect(call('probe_read', false)).toEqual([5, 'PAD_5']);
    host.apply({ kind: 'probe_release' });
    host.sleep(600);
    expect(call('probe_read', false)).toEqual([-1, 'NO_PAD']);
  });

  it('a tap that ended before the read still counts once', () => {
    const { host, call } = setup();
    host.apply({ kind: 'probe_touch', pad: 30 });
    host.apply({ kind: 'probe_release' });
    expect(call('probe_read', true)).toEqual([30, 'PAD_30']);
    expect(call('probe_read', false)).toEqual([-1, 'NO_PAD']);
  });

  it('Ctrl-C ends the wait with KeyboardInterrupt: Ctrl+Q and the debug line on the main port', () => {
    const { host, call } = setup();
    host.at(10, { kind: 'probe_touch', pad: 5 });
    call('probe_read', true);
    host.apply({ kind: 'probe_release' });
    host.interruptAt(200);
    let error: unknown;
    try {
      call('probe_read', true);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PyError);
    expect((error as PyError).pyType).toBe('KeyboardInterrupt');
    expect((error as PyError).message).toBe('Ctrl+Q');
    expect(host.main).toEqual(['DEBUG: Interrupt detected in jl_probe_read_blocking, call #2\n']);
  });

  it('names pads as the firmware prints them', () => {
    const { call } = setup();
    expect(call('_pad_names', [1, 60, 70, 101, 104, 126, 148, -1, 100, 61])).toEqual([
      'PAD_1',
      'PAD_60',
      'NANO_D0',
      'TOP_RAIL',
      'TOP_RAIL_GND',
      'BOTTOM_RAIL_GND',
      'BUILDING_PAD_BOTTOM',
      'NO_PAD',
      'UNKNOWN_PAD',
      'UNKNOWN_PAD',
    ]);
  });

  it('ignores malformed events', () => {
    const { host, hw, call } = setup();
    host.apply({ kind: 'probe_touch', pad: 1.5 });
    host.apply({ kind: 'nonsense' } as never);
    host.apply(null as never);
    expect(hw.probe.pad).toBe(-1);
    expect(call('probe_read', false)).toEqual([-1, 'NO_PAD']);
  });
});

describe('probe buttons', () => {
  it('a blocking consuming read takes the latched press', () => {
    const { host, call } = setup();
    host.at(30, { kind: 'button', button: 'remove' });
    expect(call('probe_button', true, true)).toBe(2);
    expect(call('probe_button', false, true)).toBe(0);
  });

  it('a blocking non-consuming read waits for the held state and leaves the press latched', () => {
    const { host, call } = setup();
    host.at(30, { kind: 'button', button: 'connect' });
    expect(call('probe_button', true, false)).toBe(1);
    host.sleep(500);
    expect(call('probe_button', false, false)).toBe(0);
    expect(call('probe_button', false, true)).toBe(1);
  });

  it('the latch holds the last press only, and never expires', () => {
    const { host, call } = setup();
    host.apply({ kind: 'button', button: 'connect' });
    expect(call('probe_button', false, false)).toBe(1);
    host.apply({ kind: 'button', button: 'remove' });
    host.sleep(10_000);
    expect(call('probe_button', false, false)).toBe(0);
    expect(call('probe_button', false, true)).toBe(2);
    expect(call('probe_button', false, true)).toBe(0);
  });

  it('a blocking read is interruptible', () => {
    const { host, call } = setup();
    host.interruptAt(40);
    expect(() => call('probe_button', true, true)).toThrow('Ctrl+Q');
    expect(host.main).toEqual([]);
  });
});

describe('switch and clickwheel', () => {
  it('check reads the physical switch into the firmware value; set overrides it', () => {
    const { host, hw, call } = setup();
    host.apply({ kind: 'switch', position: 'select' });
    expect(call('get_switch_position')).toBe(1);
    expect(hw.probe.switchPosition).toBe(1);
    call('set_switch_position', -1);
    expect(call('get_switch_position')).toBe(-1);
    call('set_switch_position', 7);
    expect(call('get_switch_position')).toBe(-1);
    expect(call('check_switch_position')).toBe(1);
  });

  it('with autoconnect off, check_switch_position forces SELECT (Probing.cpp:4994-4997)', () => {
    const { call } = setup();
    expect(call('probe_autoconnect', null)).toBe(true);
    expect(call('check_switch_position')).toBe(0);
    expect(call('probe_autoconnect', false)).toBe(false);
    expect(call('check_switch_position')).toBe(1);
    expect(call('get_switch_position')).toBe(1);
    expect(call('probe_autoconnect', true)).toBe(true);
    expect(call('check_switch_position')).toBe(0);
  });

  it('turns move the raw count and leave a direction that a consuming read clears', () => {
    const { host, call } = setup();
    host.apply({ kind: 'clickwheel_turn', clicks: 3 });
    host.apply({ kind: 'clickwheel_turn', clicks: -1 });
    expect(call('clickwheel_get_position')).toBe(2 * RAW_PER_CLICK);
    expect(call('clickwheel_get_direction', false)).toBe(2);
    expect(call('clickwheel_get_direction', true)).toBe(2);
    expect(call('clickwheel_get_direction', true)).toBe(0);
    call('clickwheel_reset_position');
    expect(call('clickwheel_get_position')).toBe(0);
  });

  it('clickwheel_up/down set the direction only: the count is ignored, the position stays', () => {
    const { call } = setup();
    call('clickwheel_up');
    expect(call('clickwheel_get_position')).toBe(0);
    expect(call('clickwheel_get_direction')).toBe(1);
    call('clickwheel_down');
    expect(call('clickwheel_get_direction')).toBe(2);
  });

  it('the button state is read without consuming it; RELEASED and DOUBLECLICKED expire', () => {
    const { host, call } = setup();
    call('clickwheel_press');
    expect(call('clickwheel_get_button')).toBe(3);
    expect(call('clickwheel_get_button')).toBe(3);
    host.sleep(20);
    expect(call('clickwheel_get_button')).toBe(0);
    host.apply({ kind: 'clickwheel_button', state: 'held' });
    host.sleep(1000);
    expect(call('clickwheel_get_button')).toBe(2);
    host.apply({ kind: 'clickwheel_button', state: 'long_held' });
    expect(call('clickwheel_get_button')).toBe(5);
    host.apply({ kind: 'clickwheel_button', state: 'medium_held' });
    expect(call('clickwheel_get_button')).toBe(6);
    expect(call('clickwheel_is_initialized')).toBe(true);
  });
});
