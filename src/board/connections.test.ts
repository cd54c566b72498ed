import { describe, expect, it } from 'vitest';
import { parseColor } from './colors.js';
import { Connections, classifyNet, FORBIDDEN_PAIRS, isForbiddenPair } from './connections.js';
import { MAX_BRIDGES } from './limits.js';
import {
  ADC0,
  BOTTOM_RAIL,
  BUFFER_IN,
  BUFFER_OUT,
  DAC0,
  DAC1,
  GND,
  GPIO_1,
  GPIO_8,
  TOP_RAIL,
  UART_RX,
  UART_TX,
} from './nodes.js';

const userNets = (c: Connections) => c.nets().filter((n) => n.index >= 6);

describe('connect outcomes', () => {
  it('adds a routed bridge with stack_paths duplicates and makes net 6', () => {
    const c = new Connections();
    const out = c.connect(1, 5);
    expect(out).toEqual({ status: 'added', bridge: { node1: 1, node2: 5, duplicates: 2, net: 6 } });
    expect(c.getNumNets()).toBe(7);
    expect(c.netInfo(6)).toEqual({
      name: 'Net 6',
      number: 6,
      color: 0xff0080,
      color_name: 'pink',
      nodes: '1,5',
    });
  });

  it.each([
    [0, 5],
    [61, 5],
    [5, 142],
    [5, 118],
    [5, 69],
    [5, -1],
    // On the id ranges but on no V5 crossbar lane (FileParsing.cpp:2016-2070).
    [5, 84],
    [5, 103],
    [5, 104],
    [5, 105],
    [5, 115],
  ])('refuses invalid node %i-%i and stores nothing', (a, b) => {
    const c = new Connections();
    expect(c.connect(a, b)).toEqual({ status: 'refused', reason: 'invalid_node' });
    expect(c.bridgeCount).toBe(0);
  });

  it('refuses the same node twice', () => {
    expect(new Connections().connect(7, 7)).toEqual({ status: 'refused', reason: 'same_node' });
  });

  it('refuses every forbidden pair of §8.3, in both orders, and stores nothing', () => {
    const rails = [TOP_RAIL, BOTTOM_RAIL, DAC0, DAC1];
    const expected = [
      [GND, TOP_RAIL],
      [GND, BOTTOM_RAIL],
      [GND, DAC1],
      [TOP_RAIL, BOTTOM_RAIL],
      [TOP_RAIL, DAC0],
      [TOP_RAIL, DAC1],
      [BOTTOM_RAIL, DAC0],
      [BOTTOM_RAIL, DAC1],
      ...[GPIO_1, 132, 133, 134, 135, 136, 137, GPIO_8, UART_TX, UART_RX, BUFFER_OUT].flatMap((n) =>
        rails.map((r) => [n, r]),
      ),
    ] as [number, number][];
    expect(FORBIDDEN_PAIRS.length).toBe(expected.length);
    for (const [a, b] of expected) {
      const c = new Connections();
      expect(c.connect(a, b), `${a}-${b}`).toEqual({ status: 'refused', reason: 'forbidden_pair' });
      expect(c.connect(b, a), `${b}-${a}`).toEqual({ status: 'refused', reason: 'forbidden_pair' });
      expect(c.bridgeCount).toBe(0);
      expect(isForbiddenPair(a, b)).toBe(true);
    }
  });

  it('lets GND-DAC0 and DAC0-DAC1 past the pair check but leaves them unrouted', () => {
    const c = new Connections();
    expect(isForbiddenPair(GND, DAC0)).toBe(false);
    expect(isForbiddenPair(DAC0, DAC1)).toBe(false);
    const out = c.connect(DAC0, GND);
    expect(out).toEqual({
      status: 'unrouted',
      reason: 'special_nets',
      bridge: { node1: DAC0, node2: GND, duplicates: 2, net: -1 },
    });
    expect(c.isConnected(GND, DAC0)).toBe(true);
    expect(c.net(1)?.nodes).toEqual([GND]);
    expect(c.net(4)?.nodes).toEqual([DAC0]);
  });

  it('stores but does not route a bridge joining two special nets through rows', () => {
    const c = new Connections();
    expect(c.connect(5, TOP_RAIL).status).toBe('added');
    expect(c.connect(6, GND).status).toBe('added');
    const before = c.nets();
    const out = c.connect(5, 6);
    expect(out).toEqual({
      status: 'unrouted',
      reason: 'special_nets',
      bridge: { node1: 5, node2: 6, duplicates: 2, net: -1 },
    });
    expect(c.nets()).toEqual(before);
    expect(c.net(2)?.nodes).toEqual([TOP_RAIL, 5]);
    expect(c.net(1)?.nodes).toEqual([GND, 6]);
    expect(c.isConnected(6, 5)).toBe(true);
    expect(c.unroutedReason(5, 6)).toBe('special_nets');
    expect(c.bridges()[2]?.net).toBe(-1);
    expect(c.getNumNets()).toBe(6);
  });

  it('routes a stored bridge once the conflict goes away', () => {
    const c = new Connections();
    c.connect(5, TOP_RAIL);
    c.connect(6, GND);
    c.connect(5, 6);
    c.disconnect(6, GND);
    expect(c.bridge(1)).toEqual({ node1: 5, node2: 6, duplicates: 2, net: 2 });
    expect(c.net(2)?.nodes).toEqual([TOP_RAIL, 5, 6]);
  });

  it('refuses bridge 129 (MAX_BRIDGES = 128) but still updates existing ones', () => {
    const c = new Connections();
    let made = 0;
    for (let a = 1; a <= 60 && made < MAX_BRIDGES; a++) {
      for (let b = a + 1; b <= 60 && made < MAX_BRIDGES; b++) {
        expect(c.connect(a, b).status).not.toBe('refused');
        made++;
      }
    }
    expect(c.bridgeCount).toBe(128);
    expect(c.connect(70, 71)).toEqual({ status: 'refused', reason: 'full' });
    expect(c.bridgeCount).toBe(128);
    expect(c.connect(1, 2).status).toBe('updated');
  });
});

