/**
 * The bridge list and the nets it makes (spec §6.3, §6.9, §8.2-§8.3).
 *
 * Nets are recomputed from scratch after every change, as the firmware does on each refresh: bridges
 * are taken in list order and joined by union-find. A bridge that would join two of the five special
 * nets (GND, Top Rail, Bottom Rail, DAC 0, DAC 1) stays stored but unrouted (`net = -1`), so whether a
 * bridge is routed can depend on the bridges before it. Each special net's do-not-intersect list is
 * exactly the other four special nodes [F `MatrixState.cpp`], so "never merge two special nets" covers it.
 *
 * Numbering (our documented choice): nets 1-5 are the specials; user nets are numbered from 6 in the
 * order of their earliest routed bridge in the list. A net's nodes are listed in order of first
 * appearance over routed bridges (node1 before node2), after the special node for nets 1-5.
 */
import { type Color, namedColor, SPECIAL_NET_COLORS, USER_NET_PALETTE } from './colors.js';
import { DEFAULT_STACK_PATHS, MAX_BRIDGES, MAX_DUPLICATE, MAX_NETS, MAX_NODES_PER_NET } from './limits.js';
import {
  ADC0,
  ADC4,
  ADC7,
  BOTTOM_RAIL,
  BUFFER_IN,
  BUFFER_OUT,
  DAC0,
  DAC1,
  FAKE_GP_IN_0,
  GND,
  GPIO_1,
  GPIO_8,
  isBridgeable,
  SPECIAL_NET_NODES,
  shortName,
  TOP_RAIL,
  UART_RX,
  UART_TX,
} from './nodes.js';

export interface Bridge {
  readonly node1: number;
  readonly node2: number;
  readonly duplicates: number;
  /** Net index, or -1 when the bridge is stored but not routed. */
  readonly net: number;
}

/** §7 `special`. */
export type NetSpecial = 'none' | 'RAIL' | 'DAC' | 'ADC' | 'GPIO' | 'UART_TX' | 'UART_RX' | 'FAKE_GPIO_IN';

export interface Net {
  readonly index: number;
  readonly name: string;
  readonly nodes: readonly number[];
  readonly special: NetSpecial;
  /**
   * Which channel `special` refers to: ADC 0-4/7, GPIO pin index 0-7, UART 8 (TX) / 9 (RX), fake input
   * 0-23, DAC 0/1, RAIL 2 (top) / 3 (bottom): the `dac_set` channel numbers.
   */
  readonly channel: number | undefined;
  readonly color: number;
  readonly colorName: string;
}

/** The shape of `get_net_info(n)` (§6.9). */
export interface NetInfo {
  readonly name: string;
  readonly number: number;
  readonly color: number;
  readonly color_name: string;
  /** Comma list of short names, e.g. `GND,21,TOP_R`. */
  readonly nodes: string;
}

export type RefusedReason = 'invalid_node' | 'same_node' | 'forbidden_pair' | 'full';
export type UnroutedReason = 'special_nets' | 'net_too_big' | 'too_many_nets';

/** What `connect` did. The firmware is silent about all of these; the tools need to know. */
export type ConnectOutcome =
  | { readonly status: 'added'; readonly bridge: Bridge }
  | { readonly status: 'unrouted'; readonly bridge: Bridge; readonly reason: UnroutedReason }
  | { readonly status: 'updated'; readonly bridge: Bridge; readonly previous: number }
  | { readonly status: 'refused'; readonly reason: RefusedReason };

export const SPECIAL_NET_NAMES: readonly string[] = ['GND', 'Top Rail', 'Bottom Rail', 'DAC 0', 'DAC 1'];

const RAILS_AND_DACS = [TOP_RAIL, BOTTOM_RAIL, DAC0, DAC1];
const pairKey = (a: number, b: number): string => (a < b ? `${a}-${b}` : `${b}-${a}`);

/** §8.3 pair check: `connect` refuses these and stores nothing. GND-DAC0 and DAC0-DAC1 pass. */
const FORBIDDEN = new Set<string>([
  pairKey(GND, TOP_RAIL),
  pairKey(GND, BOTTOM_RAIL),
  pairKey(GND, DAC1),
  pairKey(TOP_RAIL, BOTTOM_RAIL),
  ...[TOP_RAIL, BOTTOM_RAIL].flatMap((r) => [pairKey(r, DAC0), pairKey(r, DAC1)]),
  ...[...Array.from({ length: 8 }, (_, i) => GPIO_1 + i), UART_TX, UART_RX, BUFFER_OUT].flatMap((n) =>
    RAILS_AND_DACS.map((r) => pairKey(n, r)),
  ),
]);

