import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';
import { parseSlotYaml } from '../../board/slots.js';

const text = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);
const bridges = (b: ReturnType<typeof testBoard>): unknown[] =>
  Array.from({ length: b.call('get_num_bridges') as number }, (_, i) => b.call('get_bridge', i));

/** Runs the idle main loop for `ms` (the autosave's service), in 50 ms turns. */
function idle(b: ReturnType<typeof testBoard>, ms: number): void {
  for (let t = 0; t < ms; t += 50) {
    b.advance(50);
    b.functions._service?.();
  }
}

describe('power-on', () => {
  it('starts on slot 0 with the probe-power bridge (duplicates 0) and default supplies', () => {
    const b = testBoard();
    expect(b.call('CURRENT_SLOT')).toBe(0);
    expect(bridges(b)).toEqual([[139, 106, 0]]);
    expect([0, 1, 2, 3].map((ch) => b.call('dac_get', ch))).toEqual([3.33, 0, 0, 0]);
    expect(b.files.has('/slots/slot0.yaml')).toBe(false);
  });

  it('writes slot 0 with the first autosave, 750 ms after power-on', () => {
    const b = testBoard();
    idle(b, 700);
    expect(b.files.has('/slots/slot0.yaml')).toBe(false);
    idle(b, 100);
    expect(text(b.files.get('/slots/slot0.yaml'))).toContain('  - {n1: BUFFER_IN, n2: DAC0, dup: 0}\n');
  });

  it('loads slot 0 from the flash, then wires the probe power again', () => {
    const files = new Map<string, Uint8Array>();
    const first = testBoard({ files });
    first.call('nodes_clear');
    first.call('connect', 7, 8);
    first.call('dac_set', 2, 5);
    first.call('dac_set', 0, 1.5);
    first.call('set_net_name', 6, 'seven');
    first.call('gpio_set_dir', 3, 0);
    first.call('nodes_save');
    const second = testBoard({ files });
    expect(bridges(second)).toEqual([
      [7, 8, 2],
      [139, 106, 0],
    ]);
    expect(second.call('dac_get', 2)).toBe(5);
    expect(second.hardware.dacOut[2]).toBeCloseTo(5, 2);
    expect(second.call('dac_get', 0)).toBe(3.33);
    expect(second.call('get_net_name', 6)).toBe('seven');
    expect(second.call('gpio_get_dir', 3)).toBe(0);
  });
});