describe('duplicates (States.cpp:609-647)', () => {
  it('any negative count adds one to an existing bridge, with no upper limit', () => {
    const c = new Connections();
    c.connect(1, 2);
    expect(c.connect(2, 1)).toEqual({
      status: 'updated',
      previous: 2,
      bridge: { node1: 1, node2: 2, duplicates: 3, net: 6 },
    });
    for (let i = 0; i < 10; i++) c.connect(1, 2, -5);
    expect(c.bridge(0)?.duplicates).toBe(13);
    expect(c.bridgeCount).toBe(1);
  });

  it('a count >= 0 is stored as it is; a negative one gives a new bridge stack_paths', () => {
    const c = new Connections();
    expect(c.connect(1, 2, 5).status).toBe('added');
    expect(c.bridge(0)?.duplicates).toBe(5);
    c.connect(1, 2, 0);
    expect(c.bridge(0)?.duplicates).toBe(0);
    c.connect(1, 2, 42);
    expect(c.bridge(0)?.duplicates).toBe(42);
    c.connect(3, 4, -7);
    expect(c.bridge(1)?.duplicates).toBe(2);
  });

  it('uses the configured stack_paths for new bridges', () => {
    const c = new Connections({ stackPaths: 3 });
    c.connect(1, 2);
    expect(c.bridge(0)?.duplicates).toBe(3);
  });
});

describe('disconnect', () => {
  it('removes the exact bridge in either order; missing is a no-op', () => {
    const c = new Connections();
    c.connect(1, 2);
    c.connect(2, 3);
    expect(c.disconnect(2, 1)).toBe(1);
    expect(c.disconnect(1, 2)).toBe(0);
    expect(c.bridges().map((b) => [b.node1, b.node2])).toEqual([[2, 3]]);
  });

  it('n2 = -1 removes every bridge touching n1', () => {
    const c = new Connections();
    c.connect(1, 2);
    c.connect(3, 1);
    c.connect(4, 5);
    expect(c.disconnect(1, -1)).toBe(2);
    expect(c.bridges().map((b) => [b.node1, b.node2])).toEqual([[4, 5]]);
    expect(c.disconnectNode(4)).toBe(1);
    expect(c.bridgeCount).toBe(0);
  });

  it('isConnected is exact-bridge only', () => {
    const c = new Connections();
    c.connect(1, 2);
    c.connect(2, 3);
    expect(c.isConnected(3, 2)).toBe(true);
    expect(c.isConnected(1, 3)).toBe(false);
    expect(c.netOf(1)).toBe(c.netOf(3));
  });
});

