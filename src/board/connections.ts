/**
 * The bridge list and the nets it makes (spec §6.3, §6.9, §8.2-§8.3).
 *
 * Nets are recomputed from scratch after every change, as the firmware does on each refresh: bridges
 * are taken in list order and joined by union-find. A bridge that would join two of the five special
 * nets (GND, Top Rail, Bottom Rail, DAC 0, DAC 1) stays stored but unrouted (`net = -1`): the firmware
 * never adds it to a net, so it has no path at all (NetManager.cpp:456-465, searchExistingNets only
 * combines two nets when one of them is a user net). Whether a bridge is routed can therefore depend on
 * the bridges before it.
 *
 * Custom net names and colours follow the firmware's DisplayState (States.cpp:300-495): they are kept
 * by net NUMBER together with the first node the net had when they were set, and after every rebuild
 * they follow that node to its new net number, or vanish once it is in no net. A name set on a net
 * that does not exist has no node: it stays on that number.
 *
 * Numbering (our documented choice): nets 1-5 are the specials; user nets are numbered from 6 in the
 * order of their earliest routed bridge in the list. A net's nodes are listed in order of first
 * appearance over routed bridges (node1 before node2), after the special node for nets 1-5.
 */
import { type Color, firmwareColorName, namedColor, SPECIAL_NET_COLORS, USER_NET_PALETTE } from './colors.js';
import { DEFAULT_STACK_PATHS, MAX_BRIDGES, MAX_NETS, MAX_NODES_PER_NET } from './limits.js';
import {
  ADC0,
  ADC4,
  ADC7,
  BOTTOM_RAIL,
  BUFFER_OUT,
  DAC0,
  DAC1,
  EMPTY_NET,
  FAKE_GP_IN_0,
  GND,
  GPIO_1,
  GPIO_8,
  ISENSE_MINUS,
  ISENSE_PLUS,
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
/** One key for an unordered pair of nodes. */
export const pairKey = (a: number, b: number): string => (a < b ? `${a}-${b}` : `${b}-${a}`);

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

/** A DisplayState entry: a custom name or colour, by net number, anchored to the net's first node. */
interface Custom<T> {
  net: number;
  /** `nets[net].nodes[0]` when it was set, 0 when that net did not exist. */
  firstNode: number;
  value: T;
}

/** States.cpp:336-347: set_net_name keeps at most 31 characters. */
export const NET_NAME_MAX = 31;

export interface ConnectionsOptions {
  /** `[routing] stack_paths`: duplicates a new bridge gets when asked for -1. */
  readonly stackPaths?: number;
  /**
   * Nets 0..namedNets-1 have a default name; an allocated net above has none (5.7.0.13 names only
   * nets 0-49, MatrixState.cpp:29; 5.7.11 all 60). Default 60.
   */
  readonly namedNets?: number;
  /** A new net takes an index below this (findFirstUnusedNetIndex: 60 on 5.7.0.13, 58 on 5.7.11). */
  readonly netIndexLimit?: number;
}

export class Connections {
  readonly stackPaths: number;
  readonly namedNets: number;
  readonly netIndexLimit: number;
  private list: StoredBridge[] = [];
  private netList: { nodes: number[] }[] = [];
  private nodeNet = new Map<number, number>();
  private names: Custom<string>[] = [];
  private colors: Custom<Color>[] = [];
  private changes = 0;

  constructor(options: ConnectionsOptions = {}) {
    this.stackPaths = Math.trunc(options.stackPaths ?? DEFAULT_STACK_PATHS);
    this.namedNets = options.namedNets ?? MAX_NETS;
    this.netIndexLimit = options.netIndexLimit ?? MAX_NETS;
    this.rebuild();
  }

  /** Increments on every change; lets the owner track a dirty flag. */
  get changeCount(): number {
    return this.changes;
  }

  /**
   * `connect(n1, n2, duplicates)` as States.cpp:591-662 stores it. A negative count gives a new bridge
   * `stackPaths` and adds one to an existing bridge; any other value is stored as it is (no limit).
   */
  connect(a: number, b: number, duplicates = -1): ConnectOutcome {
    if (!isBridgeable(a) || !isBridgeable(b)) return { status: 'refused', reason: 'invalid_node' };
    if (a === b) return { status: 'refused', reason: 'same_node' };
    if (isForbiddenPair(a, b)) return { status: 'refused', reason: 'forbidden_pair' };
    const count = Math.trunc(duplicates);
    const existing = this.find(a, b);
    if (existing) {
      const previous = existing.duplicates;
      existing.duplicates = count < 0 ? previous + 1 : count;
      this.touch();
      return { status: 'updated', bridge: this.view(existing), previous };
    }
    if (this.list.length >= MAX_BRIDGES) return { status: 'refused', reason: 'full' };
    const stored: StoredBridge = {
      node1: a,
      node2: b,
      duplicates: count < 0 ? this.stackPaths : count,
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
   * `nodes_clear()`: drops every bridge, the probe-power bridge BUFFER_IN-DAC0 included (States.cpp:720
   * re-adds only locked connections, which are off by default). Custom names and colours are not wiped:
   * the rebuild drops those whose first node left every net (States.cpp:379), so a name on GND stays.
   */
  clear(): void {
    this.list = [];
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

  /** The options a copy of this list needs to behave the same. */
  get options(): ConnectionsOptions {
    return { stackPaths: this.stackPaths, namedNets: this.namedNets, netIndexLimit: this.netIndexLimit };
  }

  /**
   * `get_net_name(n)` (JumperlessMicroPythonAPI.cpp:752): the custom name on that number, else the
   * net's own name: `Empty Net` (0), the special names (1-5), `Net N` for an allocated user net and a
   * single space for an unused one (MatrixState.cpp:652-656); a net holding one side of the current
   * sense shunt is `I Sense +` / `I Sense -` (NetManager.cpp:878-945). Undefined outside 0..59, and
   * for an allocated net the firmware has no default name for (see `namedNets`).
   */
  netName(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= MAX_NETS) return undefined;
    return this.customName(index) ?? this.ownName(index);
  }

  /** The custom name on net `index`, if any. */
  customName(index: number): string | undefined {
    return this.names.find((c) => c.net === index)?.value;
  }

  /**
   * `set_net_name(n, name | null)` (States.cpp:72-82, 327-352): any 0..59, allocated or not; the name
   * is cut to 31 characters; null or '' removes it. False only outside 0..59.
   */
  setNetName(index: number, name: string | null): boolean {
    return this.setCustom(
      this.names,
      index,
      name === null || name === '' ? null : name.slice(0, NET_NAME_MAX),
    );
  }

  /** `set_net_color(n, ...)` once the caller has worked out the stored colour. False outside 0..59. */
  setNetColor(index: number, color: Color | null): boolean {
    return this.setCustom(this.colors, index, color);
  }

  /** The custom colour on net `index`, if any (it need not be an allocated net). */
  customColor(index: number): Color | undefined {
    return this.colors.find((c) => c.net === index)?.value;
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
    const c = new Connections(this.options);
    c.list = this.list.map((b) => ({ ...b }));
    c.names = this.names.map((x) => ({ ...x }));
    c.colors = this.colors.map((x) => ({ ...x }));
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

  /** The net's own name, ignoring custom names; undefined when the firmware has none for it. */
  private ownName(index: number): string | undefined {
    if (index === 0) return 'Empty Net';
    const nodes = this.netList[index - 1]?.nodes ?? [];
    const sense = currentSenseName(nodes);
    if (sense) return sense;
    if (index <= 5) return SPECIAL_NET_NAMES[index - 1] as string;
    if (nodes.length === 0) return ' ';
    return index < this.namedNets ? `Net ${index}` : undefined;
  }

  private setCustom<T>(list: Custom<T>[], index: number, value: T | null): boolean {
    if (!Number.isInteger(index) || index < 0 || index >= MAX_NETS) return false;
    const at = list.findIndex((c) => c.net === index);
    if (value === null) {
      if (at >= 0) list.splice(at, 1);
    } else {
      // States.cpp:329-332: the anchor is the net's first node now (net 0 holds EMPTY_NET).
      const firstNode = index === 0 ? EMPTY_NET : (this.netList[index - 1]?.nodes[0] ?? 0);
      const entry = list[at];
      if (entry) {
        entry.value = value;
        entry.firstNode = firstNode;
      } else list.push({ net: index, firstNode, value });
    }
    this.changes++;
    return true;
  }

  /** States.cpp:379 reconcileAfterRebuild, for one list. */
  private reconcile<T>(list: Custom<T>[]): Custom<T>[] {
    const kept: Custom<T>[] = [];
    for (const c of list) {
      if (c.firstNode <= 0) {
        const first = this.netList[c.net - 1]?.nodes[0];
        if (c.net >= 1 && first !== undefined) c.firstNode = first;
        kept.push(c);
        continue;
      }
      const now = this.nodeNet.get(c.firstNode);
      if (now === undefined) continue;
      c.net = now;
      kept.push(c);
    }
    // An unanchored entry gives way to an anchored one on the same number.
    return kept.filter(
      (c) => c.firstNode !== 0 || !kept.some((d) => d !== c && d.net === c.net && d.firstNode > 0),
    );
  }

  private netView(index: number, nodes: readonly number[]): Net {
    const color =
      this.customColor(index) ??
      namedColor(
        index <= 5
          ? (SPECIAL_NET_COLORS[index - 1] ?? 'white')
          : (USER_NET_PALETTE[(index - 6) % USER_NET_PALETTE.length] ?? 'white'),
      );
    const custom = this.customColor(index) !== undefined;
    return {
      index,
      name: this.customName(index) ?? this.ownName(index) ?? '',
      nodes,
      ...classifyNet(nodes),
      color: color.rgb,
      // get_net_color_name names a computed colour with colorToName (JumperlessMicroPythonAPI.cpp:815).
      colorName: custom ? color.name : firmwareColorName(color.rgb),
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
      else if (!na && !nb && userNets >= this.netIndexLimit - 6) b.unrouted = 'too_many_nets';
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
    this.names = this.reconcile(this.names);
    this.colors = this.reconcile(this.colors);
  }
}

/**
 * NetManager.cpp:878-945 (updateCurrentSenseNetName, run as each node joins): a net holding
 * ISENSE_PLUS but not ISENSE_MINUS is named `I Sense +`, the other way round `I Sense -`; once both
 * are in, the name the first one gave stays.
 */
function currentSenseName(nodes: readonly number[]): string | undefined {
  const plus = nodes.indexOf(ISENSE_PLUS);
  const minus = nodes.indexOf(ISENSE_MINUS);
  if (plus === -1 && minus === -1) return undefined;
  if (minus === -1 || (plus !== -1 && plus < minus)) return 'I Sense +';
  return 'I Sense -';
}

function sameBridge(x: StoredBridge, a: number, b: number): boolean {
  return (x.node1 === a && x.node2 === b) || (x.node1 === b && x.node2 === a);
}

export function defaultNetName(index: number): string {
  return SPECIAL_NET_NAMES[index - 1] ?? `Net ${index}`;
}
