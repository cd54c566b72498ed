import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { interceptBoard } from '../../test/support/interceptBoard.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { isBridgeable, resolveNode } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import type { AnyTool } from '../core/toolDefinition.js';
import type { Board } from '../device/board.js';
import { bridgesList, connect, disconnect, netCheck, netSet, netsList, nodesClear } from './connections.js';
import { routeOf } from './snapshot.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.python('nodes_clear()');
});

/** The board client with every expression it sends written down. */
function recording(board: Board): { board: Board; sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    board: interceptBoard(board, {
      call: (expression, options, inner) => {
        sent.push(expression);
        return inner.call(expression, options);
      },
      script: (code, options, inner) => {
        sent.push(code);
        return inner.script(code, options);
      },
    }),
  };
}

/** Runs statements on the board behind the tools' back. */
const setup = (code: string) => h.session.exec(code);
/** Makes the simulated router fail (or work again) on one pair, as a full crossbar would. */
const routeFail = (a: number, b: number, on: boolean) =>
  setup(`import _fw\n_fw.call('_sim_route_fail', '[${a}, ${b}, ${on ? 'true' : 'false'}]')`);
const bridgeList = () => h.python<number[][]>('[list(get_bridge(i)) for i in range(get_num_bridges())]');

describe('connect', () => {
  it('connects 15 pairs in one board job, and 15 single calls in 15, once it has seen the board', async () => {
    await h.run(connect, { pairs: [[1, 2]] }); // the first connect of a session reads first
    const jobs = () => h.session.health().jobs.done;
    let before = jobs();
    // 15 nets from the top half to the bottom: the crossbar has lanes for them (about 18 fit).
    const pairs = Array.from({ length: 15 }, (_, i) => [i + 3, i + 33] as [number, number]);
    const { result } = await h.run(connect, { pairs });
    expect(result).toMatchObject({ added: 15 });
    expect(jobs() - before).toBe(1);
    before = jobs();
    for (let i = 0; i < 15; i++) await h.run(connect, { pairs: [[i + 3, i + 34]] });
    expect(jobs() - before).toBe(15);
    expect(await h.python('get_num_bridges()')).toBe(31);
  });

  it('plans again when the bridges changed behind its back, and still refuses the short it would make', async () => {
    await h.run(connect, { pairs: [[5, 'TOP_RAIL']] });
    // Behind the tool's back: row 6 goes to GND, so 5-6 now joins TOP_RAIL and GND.
    await setup('connect(6, GND)');
    await expect(h.run(connect, { pairs: [[5, 6]] })).rejects.toMatchObject({ code: 'unsafe_short' });
    expect(await h.python('bool(is_connected(5, 6))')).toBe(false);
  });

  it('a call with a short in it applies nothing: an error names the pair, the supplies and volts, the physics and the safe way', async () => {
    await setup('dac_set(TOP_RAIL, 5.0)');
    const rec = recording(h.client);
    const before = await bridgeList();
    const error = await h
      .run(
        connect,
        {
          pairs: [
            [50, 'TOP_RAIL'],
            [50, 'GND'],
          ],
        },
        { board: rec.board },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    const { code, message, options } = error as ToolError;
    expect(code).toBe('unsafe_short');
    expect(message).toMatch(/nothing was changed/);
    expect(message).toMatch(/50-GND would join TOP_RAIL \(5 V\) and GND \(0 V\)/);
    expect(message).toMatch(/short circuit/);
    expect(message).toMatch(/crosspoints overheat/);
    expect(message).toMatch(/bridge one row to TOP_RAIL and another to GND/);
    expect(message).not.toMatch(/spec §8\.3|firmware forbids/);
    expect(options.details).toEqual({
      refused: [
        {
          request: '50-GND',
          joins: [
            { source: 'TOP_RAIL', volts: 5 },
            { source: 'GND', volts: 0 },
          ],
        },
      ],
    });
    // Not even the safe first pair went out.
    expect(rec.sent.filter((x) => x.includes('conn_connect')).at(-1)).toMatch(/, \[\]\)$/);
    expect(await bridgeList()).toEqual(before);
    // The rendered result is a tool error a client sees as such.
    const rendered = await h.run(connect, { pairs: [['TOP_RAIL', 'GND']] }).catch((e: unknown) => e);
    expect((rendered as ToolError).code).toBe('unsafe_short');
  });

  it('a fixed 5 V node, which has no crossbar lane, is refused with the way to 5 V: a rail (issue 20)', async () => {
    await expect(h.run(connect, { pairs: [['5V', 50]] })).rejects.toMatchObject({
      code: 'invalid_node',
      message: expect.stringMatching(
        /For 5 V, set a rail to it \(dac_set channel TOP_RAIL\) and connect to TOP_RAIL/,
      ),
    });
    expect((await h.run(connect, { pairs: [['3V3', 50]] }).catch((e) => e)).message).toMatch(/For 3.3 V/);
  });

  it('net_check gives a lone supply its fixed net and says why a net is null (issue 20)', async () => {
    await setup('nodes_clear()');
    const { result } = await h.run(netCheck, { a: 'TOP_RAIL', b: 50 });
    expect(result).toMatchObject({
      a_net: 2,
      b_net: null,
      nets_note: expect.stringMatching(/50 is on no net/),
    });
  });

  it('adds pairs in order and reports the net each joined', async () => {
    const { result } = await h.run(connect, {
      pairs: [
        ['TOP_RAIL', 10],
        ['10', '20'],
      ],
    });
    expect(result).toMatchObject({
      added: 2,
      unrouted: 0,
      unverified: 0,
      results: [
        { nodes: ['TOP_RAIL', '10'], status: 'added', net: 2 },
        { nodes: ['10', '20'], status: 'added', net: 2 },
      ],
    });
    expect(await h.python('bool(is_connected(10, 20))')).toBe(true);
  });

  it('reports a bridge that is already there and does not add a duplicate path', async () => {
    await h.python('connect(3, 4)');
    const { result } = await h.run(connect, { pairs: [[4, 3]] });
    expect(result).toMatchObject({ added: 0, results: [{ status: 'already_connected', net: 6 }] });
    expect(await bridgeList()).toContainEqual([3, 4, 2]);
  });

  it('refuses a short between supplies in code and sends no connect', async () => {
    const rec = recording(h.client);
    const before = await bridgeList();
    await expect(
      h.run(connect, { pairs: [['TOP_RAIL', 'GND']] }, { board: rec.board }),
    ).rejects.toMatchObject({ code: 'unsafe_short', message: expect.stringMatching(/short circuit/) });
    // Each connect job sent had no pairs in it.
    const jobs = rec.sent.filter((s) => s.includes('conn_connect'));
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.every((s) => s.endsWith(', [])'))).toBe(true);
    expect(await bridgeList()).toEqual(before);
  });

  it('names every refused pair of a call (supplies through rows, GPIO onto a rail) and applies none of the safe ones', async () => {
    await setup('dac_set(TOP_RAIL, 0.0); connect(5, TOP_RAIL); connect(6, GND)');
    const before = await bridgeList();
    const rec = recording(h.client);
    const error = (await h
      .run(
        connect,
        {
          pairs: [
            [5, 6],
            [7, 8],
            ['GPIO_1', 9],
            [9, 5],
          ],
        },
        { board: rec.board },
      )
      .catch((e: unknown) => e)) as ToolError;
    expect(error.code).toBe('unsafe_short');
    expect(error.message).toMatch(/5-6 would join TOP_RAIL \(0 V\) and GND \(0 V\)/);
    expect(error.message).toMatch(/Equal setpoints do not make it safe/);
    // GPIO_1 on row 9 (earlier in the call), then row 9 onto the top rail's net.
    expect(error.message).toMatch(/9-5 would join GPIO_1 and TOP_RAIL/);
    expect(error.message).toMatch(/burns its driver/);
    expect(await bridgeList()).toEqual(before);
    // A job planned on an older view may carry pairs (the board refuses it); the one that counts carries none.
    expect(rec.sent.filter((s) => s.includes('conn_connect')).at(-1)).toMatch(/, \[\]\)$/);
  });

  it('reports a bridge the firmware stores but leaves unrouted (net over 40 nodes)', async () => {
    const chain = Array.from({ length: 40 }, (_, i) => [i + 1, i + 2]);
    const { result } = await h.run(connect, { pairs: chain });
    const results = (result as { results: Array<{ status: string; reason?: string }> }).results;
    expect(results.slice(0, 39).every((r) => r.status === 'added')).toBe(true);
    expect(results[39]).toMatchObject({ status: 'unrouted' });
    expect(results[39]?.reason).toMatch(/40 nodes/);
    expect(result).toMatchObject({ added: 39, unrouted: 1 });
    expect(await h.python('bool(is_connected(40, 41))')).toBe(true);
    const list = await h.run(bridgesList);
    expect(list.result).toMatchObject({ count: 40, routed: 39, unrouted: 1 });
  });

  it('reports the same pair twice in one call once, the second as already_connected', async () => {
    const { result } = await h.run(connect, {
      pairs: [
        [1, 2],
        [2, 1],
      ],
    });
    expect(result).toMatchObject({
      added: 1,
      results: [
        { status: 'added', net: 6 },
        { status: 'already_connected', net: 6 },
      ],
    });
    expect(await bridgeList()).toEqual([[1, 2, 2]]);
  });

  it('refuses a call that would overfill the bridge table (128) without applying anything', async () => {
    await setup(
      'for r in range(1, 60): connect(r, r + 1)\nfor r in range(1, 59): connect(r, r + 2)\nfor r in range(1, 12): connect(r, r + 3)',
    );
    expect(await h.python('get_num_bridges()')).toBe(128);
    const rec = recording(h.client);
    await expect(
      h.run(
        connect,
        {
          pairs: [
            [50, 55],
            [1, 2],
          ],
        },
        { board: rec.board },
      ),
    ).rejects.toMatchObject({ code: 'table_full', message: expect.stringMatching(/Nothing was connected/) });
    expect(rec.sent.filter((s) => s.includes('conn_connect')).at(-1)).toMatch(/, \[\]\)$/);
    expect(await h.python('get_num_bridges()')).toBe(128);
  });

  it('calls a bridge whose path found no crossbar lanes crossbar_full, though it keeps its net', async () => {
    // Forced here on an empty board (crossbarFull.test.ts fills the lanes for real); the path keeps
    // lanes of -1, as the firmware leaves them (NetsToChipConnections.cpp:4478-4541).
    await routeFail(7, 8, true);
    try {
      const { result } = await h.run(connect, { pairs: [[7, 8]] });
      expect(result).toMatchObject({
        added: 0,
        unrouted: 1,
        results: [{ status: 'crossbar_full', net: 6 }],
      });
      expect((result as { results: Array<{ reason: string }> }).results[0]?.reason).toMatch(/crossbar/);
      expect((await h.run(bridgesList)).result).toMatchObject({
        routed: 0,
        unrouted: 1,
        bridges: [{ node1: '7', node2: '8', net: 6, routed: false, route: 'no_free_lanes' }],
      });
      expect((await h.run(netCheck, { a: 8, b: 7 })).result).toMatchObject({
        bridged: true,
        routed: false,
        route: 'no_free_lanes',
        net: 6,
      });
      await h.python('connect(8, 9)');
      expect((await h.run(netCheck, { a: 7, b: 9 })).result).toMatchObject({
        same_net: true,
        unrouted_bridges: 1,
      });
      const again = await h.run(connect, { pairs: [[8, 7]] });
      expect(again.result).toMatchObject({ results: [{ status: 'already_connected', net: 6 }] });
    } finally {
      await routeFail(7, 8, false);
    }
  });

  it('does not take a net number for "routed": the same pair reads routed once lanes are free', async () => {
    await routeFail(7, 8, true);
    await h.python('connect(7, 8)');
    await routeFail(7, 8, false);
    expect((await h.run(netCheck, { a: 7, b: 8 })).result).toMatchObject({
      routed: true,
      route: 'routed',
    });
  });

  it('lists a bridge between two supply nets made behind its back as unrouted', async () => {
    await setup('connect(5, TOP_RAIL); connect(6, GND); connect(5, 6)');
    const again = await h.run(connect, { pairs: [[6, 5]] });
    expect(again.result).toMatchObject({
      results: [{ status: 'already_connected', reason: expect.stringMatching(/not routed/) }],
    });
    const { result } = await h.run(bridgesList);
    expect(result).toMatchObject({ unrouted: 1 });
    expect((result as { bridges: unknown[] }).bridges).toContainEqual({
      node1: '5',
      node2: '6',
      extra_parallel_paths: 2,
      net: null,
      routed: false,
      route: 'not_in_a_net',
    });
  });

  it('reads a direct supply-to-supply bridge the firmware allows (GND-DAC0) as stored in no net', async () => {
    await setup('connect(DAC0, GND)');
    expect((await h.run(netCheck, { a: 'GND', b: 'DAC0' })).result).toMatchObject({
      bridged: true,
      routed: false,
      route: 'not_in_a_net',
      net: null,
    });
  });

  it('refuses unknown and unroutable nodes before touching the board', async () => {
    const rec = recording(h.client);
    for (const bad of [
      ['NOPE', 1],
      [0, 1],
      [61, 2],
      ['NANO_VIN', 3],
      [5, 5],
      ['LOGO_PAD_TOP', 1],
      // Not on the V5 crossbar: NANO_RESET, the 3V3 supply, the probe's ADC7.
      ['NANO_RESET', 1],
      ['3V3', 1],
      ['PROBE', 1],
      [84, 1],
    ]) {
      await expect(h.run(connect, { pairs: [bad] }, { board: rec.board })).rejects.toMatchObject({
        code: 'invalid_node',
      });
    }
    expect(rec.sent).toEqual([]);
  });
});