describe('slots', () => {
  it('switch_slot only renumbers: the wiring and supplies stay, nothing is read', () => {
    const b = testBoard();
    b.call('connect', 10, 20);
    b.call('dac_set', 2, 3.3);
    b.files.set('/slots/slot3.yaml', new TextEncoder().encode('version: 2\n\npower:\n  topRail: 1.00\n'));
    expect(b.call('switch_slot', 3)).toBe(0);
    expect(b.call('CURRENT_SLOT')).toBe(3);
    expect(b.call('is_connected', 10, 20)).toBe(true);
    expect(b.call('dac_get', 2)).toBe(3.3);
    expect(b.call('switch_slot', 3)).toBe(3);
    expect(b.call('switch_slot', 8)).toEqual({ error: 'ValueError: Invalid slot number' });
    expect(b.call('switch_slot', 99)).toEqual({ error: 'ValueError: Invalid slot number' });
  });

  it('nodes_save(N) writes N and makes it current; 99 is the Python slot; others are refused', () => {
    const b = testBoard();
    b.call('connect', 10, 20);
    expect(b.call('nodes_save', 5)).toBe(5);
    expect(b.call('CURRENT_SLOT')).toBe(5);
    const parsed = parseSlotYaml(text(b.files.get('/slots/slot5.yaml')));
    expect(parsed.ok && parsed.slot.bridges.map((x) => [x.n1, x.n2, x.dup])).toEqual([
      [139, 106, 0],
      [10, 20, 2],
    ]);
    expect(b.call('nodes_save', 99)).toBe(99);
    expect(b.call('CURRENT_SLOT')).toBe(99);
    expect(b.files.has('/slots/slotPython.yaml')).toBe(true);
    b.takeMain();
    expect(b.call('nodes_save', 8)).toBe(8);
    expect(b.call('nodes_save', -2)).toBe(-2);
    expect(b.takeMain()).toBe(
      'Failed to save state to slot 8: Invalid slot number: 8\nFailed to save state to slot -2: Invalid slot number: -2\n',
    );
    expect(b.call('CURRENT_SLOT')).toBe(99);
    expect([...b.files.keys()].filter((f) => f.includes('slot8') || f.includes('-2'))).toEqual([]);
  });

  it('has no backup over the REPL port: has_changes is False and discard changes nothing', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    expect(b.call('nodes_has_changes')).toBe(false);
    expect(b.call('nodes_discard')).toBe(null);
    expect(b.call('is_connected', 1, 2)).toBe(true);
  });

  it('autosaves a change to the current slot once idle', () => {
    const b = testBoard();
    idle(b, 800);
    b.call('connect', 11, 12);
    idle(b, 50);
    expect(text(b.files.get('/slots/slot0.yaml'))).toContain('{n1: 11, n2: 12, dup: 2}');
  });

  it('after switch_slot, the next change writes the old wiring into the new slot', () => {
    const b = testBoard();
    b.call('connect', 11, 12);
    idle(b, 800);
    const slot4 = 'version: 2\nsourceOfTruth: bridges\n\nbridges:\n  - {n1: 30, n2: 31, dup: 2}\n';
    b.files.set('/slots/slot4.yaml', new TextEncoder().encode(slot4));
    b.call('switch_slot', 4);
    idle(b, 200);
    expect(text(b.files.get('/slots/slot4.yaml'))).toBe(slot4);
    b.call('connect', 11, 12); // an existing bridge: still a change (one more duplicate)
    idle(b, 50);
    const after = text(b.files.get('/slots/slot4.yaml'));
    expect(after).toContain('{n1: 11, n2: 12, dup: 3}');
    expect(after).not.toContain('n1: 30');
  });

  it('marks the state dirty even for a setter that changes nothing', () => {
    const b = testBoard();
    idle(b, 800);
    b.files.delete('/slots/slot0.yaml');
    b.call('dac_set', 1, 0);
    idle(b, 50);
    expect(b.files.has('/slots/slot0.yaml')).toBe(true);
    b.files.delete('/slots/slot0.yaml');
    b.call('dac_set', 1, 0, false);
    b.call('disconnect', 40, 41);
    idle(b, 100);
    expect(b.files.has('/slots/slot0.yaml')).toBe(false);
  });

  it('waits for 750 ms without a button or clickwheel input', () => {
    const b = testBoard();
    idle(b, 800);
    b.applyInput({ kind: 'clickwheel_turn', clicks: 1 });
    b.call('connect', 13, 14);
    idle(b, 700);
    expect(text(b.files.get('/slots/slot0.yaml'))).not.toContain('n1: 13');
    idle(b, 100);
    expect(text(b.files.get('/slots/slot0.yaml'))).toContain('{n1: 13, n2: 14, dup: 2}');
  });

  it('toggles the connection context', () => {
    const b = testBoard();
    expect(b.call('context_get')).toBe('global');
    b.call('context_toggle');
    expect(b.call('context_get')).toBe('python');
  });
});