export const isForbiddenPair = (a: number, b: number): boolean => FORBIDDEN.has(pairKey(a, b));

/** Every forbidden pair, for tests and tool descriptions. */
export const FORBIDDEN_PAIRS: readonly (readonly [number, number])[] = [...FORBIDDEN].map((k) => {
  const [a, b] = k.split('-').map(Number);
  return [a ?? 0, b ?? 0] as const;
});

/**
 * §7: the type of the last node in the net that has one (the firmware overwrites as it walks the
 * node list).
 */
export function classifyNet(nodes: readonly number[]): { special: NetSpecial; channel: number | undefined } {
  let special: NetSpecial = 'none';
  let channel: number | undefined;
  for (const n of nodes) {
    if ((n >= ADC0 && n <= ADC4) || n === ADC7) {
      special = 'ADC';
      channel = n === ADC7 ? 7 : n - ADC0;
    } else if (n >= GPIO_1 && n <= GPIO_8) {
      special = 'GPIO';
      channel = n - GPIO_1;
    } else if (n === UART_TX) {
      special = 'UART_TX';
      channel = 8;
    } else if (n === UART_RX) {
      special = 'UART_RX';
      channel = 9;
    } else if (n >= FAKE_GP_IN_0 && n <= 181) {
      special = 'FAKE_GPIO_IN';
      channel = n - FAKE_GP_IN_0;
    } else if (n === DAC0 || n === DAC1) {
      special = 'DAC';
      channel = n === DAC0 ? 0 : 1;
    } else if (n === TOP_RAIL || n === BOTTOM_RAIL) {
      special = 'RAIL';
      channel = n === TOP_RAIL ? 2 : 3;
    }
  }
  return { special, channel };
}

interface StoredBridge {
  node1: number;
  node2: number;
  duplicates: number;
  net: number;
  unrouted?: UnroutedReason;
}

interface NetLook {
  name?: string;
  color?: Color;
}

export interface ConnectionsOptions {
  /** `[routing] stack_paths`: duplicates a new bridge gets when asked for -1. */
  readonly stackPaths?: number;
}

const clampDup = (n: number): number => Math.min(MAX_DUPLICATE, Math.max(0, Math.trunc(n)));

export class Connections {
  readonly stackPaths: number;
  private list: StoredBridge[] = [];
  private netList: { nodes: number[] }[] = [];
  private nodeNet = new Map<number, number>();
  /** Custom names/colours, keyed by a node of the net so they follow it through renumbering. */
  private looks = new Map<number, NetLook>();
  private changes = 0;

  constructor(options: ConnectionsOptions = {}) {
    this.stackPaths = clampDup(options.stackPaths ?? DEFAULT_STACK_PATHS);
    this.rebuild();
  }

  /** Increments on every change; lets the owner track a dirty flag. */
  get changeCount(): number {
    return this.changes;
  }

  /**
   * `connect(n1, n2, duplicates)`. -1 gives a new bridge `stackPaths` duplicates and adds one to an
   * existing bridge; any other value sets the count, limited to 0..8 (§6.3).
   */
  connect(a: number, b: number, duplicates = -1): ConnectOutcome {
    if (!isBridgeable(a) || !isBridgeable(b)) return { status: 'refused', reason: 'invalid_node' };
    if (a === b) return { status: 'refused', reason: 'same_node' };
    if (isForbiddenPair(a, b)) return { status: 'refused', reason: 'forbidden_pair' };
    const existing = this.find(a, b);
    if (existing) {
      const previous = existing.duplicates;
      existing.duplicates = duplicates === -1 ? clampDup(previous + 1) : clampDup(duplicates);
      this.touch();
      return { status: 'updated', bridge: this.view(existing), previous };
    }
    if (this.list.length >= MAX_BRIDGES) return { status: 'refused', reason: 'full' };
    const stored: StoredBridge = {
      node1: a,
      node2: b,
      duplicates: duplicates === -1 ? this.stackPaths : clampDup(duplicates),
      net: -1,
    };
    this.list.push(stored);
    this.touch();
    const bridge = this.view(stored);
    return stored.unrouted
      ? { status: 'unrouted', bridge, reason: stored.unrouted }
      : { status: 'added', bridge };
  }