describe('telling a routed bridge from a stored one', () => {
  it('reads the path lanes on the board as couldntFindPath does (hops 0-1, hop 2 when it has a chip)', async () => {
    const path = (chips: number[], x: number[], y: number[]) =>
      `_jlt.path_routed({'net': 6, 'chips': ${JSON.stringify(chips)}, 'x': ${JSON.stringify(x)}, 'y': ${JSON.stringify(y)}})`;
    const none = [-1, -1, -1, -1];
    expect(await h.python(path([6, 6, -1, -1], [3, 3, ...none], [6, 7, ...none]))).toBe(true);
    expect(await h.python(path([6, 6, -1, -1], [-1, -1, ...none], [6, 7, ...none]))).toBe(false);
    expect(await h.python(path([6, 6, -1, -1], [3, 3, ...none], [6, -1, ...none]))).toBe(false);
    expect(await h.python(path([0, 8, 10, -1], [2, 4, 7, -1, -1, -1], [1, 0, 0, -1, -1, -1]))).toBe(true);
    expect(await h.python(path([0, 8, 10, -1], [2, 4, -1, -1, -1, -1], [1, 0, 0, -1, -1, -1]))).toBe(false);
    // A fourth hop is not part of the firmware's test.
    expect(await h.python(path([0, 8, 10, 11], [2, 4, 7, -1, -1, -1], [1, 0, 0, -1, -1, -1]))).toBe(true);
  });

  it('maps [net, placed] to a route state; a fake-GPIO bridge without a path cannot be told', () => {
    expect(routeOf(5, 6, 7, 1)).toBe('routed');
    expect(routeOf(5, 6, 7, -1)).toBe('no_free_lanes');
    expect(routeOf(5, 6, 0, 0)).toBe('not_in_a_net');
    expect(routeOf(150, 6, 0, 0)).toBe('unknown');
    expect(routeOf(5, 181, 0, 0)).toBe('unknown');
  });
});

