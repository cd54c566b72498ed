import { describe, expect, it } from 'vitest';
import { parseSlotYaml } from '../../board/slots.js';
import { testBoard } from './testEnv.js';

const text = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);

describe('slots group (spec §6.4)', () => {
  it('saves the RAM state as /slots/slotN.yaml and returns the slot', () => {
    const b = testBoard();
    b.call('connect', 10, 20);
    b.call('dac_set', 2, 3.3);
    expect(b.call('nodes_save')).toBe(0);
    expect(b.call('nodes_save', 5)).toBe(5);
    const parsed = parseSlotYaml(text(b.files.get('/slots/slot5.yaml')));
    expect(parsed.ok && parsed.slot.bridges.map((x) => [x.n1, x.n2, x.dup])).toEqual([
      [139, 106, 1],
      [10, 20, 2],
    ]);
    expect(parsed.ok && parsed.slot.power.topRail).toBe(3.3);
  });

  it('switches slots, returning the previous one, and loads what was saved there', () => {
    const b = testBoard();
    b.call('connect', 10, 20);
    b.call('nodes_save', 3);
    expect(b.call('switch_slot', 3)).toBe(0);
    expect(b.call('CURRENT_SLOT')).toBe(3);
    expect(b.call('is_connected', 10, 20)).toBe(true);
    expect(b.call('switch_slot', 3)).toBe(3);
    expect(b.call('switch_slot', 1)).toBe(3);
    expect(b.call('is_connected', 10, 20)).toBe(false);
    expect(b.call('get_num_bridges')).toBe(1);
    expect(b.call('dac_get', 0)).toBe(3.33);
    expect(b.call('switch_slot', 8)).toEqual({ error: 'ValueError: Invalid slot number' });
  });

  it('tracks unsaved changes and discards them', () => {
    const b = testBoard();
    expect(b.call('nodes_has_changes')).toBe(false);
    b.call('connect', 1, 2);
    b.call('dac_set', 3, 1.5);
    expect(b.call('nodes_has_changes')).toBe(true);
    b.call('nodes_discard');
    expect(b.call('nodes_has_changes')).toBe(false);
    expect(b.call('is_connected', 1, 2)).toBe(false);
    expect(b.call('dac_get', 3)).toBe(0);
    expect(b.hardware.dacOut[3]).toBeCloseTo(0, 2);
    b.call('connect', 1, 2);
    b.call('nodes_save');
    expect(b.call('nodes_has_changes')).toBe(false);
  });

  it('boots into slot 0 as saved on the flash', () => {
    const files = new Map<string, Uint8Array>();
    const first = testBoard({ files });
    first.call('connect', 7, 8);
    first.call('dac_set', 2, 5);
    first.call('nodes_save');
    const second = testBoard({ files });
    expect(second.call('is_connected', 7, 8)).toBe(true);
    expect(second.call('dac_get', 2)).toBe(5);
    expect(second.hardware.dacOut[2]).toBeCloseTo(5, 2);
  });

  it('toggles the connection context', () => {
    const b = testBoard();
    expect(b.call('context_get')).toBe('global');
    b.call('context_toggle');
    expect(b.call('context_get')).toBe('python');
  });
});

describe('state group (spec §7)', () => {
  it('prints the §7 JSON, pretty and with 3-decimal floats', () => {
    const b = testBoard();
    b.call('connect', 'TOP_RAIL', 23);
    const json = b.call('get_state') as string;
    expect(json.startsWith('{\n  "power": {\n    "top_rail": 0.000,')).toBe(true);
    const state = JSON.parse(json);
    expect(Object.keys(state)).toEqual(['power', 'nets', 'gpio', 'overlays']);
    expect(state.power).toEqual({ top_rail: 0, bottom_rail: 0, dac0: 3.33, dac1: 0 });
    expect(state.nets[1]).toEqual({
      index: 2,
      name: 'Top Rail',
      nodes: ['TOP_R', '23'],
      special: 'RAIL',
      voltage: 0,
    });
    expect(state.gpio.map((g: { pin: unknown }) => g.pin)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 'TX', 'RX']);
    expect(state.gpio[0]).toEqual({
      pin: 1,
      net: null,
      function: 'SIO',
      direction: 'INPUT',
      pull: 'down',
      reading: 'float',
      floating_read: 1,
    });
  });

  it('applies its own output back with set_state, returning 0', () => {
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
    expect(b.call('get_num_bridges')).toBe(a.call('get_num_bridges'));
    expect(b.call('dac_get', 2)).toBe(3.3);
    expect(b.call('gpio_get_dir', 2)).toBe(0);
    expect(b.takeMain()).toBe('');
  });

  it('prints set_state errors on the main port and returns -1, never raising', () => {
    const b = testBoard();
    expect(b.call('set_state', '{nope')).toBe(-1);
    expect(b.takeMain()).toMatch(/^set_state error: Invalid JSON/);
    expect(b.call('set_state', '{"power":{"top_rail":12}}')).toBe(-1);
    expect(b.takeMain()).toContain('set_state error: Power values out of range (-8V to +8V)');
    expect(b.call('set_state', '{"power":{"top_rail":1.5}}', true, true)).toBe(-1);
    expect(b.takeMain()).toContain('set_state wokwi error');
    expect(b.call('dac_get', 2)).toBe(0);
  });

  it('keeps the bridges when the document has no nets section', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    expect(b.call('set_state', '{"power":{"bottom_rail":-1}}')).toBe(0);
    expect(b.call('is_connected', 1, 2)).toBe(true);
    expect(b.call('dac_get', 3)).toBe(-1);
  });
});