describe('clear', () => {
  it('removes every bridge, the probe-power bridge BUFFER_IN-DAC0 too (States.cpp:720)', () => {
    const c = new Connections();
    c.connect(BUFFER_IN, DAC0, 0);
    c.connect(1, 2);
    c.connect(GND, 7);
    c.clear();
    expect(c.bridgeCount).toBe(0);
    expect(c.net(4)?.nodes).toEqual([DAC0]);
    expect(c.getNumNets()).toBe(6);
  });

  it('keeps custom names whose first node is still in a net (a special net), drops the others', () => {
    const c = new Connections();
    c.connect(1, 2);
    c.setNetName(1, 'ground');
    c.setNetName(6, 'pair');
    c.setNetName(40, 'spare');
    c.clear();
    expect(c.netName(1)).toBe('ground');
    expect(c.netName(6)).toBe(' ');
    expect(c.netName(40)).toBe('spare');
  });
});

describe('nets and numbering', () => {
  it('has the five special nets on a fresh board', () => {
    const c = new Connections();
    expect(c.getNumNets()).toBe(6);
    expect(c.nets().map((n) => [n.index, n.name, n.nodes])).toEqual([
      [1, 'GND', [GND]],
      [2, 'Top Rail', [TOP_RAIL]],
      [3, 'Bottom Rail', [BOTTOM_RAIL]],
      [4, 'DAC 0', [DAC0]],
      [5, 'DAC 1', [DAC1]],
    ]);
    expect(c.netInfo(0)).toBeUndefined();
    expect(c.netInfo(6)).toBeUndefined();
    // MatrixState.cpp:619-656: net 0 is "Empty Net", unused nets are named with one space.
    expect(c.netName(0)).toBe('Empty Net');
    expect(c.netName(59)).toBe(' ');
    expect(c.netName(60)).toBeUndefined();
    expect(c.netName(-1)).toBeUndefined();
  });

  it('numbers user nets by their earliest bridge and renumbers on merge and split', () => {
    const c = new Connections();
    c.connect(1, 2); // net 6
    c.connect(5, 6); // net 7
    c.connect(3, 4); // net 8
    expect(userNets(c).map((n) => n.nodes)).toEqual([
      [1, 2],
      [5, 6],
      [3, 4],
    ]);
    c.connect(3, 1); // merges {3,4} into {1,2}: {5,6} stays 7
    expect(userNets(c).map((n) => [n.index, n.nodes])).toEqual([
      [6, [1, 2, 3, 4]],
      [7, [5, 6]],
    ]);
    expect(c.getNumNets()).toBe(8);
    c.disconnect(1, 2); // earliest bridge gone: {3,4,1} now starts at bridge 2, after {5,6}
    expect(userNets(c).map((n) => [n.index, n.nodes])).toEqual([
      [6, [5, 6]],
      [7, [3, 4, 1]],
    ]);
    expect(c.netOf(2)).toBeUndefined();
    c.disconnect(3, 1); // split
    expect(userNets(c).map((n) => [n.index, n.nodes])).toEqual([
      [6, [5, 6]],
      [7, [3, 4]],
    ]);
    expect(c.bridges().map((b) => b.net)).toEqual([6, 7]);
  });

  it('joins user nets into special nets and lists the special node first', () => {
    const c = new Connections();
    c.connect(21, 22);
    c.connect(22, GND);
    expect(c.net(1)?.nodes).toEqual([GND, 21, 22]);
    expect(c.getNumNets()).toBe(6);
    expect(c.netInfo(1)?.nodes).toBe('GND,21,22');
    expect(c.bridges().map((b) => b.net)).toEqual([1, 1]);
  });

  it('classifies nets per §7 (last special node wins)', () => {
    expect(classifyNet([1, 5, GPIO_1])).toEqual({ special: 'GPIO', channel: 0 });
    expect(classifyNet([GND, 21])).toEqual({ special: 'none', channel: undefined });
    expect(classifyNet([TOP_RAIL, 23])).toEqual({ special: 'RAIL', channel: 2 });
    expect(classifyNet([DAC0, BUFFER_IN])).toEqual({ special: 'DAC', channel: 0 });
    expect(classifyNet([TOP_RAIL, 5, ADC0])).toEqual({ special: 'ADC', channel: 0 });
    expect(classifyNet([115])).toEqual({ special: 'ADC', channel: 7 });
    expect(classifyNet([UART_TX])).toEqual({ special: 'UART_TX', channel: 8 });
    expect(classifyNet([160])).toEqual({ special: 'FAKE_GPIO_IN', channel: 2 });
  });

  it('caps a net at 40 nodes: the bridge that would exceed it stays unrouted', () => {
    const c = new Connections();
    for (let r = 2; r <= 40; r++) c.connect(1, r);
    expect(c.net(6)?.nodes.length).toBe(40);
    expect(c.connect(1, 41)).toMatchObject({ status: 'unrouted', reason: 'net_too_big' });
  });

  it('caps user nets at 54 (MAX_NETS 60 minus index 0 and the specials)', () => {
    const c = new Connections();
    const pairs: [number, number][] = [];
    for (let r = 1; r < 60; r += 2) pairs.push([r, r + 1]); // 30 nets
    for (let d = 70; d < 92; d += 2) if (d !== 84) pairs.push([d, d + 1]); // 10 more (84 is not routable)
    pairs.push([116, 117]);
    pairs.push([92, 93], [110, 111], [112, 113], [108, 109], [131, 132], [133, 134], [135, 136]);
    pairs.push([137, 138], [150, 151], [152, 153], [154, 155], [156, 157], [158, 159], [160, 161]);
    for (const [a, b] of pairs) c.connect(a, b);
    expect(userNets(c).length).toBe(54);
    expect(c.getNumNets()).toBe(60);
    expect(c.bridge(54)?.net).toBe(-1);
    expect(c.unroutedReason(160, 161)).toBe('too_many_nets');
  });
});