describe('disconnect and clear', () => {
  it('removes exact pairs and every bridge of a node, and says what was not there', async () => {
    await setup('connect(1, 2); connect(2, 3); connect(10, 11); connect(10, 12)');
    const { result } = await h.run(disconnect, {
      pairs: [
        [2, 1],
        [20, 21],
      ],
      nodes: [10],
    });
    expect(result).toMatchObject({ not_found: [['20', '21']] });
    const removed = (result as { removed: Array<{ node1: string; node2: string }> }).removed;
    expect(removed.map((b) => `${b.node1}-${b.node2}`).sort()).toEqual(['1-2', '10-11', '10-12']);
    expect(await bridgeList()).toContainEqual([2, 3, 2]);
    await expect(h.run(disconnect, {})).rejects.toBeInstanceOf(ToolError);
  });

  it('clears everything and puts the probe power bridge back with its count', async () => {
    await setup('connect(BUF_IN, DAC0, 0); connect(1, 2); connect(TOP_RAIL, 3)');
    const { result } = await h.run(nodesClear);
    expect(result).toMatchObject({ removed: 2, probe_power_restored: true });
    expect((result as { remaining: Array<{ node1: string; node2: string }> }).remaining).toEqual([
      expect.objectContaining({
        node1: 'BUFFER_IN',
        node2: 'DAC0',
        extra_parallel_paths: 0,
        route: 'routed',
      }),
    ]);
    // One Clear All step in the firmware history; putting probe power back is none.
    expect(await h.python('history_label(0)')).toBe('Clear All');
  });

  it('clears the probe power bridge too when asked (as the firmware nodes_clear does)', async () => {
    await setup('connect(BUF_IN, DAC0, 0); connect(1, 2)');
    const { result } = await h.run(nodesClear, { keep_probe_power: false });
    expect(result).toMatchObject({ removed: 2, probe_power_restored: false, remaining: [] });
    expect(result.autosave).toMatch(/^Slot 0 \(the active slot\)/);
  });

  it('says when a disconnect took the probe power bridge', async () => {
    await setup('connect(BUF_IN, DAC0, 0); connect(DAC0, 5)');
    const { result } = await h.run(disconnect, { nodes: ['DAC0'] });
    expect(result).toMatchObject({ probe_power_removed: true, remaining: 0 });
  });
});