describe('slot file', () => {
  it('is written as the firmware writes it', () => {
    const b = testBoard();
    b.call('connect', 57, 'NANO_D5');
    b.call('connect', 12, 20);
    b.call('set_net_name', 7, 'Power');
    b.call('gpio_set_dir', 2, 0);
    b.call('gpio_set_pull', 3, 1);
    b.call('nodes_save');
    expect(text(b.files.get('/slots/slot0.yaml'))).toBe(
      [
        'version: 2',
        'sourceOfTruth: bridges',
        '',
        'bridges:',
        '  - {n1: BUFFER_IN, n2: DAC0, dup: 0}',
        '  - {n1: 57, n2: NANO_D5, dup: 2}',
        '  - {n1: 12, n2: 20, dup: 2}',
        '',
        'nets:',
        '  - {num: 4, nodes: [DAC_0, BUF_IN], anim: true}',
        '  - {num: 6, nodes: [57, D5], color: pink}',
        '  - {num: 7, nodes: [12, 20], color: royal blue, name: "Power"}',
        '',
        'power:',
        '  topRail: 0.00',
        '  bottomRail: 0.00',
        '  dac0: 3.33',
        '  dac1: 0.00',
        '',
        'config:',
        '  routing: {stackPaths: 2, stackRails: 3, stackDacs: 0, railPriority: 1}',
        '  gpio:',
        '    direction:    [1,0,1,1,1,1,1,1,1,1]',
        '    pulls:        [0,0,1,0,0,0,0,0,0,0]',
        '    pwmFrequency: [1.00,1.00,1.00,1.00,1.00,1.00,1.00,1.00,1.00,1.00]',
        '    pwmDutyCycle: [0.50,0.50,0.50,0.50,0.50,0.50,0.50,0.50,0.50,0.50]',
        '    pwmEnabled:   [0,0,0,0,0,0,0,0,0,0]',
        '    readFloating: [1,1,1,1,1,1,1,1,0,0]',
        '  uart: {txFunction: 0, rxFunction: 1}',
        '  oled: {connected: false, lockConnection: false}',
        '',
      ].join('\n'),
    );
  });

  it('has no bridges section without bridges', () => {
    const b = testBoard();
    b.call('nodes_clear');
    b.call('nodes_save');
    const y = text(b.files.get('/slots/slot0.yaml'));
    expect(y.startsWith('version: 2\nsourceOfTruth: bridges\n\nnets:\n\npower:\n')).toBe(true);
  });
});

describe('get_state', () => {
  it('prints the firmware JSON, pretty and with 3-decimal floats (5.7.0.13: every reserved net)', () => {
    const b = testBoard({ firmware: '5.7.0.13' });
    b.call('connect', 'TOP_RAIL', 23);
    const json = b.call('get_state') as string;
    expect(json.startsWith('{\n  "power": {\n    "top_rail": 0.000,')).toBe(true);
    expect(json.endsWith('\n  "overlays": [\n  ]\n}')).toBe(true);
    const state = JSON.parse(json);
    expect(state.power).toEqual({ top_rail: 0, bottom_rail: 0, dac0: 3.33, dac1: 0 });
    expect(state.nets[1]).toEqual({
      index: 2,
      name: 'Top Rail',
      nodes: ['TOP_R', '23'],
      special: 'RAIL',
      voltage: 0,
    });
    expect(state.nets[3].nodes).toEqual(['DAC_0', 'BUF_IN']);
    expect(state.gpio.map((g: { pin: unknown }) => g.pin)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 'TX', 'RX']);
    expect(state.gpio.map((g: { floating_read: number }) => g.floating_read)).toEqual([
      1, 1, 1, 1, 1, 1, 1, 1, 0, 0,
    ]);
    expect(state.gpio[0]).toEqual({
      pin: 1,
      net: null,
      function: 'SIO',
      direction: 'INPUT',
      pull: 'down',
      reading: 'float',
      floating_read: 1,
    });
    expect(state.gpio.slice(8).map((g: { function: string }) => g.function)).toEqual(['UART', 'UART']);
  });

  it('leaves out nets of fewer than two nodes and escapes net names on 5.7.11 (JsonState.cpp)', () => {
    const b = testBoard();
    b.call('connect', 'TOP_RAIL', 23);
    b.call('connect', 5, 6);
    b.call('set_net_name', 6, 'say "hi"\\now');
    const json = b.call('get_state') as string;
    expect(json).toContain('"name": "say \\"hi\\"\\\\now"');
    const state = JSON.parse(json);
    expect(state.nets.map((n: { index: number }) => n.index)).toEqual([2, 4, 6]);
    expect(state.nets[2]).toMatchObject({ index: 6, name: 'say "hi"\\now', nodes: ['5', '6'] });
  });
});