describe('net names and colours', () => {
  it('follows a custom name and colour through renumbering, and drops them when the net goes', () => {
    const c = new Connections();
    c.connect(1, 2);
    c.connect(5, 6);
    const red = parseColor('red');
    if (!red.ok) throw new Error(red.error);
    expect(c.setNetName(7, 'clock')).toBe(true);
    expect(c.setNetColor(7, red.color)).toBe(true);
    c.disconnect(1, 2);
    expect(c.netInfo(6)).toEqual({
      name: 'clock',
      number: 6,
      color: 0xff0000,
      color_name: 'red',
      nodes: '5,6',
    });
    expect(c.netName(6)).toBe('clock');
    c.disconnect(5, 6);
    c.connect(5, 6);
    expect(c.netName(6)).toBe('Net 6');
  });

  it('stores a name for a net that does not exist, by number, until a net takes that number', () => {
    const c = new Connections();
    expect(c.setNetName(6, 'later')).toBe(true);
    expect(c.netName(6)).toBe('later');
    c.connect(1, 2);
    // The entry gets the new net's first node and now follows it.
    expect(c.netName(6)).toBe('later');
    c.connect(3, 4);
    c.disconnect(1, 2);
    // Its first node left every net, so the name went with it; {3,4} is net 6 now.
    expect(c.netName(6)).toBe('Net 6');
    expect(c.netName(7)).toBe(' ');
    expect(c.setNetName(60, 'x')).toBe(false);
    expect(c.setNetName(-1, 'x')).toBe(false);
  });

  it('cuts names to 31 characters and resets with null or an empty name', () => {
    const c = new Connections();
    expect(c.setNetName(1, 'Ground')).toBe(true);
    expect(c.net(1)?.name).toBe('Ground');
    c.setNetName(1, null);
    expect(c.net(1)?.name).toBe('GND');
    c.setNetName(1, 'x'.repeat(40));
    expect(c.netName(1)).toBe('x'.repeat(31));
    c.setNetName(1, '');
    expect(c.netName(1)).toBe('GND');
  });

  it('keeps a colour by number on an unused net', () => {
    const c = new Connections();
    expect(c.setNetColor(30, { rgb: 0x123456, name: 'x' })).toBe(true);
    expect(c.customColor(30)).toEqual({ rgb: 0x123456, name: 'x' });
    c.setNetColor(30, null);
    expect(c.customColor(30)).toBeUndefined();
  });

  it('clone is independent', () => {
    const c = new Connections();
    c.connect(1, 2);
    const d = c.clone();
    d.connect(3, 4);
    expect(c.bridgeCount).toBe(1);
    expect(d.bridgeCount).toBe(2);
    expect(d.nets()).toHaveLength(7);
  });
});