describe('net_check answers both questions: a direct bridge, and one net', () => {
  it('a chain 10-20-30: 10 and 30 share a net but no bridge joins them', async () => {
    await setup('connect(10, 20); connect(20, 30)');
    expect((await h.run(netCheck, { a: 10, b: 20 })).result).toMatchObject({
      bridged: true,
      routed: true,
      route: 'routed',
      net: 6,
    });
    expect((await h.run(netCheck, { a: 10, b: 30 })).result).toMatchObject({ bridged: false });
    expect((await h.run(netCheck, { a: 10, b: 30 })).result).toMatchObject({
      same_net: true,
      a_net: 6,
      b_net: 6,
      net_name: 'Net 6',
      unrouted_bridges: 0,
    });
    expect((await h.run(netCheck, { a: 10, b: 40 })).result).toMatchObject({ same_net: false, b_net: null });
  });

  it('an unrouted bridge is bridged but not routed, and joins no nets', async () => {
    await setup('connect(5, TOP_RAIL); connect(6, GND); connect(5, 6)');
    expect((await h.run(netCheck, { a: 5, b: 6 })).result).toMatchObject({
      bridged: true,
      routed: false,
      route: 'not_in_a_net',
    });
    expect((await h.run(netCheck, { a: 5, b: 6 })).result).toMatchObject({
      same_net: false,
      a_net: 2,
      b_net: 1,
    });
  });
});