describe('set_state', () => {
  it('applies its own output back, as chains of each net, returning 0', () => {
    const a = testBoard();
    a.call('connect', 1, 5);
    a.call('connect', 5, 9);
    a.call('connect', 'GPIO_1', 9);
    a.call('dac_set', 2, 3.3);
    a.call('gpio_set_dir', 2, 0);
    const json = a.call('get_state') as string;
    const b = testBoard();
    b.call('connect', 30, 31);
    expect(b.call('set_state', json)).toBe(0);
    expect(b.call('get_net_nodes', 6)).toBe(a.call('get_net_nodes', 6));
    expect(b.call('is_connected', 30, 31)).toBe(false);
    expect(b.call('is_connected', 'DAC0', 'BUFFER_IN')).toBe(true);
    expect(b.call('dac_get', 2)).toBe(3.3);
    expect(b.call('gpio_get_dir', 2)).toBe(0);
    expect(b.takeMain()).toBe('');
  });

  it('clears every bridge, the probe-power one too, when there is a nets section', () => {
    const b = testBoard();
    expect(b.call('set_state', '{"nets":[]}')).toBe(0);
    expect(b.call('get_num_bridges')).toBe(0);
  });

  it('prints its errors on the main port and returns -1, never raising', () => {
    const b = testBoard();
    expect(b.call('set_state', '')).toBe(-1);
    expect(b.takeMain()).toBe('set_state error: Empty or invalid JSON\n');
    expect(b.call('set_state', '[1]')).toBe(-1);
    expect(b.takeMain()).toBe('set_state error: Invalid JSON: must be an object\n');
    expect(b.call('set_state', '{"x": 1}')).toBe(-1);
    expect(b.takeMain()).toBe(
      'set_state error: Invalid JSON: no recognized sections (nets, power, gpio, overlays)\n',
    );
    expect(b.call('set_state', '{"power":{"top_rail":12}}')).toBe(-1);
    expect(b.takeMain()).toBe('set_state error: Power values out of range (-8V to +8V)\n');
    expect(b.call('set_state', '{"power":{"top_rail":1.5}}', true, true)).toBe(-1);
    expect(b.takeMain()).toContain('set_state wokwi error');
    expect(b.call('dac_get', 2)).toBe(0);
  });

  it('scans substrings: sloppy text passes, names and unquoted nodes are ignored, unknown nodes skipped', () => {
    const b = testBoard();
    expect(b.call('set_state', '{"gpio"}')).toBe(0);
    expect(b.call('set_state', '{"nets":[{"nodes":[57,58]}]}', false)).toBe(0);
    expect(b.call('is_connected', 57, 58)).toBe(false);
    expect(b.call('set_state', '{"nets":[{"name":"x","nodes":["56","BOGUS","57","58"]}]}', false)).toBe(0);
    expect(b.call('is_connected', 56, 57)).toBe(true);
    expect(b.call('is_connected', 57, 58)).toBe(true);
    expect(b.call('get_net_name', b.hardware.conns.netOf(56) ?? 0)).toMatch(/^Net \d+$/);
    // A number stops at the exponent: 1e-7 reads as 1.
    expect(b.call('set_state', '{"power":{"dac1":1e-7}}')).toBe(0);
    expect(b.call('dac_get', 1)).toBe(1);
    // A non-number reads as 0.
    expect(b.call('set_state', '{"power":{"dac1":"high"}}')).toBe(0);
    expect(b.call('dac_get', 1)).toBe(0);
  });

  it('takes a voltage of nets 2-5 as a setpoint without driving it', () => {
    const b = testBoard();
    expect(b.call('set_state', '{"nets":[{"index":5,"nodes":["DAC_1"],"voltage":2.5}]}', false)).toBe(0);
    expect(b.call('dac_get', 1)).toBe(2.5);
    expect(b.hardware.dacOut[1]).toBeCloseTo(0, 2);
  });

  it('re-sending an existing bridge adds a duplicate', () => {
    const b = testBoard();
    b.call('connect', 40, 41);
    b.call('set_state', '{"nets":[{"nodes":["40","41"]}]}', false);
    expect(b.call('get_bridge', 1)).toEqual([40, 41, 3]);
  });

  it('skips TX/RX in the gpio section', () => {
    const b = testBoard();
    b.call('set_state', '{"gpio":[{"pin":"TX","direction":"INPUT","pull":"up"},{"pin":4,"pull":"up"}]}');
    expect(b.call('gpio_get_pull', 9)).not.toBe(1);
    expect(b.call('gpio_get_pull', 4)).toBe(1);
  });
});