  /** Removes the exact bridge a-b (either order); b = -1 removes every bridge touching a. */
  disconnect(a: number, b: number): number {
    if (b === -1) return this.disconnectNode(a);
    const before = this.list.length;
    this.list = this.list.filter((x) => !sameBridge(x, a, b));
    return this.removed(before);
  }

  /** Removes every bridge touching `a`; returns how many went. */
  disconnectNode(a: number): number {
    const before = this.list.length;
    this.list = this.list.filter((x) => x.node1 !== a && x.node2 !== a);
    return this.removed(before);
  }

  /**
   * `nodes_clear()`: drops every bridge and custom net look, then re-adds the probe-power bridge
   * BUFFER_IN-DAC0 (§6.3) unless `keepProbePower` is false.
   */
  clear(options: { keepProbePower?: boolean } = {}): void {
    this.list = [];
    this.looks.clear();
    if (options.keepProbePower ?? true)
      this.list.push({ node1: BUFFER_IN, node2: DAC0, duplicates: 1, net: -1 });
    this.touch();
  }

  /** True only for a direct bridge a-b, either order (§6.3: shared net membership does not count). */
  isConnected(a: number, b: number): boolean {
    return this.find(a, b) !== undefined;
  }

  bridges(): Bridge[] {
    return this.list.map((b) => this.view(b));
  }

  get bridgeCount(): number {
    return this.list.length;
  }

  /** `get_bridge(i)`. */
  bridge(i: number): Bridge | undefined {
    const b = this.list[i];
    return b ? this.view(b) : undefined;
  }

  /** Why a stored bridge is unrouted, if it is. */
  unroutedReason(a: number, b: number): UnroutedReason | undefined {
    return this.find(a, b)?.unrouted;
  }

  /** All allocated nets, index 1 up (the five specials first). */
  nets(): Net[] {
    return this.netList.map((n, i) => this.netView(i + 1, n.nodes));
  }

  net(index: number): Net | undefined {
    const n = this.netList[index - 1];
    return n ? this.netView(index, n.nodes) : undefined;
  }

  /** Index of the net holding `node`, if any. */
  netOf(node: number): number | undefined {
    return this.nodeNet.get(node);
  }

  /** §6.9: 1 + the number of allocated nets, so 6 on a fresh board; valid indices are 1..n-1. */
  getNumNets(): number {
    return 1 + this.netList.length;
  }