describe('nets', () => {
  it('lists nets with names, colours and supply voltages', async () => {
    // GND with a member: 5.7.11's get_state leaves out nets of fewer than two nodes (JsonState.cpp).
    await setup('dac_set(TOP_RAIL, 5.0); connect(TOP_RAIL, 12); connect(13, 14); connect(15, GND)');
    const { result } = await h.run(netsList);
    const nets = (result as { nets: Array<Record<string, unknown>> }).nets;
    expect(nets.find((n) => n.index === 2)).toMatchObject({
      index: 2,
      name: 'Top Rail',
      nodes: ['TOP_R', '12'],
      special: 'RAIL',
      volts: 5,
    });
    expect(nets[0]).toMatchObject({ index: 1, name: 'GND', color: expect.stringMatching(/^#[0-9a-f]{6}$/) });
    expect(nets.find((n) => n.index === 6)).toMatchObject({
      name: 'Net 6',
      nodes: ['13', '14'],
      unrouted_bridges: 0,
    });
    await h.python('dac_set(TOP_RAIL, 0.0)');
  });

  it('names and colours a net picked by a member node or by index, and reads them back', async () => {
    await h.python('connect(13, 14)');
    const named = await h.run(netSet, { node: 14, name: 'LED anode' });
    expect(named.result).toEqual({ net: 6, name: 'LED anode', previous_name: 'Net 6' });
    const colored = await h.run(netSet, { net: 6, color: '#00ff00' });
    expect(colored.result).toMatchObject({ net: 6, color: '#00ff00', color_name: 'green' });
    expect(await h.python('[get_net_name(6), get_net_color(6)]')).toEqual(['LED anode', 0x00ff00]);
    const reset = await h.run(netSet, { net: 6, name: '' });
    expect(reset.result).toMatchObject({ name: 'Net 6' });
  });

  it('names and colours a net in one call, and wants at least one of the two', async () => {
    await h.python('connect(13, 14)');
    const both = await h.run(netSet, { node: 13, name: 'bus', color: '#0000ff' });
    expect(both.result).toMatchObject({ net: 6, name: 'bus', previous_name: 'Net 6', color: '#0000ff' });
    expect(await h.python('[get_net_name(6), get_net_color(6)]')).toEqual(['bus', 0x0000ff]);
    expect(netSet.input.safeParse({ net: 6 }).success).toBe(false);
    // A bad colour is refused before the name is touched.
    await expect(h.run(netSet, { net: 6, name: 'other', color: 'mauve' })).rejects.toMatchObject({
      code: 'invalid_color',
    });
    expect(await h.python('get_net_name(6)')).toBe('bus');
  });

  it('sends a colour name as text (the board dims it) and #rrggbb as an exact value', async () => {
    await h.python('connect(13, 14)');
    const rec = recording(h.client);
    const named = await h.run(netSet, { net: 6, color: 'Red' }, { board: rec.board });
    expect(named.result).toMatchObject({ net: 6, color: '#200000', color_name: 'red' });
    expect(rec.sent).toContain("_jlt.conn_net_color(6, 'red')");
    const exact = await h.run(netSet, { net: 6, color: '#123456' }, { board: rec.board });
    expect(exact.result).toMatchObject({ color: '#123456', color_name: 'blue' });
    expect(rec.sent).toContain('_jlt.conn_net_color(6, 1193046)');
  });

  it('refuses net names that would break get_state or read back differently', async () => {
    await h.python('connect(13, 14)');
    for (const name of [
      'back\\slash',
      'a"quote',
      ' lead',
      'trail ',
      'tab\there',
      'x'.repeat(32),
      'caf\u00e9',
    ]) {
      expect(netSet.input.safeParse({ net: 6, name }).success, name).toBe(false);
    }
    expect(netSet.input.safeParse({ net: 6, name: 'x'.repeat(31) }).success).toBe(true);
    expect(netSet.input.safeParse({ net: 6, name: "it's {ok} [1]" }).success).toBe(true);
  });

  it('refuses a missing net, a node in no net, both or neither target, and bad colours', async () => {
    await expect(h.run(netSet, { net: 30, name: 'x' })).rejects.toMatchObject({ code: 'no_net' });
    await expect(h.run(netSet, { node: 44, name: 'x' })).rejects.toMatchObject({ code: 'no_net' });
    await expect(h.run(netSet, { name: 'x' })).rejects.toMatchObject({ code: 'invalid_arguments' });
    await expect(h.run(netSet, { net: 1, node: 1, name: 'x' })).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
    for (const color of ['ultraviolet', 'teal', 'ff0000', '#12345']) {
      await expect(h.run(netSet, { net: 1, color })).rejects.toMatchObject({ code: 'invalid_color' });
    }
  });
});

describe('hostile strings', () => {
  /** Each string is refused by the schema or a ToolError, or works literally; none runs as code. */
  async function outcome(tool: AnyTool, args: unknown): Promise<'refused' | 'ok'> {
    if (!tool.input.safeParse(args).success) return 'refused';
    try {
      await h.run(tool, args);
      return 'ok';
    } catch (error) {
      expect(error).toBeInstanceOf(ToolError);
      return 'refused';
    }
  }

  it('node arguments: every hostile string is refused without reaching the board, or names a node', async () => {
    const strings = hostileStrings();
    expect(strings.length).toBeGreaterThan(200);
    let refused = 0;
    for (const s of strings) {
      const id = resolveNode(s);
      const valid = id !== undefined && isBridgeable(id);
      for (const [tool, args] of [
        [connect, { pairs: [[s, 1]] }],
        [connect, { pairs: [[2, s]] }],
        [disconnect, { nodes: [s] }],
        [netCheck, { a: s, b: 1 }],
        [netCheck, { a: 1, b: s }],
        [netSet, { node: s, name: 'x' }],
      ] as const) {
        const parsed = tool.input.safeParse(args);
        if (!parsed.success) {
          refused++;
          continue;
        }
        const rec = recording(h.client);
        const run = tool.handle(parsed.data as never, {
          ...ctx(),
          board: rec.board,
          leaseHolder: 'test',
          notes: { readings: [] },
          attachImage: () => {},
        });
        if (valid) {
          // A string that names a node (e.g. '1', ' 1', '-1' is not one) works literally.
          await run.catch((error: unknown) => expect(error).toBeInstanceOf(ToolError));
        } else {
          await expect(run).rejects.toMatchObject({ code: 'invalid_node' });
          expect(rec.sent).toEqual([]);
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(1000);
    await h.python('nodes_clear()');
  });

  it('net names and colours: refused, or stored and read back literally', async () => {
    await h.python('connect(13, 14)');
    let stored = 0;
    for (const s of hostileStrings()) {
      if ((await outcome(netSet, { net: 6, name: s })) === 'ok') {
        stored++;
        expect(await h.python('get_net_name(6)')).toBe(s === '' ? 'Net 6' : s);
      }
      const color = await outcome(netSet, { net: 6, color: s });
      if (color === 'ok') expect(await h.python('get_net_color(6)')).not.toBeNull();
    }
    expect(stored).toBeGreaterThan(30);
    // Nothing ran: the wiring is exactly what the test made.
    expect(await bridgeList()).toEqual([[13, 14, 2]]);
  });
});

function ctx() {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    progress: () => {},
    attach: () => {},
    caller: 'test',
    safety: { maxVolts: 8, minVolts: -8 },
  };
}
