import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';

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
      // On the id ranges but not on the V5 crossbar (FileParsing.cpp:2016-2070), and -1.
      [5, 84],
      [5, 'SUPPLY_3V3'],
      [5, 104],
      [5, '5V'],
      [5, 'ADC7'],
      [5, -1],
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

  it('counts duplicates: any negative adds one to an existing bridge, N >= 0 sets it, no limit', () => {
    const b = testBoard();
    b.call('connect', 3, 4);
    b.call('connect', 3, 4);
    expect(b.call('get_bridge', 1)).toEqual([3, 4, 3]);
    b.call('connect', 4, 3, 9);
    expect(b.call('get_bridge', 1)).toEqual([3, 4, 9]);
    b.call('connect', 4, 3, -4);
    expect(b.call('get_bridge', 1)).toEqual([3, 4, 10]);
    // Primary paths; with duplicates each routed bridge adds its count (the probe-power one has 0).
    expect(b.call('get_num_paths', false)).toBe(2);
    expect(b.call('get_num_paths', true)).toBe(2 + 10);
  });

  it('boots with the probe-power bridge BUFFER_IN-DAC0 at 0 duplicates', () => {
    expect(testBoard().call('get_bridge', 0)).toEqual([139, 106, 0]);
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

  it('nodes_clear removes the probe-power bridge BUFFER_IN-DAC0 too, as one Clear All step', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    b.call('nodes_clear');
    expect(b.call('get_num_bridges')).toBe(0);
    expect(b.call('is_connected', 'BUFFER_IN', 'DAC0')).toBe(false);
    expect(b.call('history_label')).toBe('Clear All');
    expect(b.call('undo')).toBe(true);
    expect(b.call('get_num_bridges')).toBe(2);
  });

  it('describes paths: one primary per bridge in a net, found either way round, lanes >= 0', () => {
    const b = testBoard();
    b.call('connect', 10, 40);
    const path = b.call('get_path_between', 40, 10) as Record<string, number[] | number>;
    expect(path).toMatchObject({ node1: 10, node2: 40, net: 6, duplicate: 0 });
    expect((path.chips as number[]).length).toBe(4);
    expect((path.x as number[]).length).toBe(6);
    expect((path.x as number[]).slice(0, 2).every((x) => x >= 0)).toBe(true);
    expect((path.y as number[]).slice(0, 2).every((y) => y >= 0)).toBe(true);
    expect(b.call('get_path_info', 1)).toEqual(path);
    b.takeMain();
    expect((b.call('get_all_paths') as unknown[]).length).toBe(2);
    expect(b.takeMain()).toBe('jl_get_all_path_info: numBridges=2, numPaths=2\n');
    expect(b.call('get_path_between', 10, 11)).toBeNull();
  });

  it('orders paths by net with the probe-power path first (NetsToChipConnections.cpp:1367-1496)', () => {
    const b = testBoard();
    b.call('connect', 20, 21); // net 6
    b.call('connect', 5, 'GND'); // net 1
    b.call('connect', 7, 'TOP_RAIL'); // net 2
    const paths = b.call('get_all_paths') as { node1: number; node2: number; net: number }[];
    expect(paths.map((p) => [p.node1, p.node2, p.net])).toEqual([
      [139, 106, 4],
      [5, 100, 1],
      [7, 101, 2],
      [20, 21, 6],
    ]);
  });

  it('gives a bridge between two special nets no path at all; is_connected still sees it', () => {
    const b = testBoard();
    const primary = b.call('get_num_paths', false);
    b.call('connect', 'DAC0', 'GND');
    expect(b.call('is_connected', 'GND', 'DAC0')).toBe(true);
    expect(b.call('get_bridge', 1)).toEqual([106, 100, 2]);
    expect(b.call('get_path_between', 106, 100)).toBeNull();
    expect(b.call('get_num_paths', false)).toBe(primary);
  });

  it('keeps an unplaced path in its net with lanes -1 (the simulator-only _sim_route_fail)', () => {
    const b = testBoard();
    b.call('_sim_route_fail', 30, 31, true);
    b.call('connect', 31, 30);
    const path = b.call('get_path_between', 30, 31) as { net: number; x: number[]; y: number[] };
    expect(path.net).toBe(6);
    expect(path.x.slice(0, 2)).toEqual([-1, -1]);
    expect(path.y.slice(0, 2)).toEqual([-1, -1]);
    b.call('_sim_route_fail', 30, 31, false);
    expect((b.call('get_path_between', 30, 31) as { x: number[] }).x[0]).toBeGreaterThanOrEqual(0);
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

  it('undoes and redoes connection changes: position 0 at the newest, negative after undo', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    b.call('connect', 3, 'ADC0');
    expect(b.call('history_size')).toBe(2);
    expect(b.call('history_position')).toBe(0);
    expect(b.call('history_label')).toBe('connect 3-ADC_0');
    expect(b.call('history_label', -1)).toBe('connect 1-2');
    expect(b.call('history_label', 1)).toBe('');
    expect(b.call('undo')).toBe(true);
    expect(b.call('history_position')).toBe(-1);
    expect(b.call('history_label', 1)).toBe('connect 3-ADC_0');
    expect(b.call('is_connected', 3, 'ADC0')).toBe(false);
    expect(b.call('redo')).toBe(true);
    expect(b.call('is_connected', 3, 'ADC0')).toBe(true);
    expect(b.call('history_jump', -2)).toBe(true);
    expect(b.call('get_num_bridges')).toBe(1);
    expect(b.call('undo')).toBe(false);
    expect(b.call('history_jump', 0)).toBe(true);
    expect(b.call('get_num_bridges')).toBe(3);
    // Positive targets cannot be reached: it redoes what it can, then fails.
    expect(b.call('history_jump', 1)).toBe(false);
    expect(b.call('redo')).toBe(false);
  });

  it('records neither duplicate-count updates nor the probe-power bridges, and drops undone steps', () => {
    const b = testBoard();
    b.call('connect', 1, 2);
    b.call('connect', 1, 2, 5);
    b.call('connect', 'DAC0', 'DAC1');
    b.call('disconnect', 'DAC0', 'DAC1');
    expect(b.call('history_size')).toBe(1);
    b.call('connect', 3, 4);
    b.call('undo');
    b.call('connect', 5, 6);
    expect(b.call('history_size')).toBe(2);
    expect(b.call('redo')).toBe(false);
    // A reverted disconnect comes back with the default count: the step does not keep it.
    b.call('disconnect', 2, 1);
    expect(b.call('history_label')).toBe('disconnect 1-2');
    b.call('undo');
    expect(b.call('get_bridge', 2)).toEqual([1, 2, 2]);
  });

  it('takes snapshots (the V5 has PSRAM), up to 16', () => {
    const b = testBoard();
    expect(b.call('history_snapshot')).toBe(true);
    expect(b.call('history_snapshot_count')).toBe(1);
    for (let i = 0; i < 20; i++) b.call('history_snapshot');
    expect(b.call('history_snapshot_count')).toBe(16);
    expect(b.call('history_size')).toBe(0);
  });
});