  /** `get_net_name(n)`: undefined only outside 0..59. Unallocated nets still have their default name. */
  netName(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= MAX_NETS) return undefined;
    const nodes = this.netList[index - 1]?.nodes;
    return (nodes && this.lookOf(nodes)?.name) ?? defaultNetName(index);
  }

  /** `set_net_name(n, name | null)`. False when the net is not allocated. */
  setNetName(index: number, name: string | null): boolean {
    return this.setLook(index, (look) => {
      if (name === null) delete look.name;
      else look.name = name;
    });
  }

  /** `set_net_color(n, ...)` once the caller has parsed the colour (`parseColor`). */
  setNetColor(index: number, color: Color | null): boolean {
    return this.setLook(index, (look) => {
      if (color === null) delete look.color;
      else look.color = color;
    });
  }

  /** `get_net_info(n)`, or undefined outside 1..getNumNets()-1. */
  netInfo(index: number): NetInfo | undefined {
    const net = this.net(index);
    if (!net) return undefined;
    return {
      name: net.name,
      number: net.index,
      color: net.color,
      color_name: net.colorName,
      nodes: net.nodes.map(shortName).join(','),
    };
  }

  /** An independent copy (for `nodes_discard` snapshots or undo). */
  clone(): Connections {
    const c = new Connections({ stackPaths: this.stackPaths });
    c.list = this.list.map((b) => ({ ...b }));
    c.looks = new Map([...this.looks].map(([k, v]) => [k, { ...v }]));
    c.changes = this.changes;
    c.rebuild();
    return c;
  }

  private find(a: number, b: number): StoredBridge | undefined {
    return this.list.find((x) => sameBridge(x, a, b));
  }

  private view(b: StoredBridge): Bridge {
    return { node1: b.node1, node2: b.node2, duplicates: b.duplicates, net: b.net };
  }

  private removed(before: number): number {
    const n = before - this.list.length;
    if (n > 0) this.touch();
    return n;
  }

  private touch(): void {
    this.changes++;
    this.rebuild();
  }

  private lookOf(nodes: readonly number[]): NetLook | undefined {
    for (const n of nodes) {
      const look = this.looks.get(n);
      if (look) return look;
    }
    return undefined;
  }

  private setLook(index: number, edit: (look: NetLook) => void): boolean {
    const nodes = this.netList[index - 1]?.nodes;
    if (!nodes || nodes.length === 0) return false;
    const anchor = nodes.find((n) => this.looks.has(n)) ?? (nodes[0] as number);
    const look = this.looks.get(anchor) ?? {};
    edit(look);
    if (look.name === undefined && look.color === undefined) this.looks.delete(anchor);
    else this.looks.set(anchor, look);
    this.changes++;
    return true;
  }

  private netView(index: number, nodes: readonly number[]): Net {
    const look = this.lookOf(nodes);
    const color =
      look?.color ??
      namedColor(
        index <= 5
          ? (SPECIAL_NET_COLORS[index - 1] ?? 'white')
          : (USER_NET_PALETTE[(index - 6) % USER_NET_PALETTE.length] ?? 'white'),
      );
    return {
      index,
      name: look?.name ?? defaultNetName(index),
      nodes,
      ...classifyNet(nodes),
      color: color.rgb,
      colorName: color.name,
    };
  }

  private rebuild(): void {
    const parent = new Map<number, number>();
    const size = new Map<number, number>();
    const tag = new Map<number, number>(); // root -> special net index 1..5
    const isNet = new Set<number>(); // roots that are nets (special, or joined by a routed bridge)
    const findRoot = (x: number): number => {
      let r = x;
      if (!parent.has(r)) {
        parent.set(r, r);
        size.set(r, 1);
      }
      while (parent.get(r) !== r) r = parent.get(r) as number;
      let y = x;
      while (y !== r) {
        const next = parent.get(y) as number;
        parent.set(y, r);
        y = next;
      }
      return r;
    };
    SPECIAL_NET_NODES.forEach((n, i) => {
      findRoot(n);
      tag.set(n, i + 1);
      isNet.add(n);
    });
    let userNets = 0;
    for (const b of this.list) {
      delete b.unrouted;
      const ra = findRoot(b.node1);
      const rb = findRoot(b.node2);
      if (ra === rb) continue;
      const ta = tag.get(ra);
      const tb = tag.get(rb);
      const na = isNet.has(ra);
      const nb = isNet.has(rb);
      if (ta !== undefined && tb !== undefined) b.unrouted = 'special_nets';
      else if ((size.get(ra) ?? 1) + (size.get(rb) ?? 1) > MAX_NODES_PER_NET) b.unrouted = 'net_too_big';
      else if (!na && !nb && userNets >= MAX_NETS - 6) b.unrouted = 'too_many_nets';
      if (b.unrouted) continue;
      if (!na && !nb) userNets++;
      else if (na && nb) userNets--; // two nets become one (a special absorbs a user net, or two user nets)
      // Keep the special root so its tag survives.
      const [root, child] = tb !== undefined ? [rb, ra] : [ra, rb];
      parent.set(child, root);
      size.set(root, (size.get(root) ?? 1) + (size.get(child) ?? 1));
      isNet.add(root);
      isNet.delete(child);
    }

    const nets: { nodes: number[] }[] = SPECIAL_NET_NODES.map((n) => ({ nodes: [n] }));
    const indexOfRoot = new Map<number, number>();
    SPECIAL_NET_NODES.forEach((n, i) => {
      indexOfRoot.set(findRoot(n), i + 1);
    });
    for (const b of this.list) {
      if (b.unrouted) {
        b.net = -1;
        continue;
      }
      const root = findRoot(b.node1);
      let index = indexOfRoot.get(root);
      if (index === undefined) {
        nets.push({ nodes: [] });
        index = nets.length;
        indexOfRoot.set(root, index);
      }
      b.net = index;
      const members = nets[index - 1]?.nodes as number[];
      for (const n of [b.node1, b.node2]) if (!members.includes(n)) members.push(n);
    }
    this.netList = nets;
    this.nodeNet = new Map();
    nets.forEach((n, i) => {
      for (const node of n.nodes) this.nodeNet.set(node, i + 1);
    });
    // Forget looks whose anchor node left every net, so a later net does not inherit them.
    for (const anchor of [...this.looks.keys()]) if (!this.nodeNet.has(anchor)) this.looks.delete(anchor);
  }
}

function sameBridge(x: StoredBridge, a: number, b: number): boolean {
  return (x.node1 === a && x.node2 === b) || (x.node1 === b && x.node2 === a);
}

export function defaultNetName(index: number): string {
  return SPECIAL_NET_NAMES[index - 1] ?? `Net ${index}`;
}
