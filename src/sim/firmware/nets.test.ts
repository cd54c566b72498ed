import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';

describe('nets group (spec §6.9)', () => {
  it('has the five special nets on a fresh board, user nets from 6', () => {
    const b = testBoard();
    expect(b.call('get_num_nets')).toBe(6);
    expect([1, 2, 3, 4, 5].map((n) => b.call('get_net_name', n))).toEqual([
      'GND',
      'Top Rail',
      'Bottom Rail',
      'DAC 0',
      'DAC 1',
    ]);
    b.call('connect', 38, 44);
    expect(b.call('get_num_nets')).toBe(7);
    expect(b.call('get_net_name', 6)).toBe('Net 6');
    expect(b.call('get_net_nodes', 6)).toBe('38,44');
    expect(b.call('get_net_nodes', 4)).toBe('DAC_0,BUF_IN');
  });

  it('renumbers user nets when they merge or split', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    b.call('connect', 3, 4);
    b.call('connect', 5, 6);
    expect(b.call('get_net_nodes', 8)).toBe('5,6');
    b.call('connect', 2, 3);
    expect(b.call('get_num_nets')).toBe(8);
    expect(b.call('get_net_nodes', 6)).toBe('1,2,3,4');
    expect(b.call('get_net_nodes', 7)).toBe('5,6');
    b.call('disconnect', 1, 2);
    expect(b.call('get_net_nodes', 6)).toBe('3,4,2');
  });

  it('names nets: None only outside 0..59; set_net_name(n, None) restores the default', () => {
    const b = testBoard();
    b.call('connect', 10, 11);
    b.call('set_net_name', 6, 'signal');
    expect(b.call('get_net_name', 6)).toBe('signal');
    b.call('set_net_name', 6, null);
    expect(b.call('get_net_name', 6)).toBe('Net 6');
    expect(b.call('get_net_name', 60)).toBeNull();
    expect(b.call('get_net_name', -1)).toBeNull();
    expect(b.call('get_net_name', 0)).toBe('Empty Net');
    // An unused net is named with one space; a name can be stored on it (States.cpp:72-82).
    expect(b.call('get_net_name', 30)).toBe(' ');
    b.call('set_net_name', 30, 'spare');
    expect(b.call('get_net_name', 30)).toBe('spare');
    b.call('set_net_name', 6, 'y'.repeat(40));
    expect(b.call('get_net_name', 6)).toBe('y'.repeat(31));
  });

  it('colours nets by name, hex, integer, tuple, r,g,b and HSV, returning bools', () => {
    const b = testBoard();
    b.call('connect', 10, 11);
    // A name is dimmed and kept as typed (States.cpp:2407-2460).
    expect(b.call('set_net_color', 6, 'RED')).toBe(true);
    expect(b.call('get_net_color', 6)).toBe(0x200000);
    expect(b.call('get_net_color_name', 6)).toBe('RED');
    // '#' skips two characters: '#FF0000' reads 'F0000', then dims it.
    expect(b.call('set_net_color', 6, '#FF0000')).toBe(true);
    expect(b.call('get_net_color', 6)).toBe(0x020000);
    expect(b.call('get_net_color_name', 6)).toBe('#FF0000');
    expect(b.call('set_net_color', 6, 0x0000ff)).toBe(true);
    expect(b.call('get_net_color', 6)).toBe(0x0000ff);
    expect(b.call('get_net_color_name', 6)).toBe('royal blue');
    expect(b.call('set_net_color', 6, [1, 2, 3])).toBe(true);
    expect(b.call('get_net_color', 6)).toBe(0x010203);
    expect(b.call('set_net_color', 6, 255, 0, 255)).toBe(true);
    expect(b.call('get_net_color', 6)).toBe(0xff00ff);
    expect(b.call('set_net_color', 6, 'not a colour')).toBe(false);
    expect(b.call('set_net_color', 70, 'red')).toBe(false);
    expect(b.call('set_net_color_hsv', 6, 0.5)).toBe(true);
    expect(b.call('get_net_color_name', 6)).toBe('hsv(127,255,32)');
    expect(b.call('get_net_color_name', 99)).toBe('unknown');
  });

  it('gives net info as a dict, and a list for 0..num-1 from get_all_nets', () => {
    const b = testBoard();
    b.call('connect', 'TOP_RAIL', 23);
    expect(b.call('get_net_info', 2)).toEqual({
      name: 'Top Rail',
      number: 2,
      color: 0xff0000,
      color_name: 'red',
      nodes: 'TOP_R,23',
    });
    const all = b.call('get_all_nets') as unknown[];
    expect(all.length).toBe(6);
    expect(all[0]).toMatchObject({ name: 'Empty Net', number: 0, nodes: 'EMPTY' });
    expect(b.call('get_net_nodes', 0)).toBe('EMPTY');
    expect(b.call('get_net_info', 99)).toBeNull();
  });

  it('prints on the main port; print_nets waits for the probe button (NetManager.cpp:1668-1740)', () => {
    const b = testBoard();
    b.call('connect', 38, 44);
    b.hardware.probe.button = 1;
    expect(b.call('print_nets')).toBeNull();
    const nets = b.takeMain();
    expect(nets).toContain('Index\tName');
    expect(nets).toMatch(/6\t Net 6\t\t pink\s+38,44/);
    b.call('print_bridges');
    const paths = b.takeMain();
    expect(paths).toContain('numberOfPaths: 4');
    expect(paths).toContain('path\tnet\tnode1\tchip0');
    b.call('print_paths');
    expect(b.takeMain()).toBe(paths);
    b.call('print_crossbars');
    expect(b.takeMain()).toContain('1: 38-44');
    b.call('print_chip_status');
    expect(b.takeMain()).toMatch(/\nF\t1\n(.|\n)*\nK\t1\nL\t0\n$/);
  });
});
