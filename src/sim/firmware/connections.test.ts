import { describe, expect, it } from 'vitest';
import { testBoard } from './testEnv.js';

describe('connections group (spec §6.3)', () => {
  it('adds bridges with names or ids and answers is_connected for the exact bridge only', () => {
    const b = testBoard();
    b.call('connect', 1, 5);
    b.call('connect', 'd13', '5');
    expect(b.call('is_connected', 5, 1)).toBe(true);
    expect(b.call('is_connected', 1, 'NANO_D13')).toBe(false);
    expect(b.call('get_bridge', 1)).toEqual([1, 5, 2]);
    expect(b.call('get_bridge', 2)).toEqual([83, 5, 2]);
    expect(b.call('get_bridge', 9)).toBeNull();
  });

  it('fails silently where the firmware does', () => {
    const b = testBoard();
    const before = b.call('get_num_bridges');
    for (const [x, y] of [
      [0, 5],
      [61, 5],
      [5, 5],
      ['GND', 'TOP_RAIL'],
      ['GPIO_1', 'TOP_RAIL'],
      ['DAC1', 'GND'],
    ]) {
      expect(b.call('connect', x, y)).toBeNull();
    }
    expect(b.call('get_num_bridges')).toBe(before);
    expect(b.call('disconnect', 7, 8)).toBeNull();
  });

  it('raises only for names it cannot resolve and arguments of the wrong type', () => {
    const b = testBoard();
    expect(b.call('connect', 'nowhere', 1)).toEqual({ error: 'ValueError: Unknown node name' });
    expect(b.call('connect', 1.5, 1)).toEqual({ error: 'TypeError: Expected node, int, or string' });
    expect(b.call('_resolve_node', 'T_RAIL')).toBeNull();
    expect(b.call('_resolve_node', 'top_rail')).toBe(101);
  });

  it('counts duplicates: -1 adds one to an existing bridge, N sets it', () => {
    const b = testBoard();
    b.call('connect', 3, 4);
    b.call('connect', 3, 4);
    expect(b.call('get_bridge', 1)).toEqual([3, 4, 3]);
    b.call('connect', 4, 3, 8);
    expect(b.call('get_bridge', 1)).toEqual([3, 4, 8]);
    expect(b.call('get_num_paths', true)).toBe(1 + 8);
    expect(b.call('get_num_paths', false)).toBe(2);
  });

  it('disconnects one bridge, or every bridge of a node with -1', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    b.call('connect', 1, 3);
    b.call('connect', 4, 5);
    b.call('disconnect', 1, -1);
    expect(b.call('get_num_bridges')).toBe(2);
    b.call('disconnect', 5, 4);
    expect(b.call('get_num_bridges')).toBe(1);
  });

  it('nodes_clear keeps the probe-power bridge BUFFER_IN-DAC0', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    b.call('nodes_clear');
    expect(b.call('get_num_bridges')).toBe(1);
    expect(b.call('is_connected', 'BUFFER_IN', 'DAC0')).toBe(true);
  });

  it('describes paths: one primary per bridge, found either way round', () => {
    const b = testBoard();
    b.call('connect', 10, 40);
    const path = b.call('get_path_between', 40, 10) as Record<string, unknown>;
    expect(path).toMatchObject({ node1: 10, node2: 40, net: 6, duplicate: 0 });
    expect((path.chips as number[]).length).toBe(4);
    expect((path.x as number[]).length).toBe(6);
    expect(b.call('get_path_info', 1)).toEqual(path);
    b.takeMain();
    expect((b.call('get_all_paths') as unknown[]).length).toBe(2);
    expect(b.takeMain()).toBe('jl_get_all_path_info: numBridges=2, numPaths=2\n');
    expect(b.call('get_path_between', 10, 11)).toBeNull();
  });

  it('prints nodes by the first alias of the module table', () => {
    const b = testBoard();
    expect(['_node_name'].flatMap((f) => [83, 131, 116, 139, 5, 142, 200].map((n) => b.call(f, n)))).toEqual([
      'NANO_D13',
      'RP_GPIO_1',
      'RP_UART_TX',
      'ROUTABLE_BUFFER_IN',
      '5',
      '',
      '',
    ]);
  });

  it('undoes and redoes connection changes', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    b.call('connect', 3, 4);
    expect(b.call('history_size')).toBe(2);
    expect(b.call('history_label')).toBe('connect 3-4');
    expect(b.call('undo')).toBe(true);
    expect(b.call('is_connected', 3, 4)).toBe(false);
    expect(b.call('redo')).toBe(true);
    expect(b.call('is_connected', 3, 4)).toBe(true);
    expect(b.call('history_jump', 0)).toBe(true);
    expect(b.call('get_num_bridges')).toBe(1);
    expect(b.call('undo')).toBe(false);
    expect(b.call('history_snapshot')).toBe(true);
    expect(b.call('history_snapshot_count')).toBe(1);
    expect(b.call('redo')).toBe(false);
  });
});
