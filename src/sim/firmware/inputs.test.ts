import { describe, expect, it } from 'vitest';
import { createHardware } from './hardware.js';
import { createInputs } from './inputs.js';
import { scriptedHost } from './scriptedHost.js';
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

  it('answers one blocking read per touch event, even one that came before the call', () => {
    const { host, call } = setup();
    host.apply({ kind: 'probe_touch', pad: 12 });
    expect(call('probe_read', true)).toEqual([12, '12']);
    host.interruptAt(host.now() + 100);
    expect(() => call('probe_read', true)).toThrow(PyError);
  });

  it('non-blocking: a waiting touch first, then the pad under the tip, NO_PAD after release', () => {
    const { host, call } = setup();
    expect(call('probe_read', false)).toEqual([-1, 'NO_PAD']);
    host.apply({ kind: 'probe_touch', pad: 142 });
    expect(call('probe_read', false)).toEqual([142, 'LOGO_PAD_TOP']);
    expect(call('probe_read', false)).toEqual([142, 'LOGO_PAD_TOP']);
    host.apply({ kind: 'probe_release' });
    expect(call('probe_read', false)).toEqual([-1, 'NO_PAD']);
  });

  it('Ctrl-C ends the wait with KeyboardInterrupt: Ctrl+Q and the debug line on the main port', () => {
    const { host, call } = setup();
    host.at(10, { kind: 'probe_touch', pad: 5 });
    call('probe_read', true);
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
      '1',
      '60',
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
  it('a blocking read takes the click, which then no longer shows as held', () => {
    const { host, call } = setup();
    host.at(30, { kind: 'button', button: 'remove' });
    expect(call('probe_button', true, false)).toBe(2);
    expect(call('probe_button', false, false)).toBe(0);
  });

  it('non-consuming reads see a click while it is held; consuming reads take it once', () => {
    const { host, call } = setup();
    host.apply({ kind: 'button', button: 'connect' });
    expect(call('probe_button', false, false)).toBe(1);
    expect(call('probe_button', false, false)).toBe(1);
    expect(call('probe_button', false, true)).toBe(1);
    expect(call('probe_button', false, true)).toBe(0);
    host.apply({ kind: 'button', button: 'connect' });
    host.sleep(500);
    expect(call('probe_button', false, false)).toBe(0);
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

  it('turns move the position and leave a direction that a consuming read clears', () => {
    const { host, call } = setup();
    host.apply({ kind: 'clickwheel_turn', clicks: 3 });
    host.apply({ kind: 'clickwheel_turn', clicks: -1 });
    expect(call('clickwheel_get_position')).toBe(2);
    expect(call('clickwheel_get_direction', false)).toBe(2);
    expect(call('clickwheel_get_direction', true)).toBe(2);
    expect(call('clickwheel_get_direction', true)).toBe(0);
    call('clickwheel_up', 4);
    expect(call('clickwheel_get_position')).toBe(6);
    expect(call('clickwheel_get_direction')).toBe(1);
    call('clickwheel_reset_position');
    expect(call('clickwheel_get_position')).toBe(0);
  });

  it('button events report once, held lasts until released', () => {
    const { host, call } = setup();
    call('clickwheel_press');
    expect(call('clickwheel_get_button')).toBe(3);
    expect(call('clickwheel_get_button')).toBe(0);
    host.apply({ kind: 'clickwheel_button', state: 'held' });
    expect(call('clickwheel_get_button')).toBe(2);
    expect(call('clickwheel_get_button')).toBe(2);
    host.apply({ kind: 'clickwheel_button', state: 'released' });
    expect(call('clickwheel_get_button')).toBe(3);
    expect(call('clickwheel_is_initialized')).toBe(true);
  });

  it('probe_autoconnect reports and sets the flag', () => {
    const { call } = setup();
    expect(call('probe_autoconnect', null)).toBe(false);
    expect(call('probe_autoconnect', true)).toBe(true);
    expect(call('probe_autoconnect', null)).toBe(true);
  });
});
