/**
 * Bridges and nets (spec §6.3, §6.9). The firmware refuses or half-applies connections silently
 * (§8.3), so `connect` checks each pair against the board model before sending, refuses shorts in
 * code, and reports what the board actually did after reading the bridge list back.
 */
import { z } from 'zod';
import { parseColor } from '../board/colors.js';
import { type Connections, isForbiddenPair, SPECIAL_NET_NAMES } from '../board/connections.js';
import { MAX_BRIDGES } from '../board/limits.js';
import { type NodeArg, nodeArg, type ResolvedNode, routableNode } from './nodeArg.js';
import { py } from './py.js';
import {
  type BoardSnapshot,
  type BridgeView,
  bridgeViews,
  colorHex,
  modelOf,
  type NetView,
  netOf,
  nodeLabel,
  readBridges,
  readSnapshot,
  SNAPSHOT_REQUIRES,
  snapshotPython,
} from './snapshot.js';
import { defineTool, ToolError } from './tool.js';

export const python = `${snapshotPython}
def conn_connect(pairs):
    for p in pairs:
        connect(p[0], p[1])
    return _jlt.snap_bridges()
def conn_disconnect(pairs, nodes):
    for p in pairs:
        disconnect(p[0], p[1])
    for n in nodes:
        disconnect(n, -1)
    return _jlt.snap_bridges()
def conn_clear():
    nodes_clear()
    return _jlt.snap_bridges()
def conn_check(a, b):
    p = get_path_between(a, b)
    return [bool(is_connected(a, b)), -2 if p is None else int(p['net'])]
def conn_net_name(i, name):
    set_net_name(i, name)
    return get_net_name(i)
def conn_net_color(i, rgb):
    ok = set_net_color(i, rgb)
    return [bool(ok), int(get_net_color(i)), get_net_color_name(i)]
`;

const pairArg = z.array(nodeArg).length(2).describe('Two nodes, e.g. ["TOP_RAIL", 10] or [10, 20]');

const bridgeOut = z.object({
  node1: z.string(),
  node2: z.string(),
  duplicates: z.number().describe('Parallel crossbar paths'),
  net: z.number().nullable().describe('Net index; null when stored but not routed'),
  routed: z.boolean(),
});

const toBridgeOut = (b: BridgeView): z.infer<typeof bridgeOut> => ({
  node1: b.node1_name,
  node2: b.node2_name,
  duplicates: b.duplicates,
  net: b.net,
  routed: b.routed,
});

const CONNECT_STATUS = [
  'added',
  'already_connected',
  'refused',
  'unrouted',
  'crossbar_full',
  'table_full',
] as const;
type ConnectStatus = (typeof CONNECT_STATUS)[number];

const pairResult = z.object({
  nodes: z.array(z.string()),
  status: z.enum(CONNECT_STATUS),
  net: z.number().optional().describe('Net the pair now belongs to (added or already connected)'),
  reason: z.string().optional(),
});
type PairResult = z.infer<typeof pairResult>;

const resolvePair = (pair: readonly NodeArg[]): [ResolvedNode, ResolvedNode] => {
  const [a, b] = pair.map(routableNode) as [ResolvedNode, ResolvedNode];
  if (a.id === b.id) {
    throw new ToolError('invalid_node', `Cannot bridge ${a.name} to itself.`, { details: { pair } });
  }
  return [a, b];
};

const netLabel = (model: Connections, node: number): string => {
  const index = model.netOf(node);
  return index === undefined
    ? nodeLabel(node)
    : `${nodeLabel(node)} (net ${index} "${model.netName(index)}")`;
};

/**
 * Why bridging a and b would be unsafe, or undefined. Extends the firmware's pair check (§8.3) to
 * whole nets: no member of a's net may form a forbidden pair with a member of b's net, and two of
 * the five special nets (GND, rails, DACs) never merge, which the firmware would leave unrouted.
 */
export function shortReason(model: Connections, a: number, b: number): string | undefined {
  if (isForbiddenPair(a, b)) {
    return `${nodeLabel(a)} and ${nodeLabel(b)} may not be bridged: it would short a supply (spec §8.3).`;
  }
  const netA = model.netOf(a);
  const netB = model.netOf(b);
  if (netA !== undefined && netA === netB) return undefined;
  const members = (net: number | undefined, node: number): readonly number[] =>
    net === undefined ? [node] : (model.net(net)?.nodes ?? [node]);
  for (const x of members(netA, a)) {
    for (const y of members(netB, b)) {
      if (isForbiddenPair(x, y)) {
        return `Bridging ${netLabel(model, a)} to ${netLabel(model, b)} would join ${nodeLabel(x)} and ${nodeLabel(y)}, a short the firmware forbids (spec §8.3).`;
      }
    }
  }
  if (netA !== undefined && netB !== undefined && netA <= 5 && netB <= 5) {
    return `Bridging ${netLabel(model, a)} to ${netLabel(model, b)} would merge ${SPECIAL_NET_NAMES[netA - 1]} and ${SPECIAL_NET_NAMES[netB - 1]}: two supplies must never share a net.`;
  }
  return undefined;
}

const findBridge = (bridges: readonly BridgeView[], a: number, b: number): BridgeView | undefined =>
  bridges.find((x) => sameEnds(x, a, b));

export const connect = defineTool({
  name: 'connect',
  title: 'Connect nodes',
  description:
    'Bridge one or more pairs of nodes through the crossbar, in order. Shorts (supplies to GND or to each other, GPIO onto a supply) are refused before sending; each pair reports added, already_connected, refused (why), unrouted or crossbar_full (stored but not routed) or table_full.',
  group: 'connections',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['connect', ...SNAPSHOT_REQUIRES],
  input: z.object({
    pairs: z.array(pairArg).min(1).max(MAX_BRIDGES).describe('Pairs to bridge, applied in order'),
  }),
  output: z.object({
    results: z.array(pairResult),
    added: z.number(),
    refused: z.number(),
    unrouted: z.number(),
  }),
  handle: async ({ pairs }, { board }) => {
    const resolved = pairs.map(resolvePair);
    const model = modelOf(await readBridges(board));
    const results: PairResult[] = [];
    const toSend: Array<{ at: number; a: number; b: number; predicted?: string }> = [];
    for (const [a, b] of resolved) {
      const nodes = [a.name, b.name];
      const existing = model.bridges().find((x) => sameEnds(x, a.id, b.id));
      if (existing) {
        results.push({
          nodes,
          status: 'already_connected',
          ...(existing.net === -1
            ? { reason: 'Already stored, but not routed (the firmware left it unrouted).' }
            : { net: existing.net }),
        });
        continue;
      }
      const unsafe = shortReason(model, a.id, b.id);
      if (unsafe) {
        results.push({ nodes, status: 'refused', reason: unsafe });
        continue;
      }
      const outcome = model.connect(a.id, b.id);
      if (outcome.status === 'refused') {
        results.push({
          nodes,
          status: 'table_full',
          reason: `The bridge table is full (${MAX_BRIDGES} bridges): disconnect something first.`,
        });
        continue;
      }
      toSend.push({
        at: results.length,
        a: a.id,
        b: b.id,
        ...(outcome.status === 'unrouted' ? { predicted: outcome.reason } : {}),
      });
      results.push({ nodes, status: 'added' });
    }
    if (toSend.length > 0) {
      const after = bridgeViews(await board.call(py`_jlt.conn_connect(${toSend.map((p) => [p.a, p.b])})`));
      for (const sent of toSend) {
        const result = results[sent.at] as PairResult;
        const bridge = findBridge(after, sent.a, sent.b);
        if (!bridge) {
          result.status = 'refused';
          result.reason = 'The firmware did not store this bridge (it refuses silently); check the nodes.';
        } else if (!bridge.routed) {
          // The model expected a route: the board found no free crossbar path.
          result.status = sent.predicted ? 'unrouted' : 'crossbar_full';
          result.reason = unroutedReason(sent.predicted);
        } else if (bridge.net !== null) {
          result.net = bridge.net;
        }
      }
    }
    const count = (status: ConnectStatus) => results.filter((r) => r.status === status).length;
    return {
      results,
      added: count('added'),
      refused: count('refused') + count('table_full'),
      unrouted: count('unrouted') + count('crossbar_full'),
    };
  },
});

const sameEnds = (x: { node1: number; node2: number }, a: number, b: number): boolean =>
  (x.node1 === a && x.node2 === b) || (x.node1 === b && x.node2 === a);

function unroutedReason(predicted: string | undefined): string {
  switch (predicted) {
    case 'net_too_big':
      return 'Stored but not routed: the net would have more than 40 nodes.';
    case 'too_many_nets':
      return 'Stored but not routed: the board already has 60 nets.';
    case 'special_nets':
      return 'Stored but not routed: it would merge two supply nets.';
    default:
      return 'Stored but not routed: the crossbar found no free path (crossbar full). Remove other bridges or use other rows.';
  }
}

export const disconnect = defineTool({
  name: 'disconnect',
  title: 'Disconnect nodes',
  description:
    'Remove bridges: exact pairs, and/or every bridge touching the given nodes. Reports what was removed. Disconnecting DAC0 or BUFFER_IN cuts the probe LEDs power.',
  group: 'connections',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['disconnect', ...SNAPSHOT_REQUIRES],
  input: z.object({
    pairs: z.array(pairArg).max(MAX_BRIDGES).default([]).describe('Exact bridges to remove'),
    nodes: z.array(nodeArg).max(MAX_BRIDGES).default([]).describe('Remove every bridge touching these nodes'),
  }),
  output: z.object({
    removed: z.array(bridgeOut),
    not_found: z.array(z.array(z.string())).describe('Requested pairs that were not bridged'),
    remaining: z.number().describe('Bridges left on the board'),
  }),
  handle: async ({ pairs, nodes }, { board }) => {
    if (pairs.length === 0 && nodes.length === 0) {
      throw new ToolError('invalid_arguments', 'Give at least one pair or node to disconnect.');
    }
    const resolvedPairs = pairs.map(resolvePair);
    const resolvedNodes = nodes.map(routableNode);
    const before = await readBridges(board);
    const notFound = resolvedPairs
      .filter(([a, b]) => !findBridge(before, a.id, b.id))
      .map(([a, b]) => [a.name, b.name]);
    const after = bridgeViews(
      await board.call(
        py`_jlt.conn_disconnect(${resolvedPairs.map(([a, b]) => [a.id, b.id])}, ${resolvedNodes.map((n) => n.id)})`,
      ),
    );
    const stillThere = resolvedPairs.filter(([a, b]) => findBridge(after, a.id, b.id));
    const stuck = resolvedNodes.filter((n) => after.some((b) => b.node1 === n.id || b.node2 === n.id));
    if (stillThere.length > 0 || stuck.length > 0) {
      throw new ToolError('not_applied', 'Some bridges are still on the board after disconnecting.', {
        details: {
          pairs: stillThere.map(([a, b]) => [a.name, b.name]),
          nodes: stuck.map((n) => n.name),
        },
      });
    }
    const removed = before.filter((b) => !findBridge(after, b.node1, b.node2)).map(toBridgeOut);
    return { removed, not_found: notFound, remaining: after.length };
  },
});

export const nodesClear = defineTool({
  name: 'nodes_clear',
  title: 'Clear all connections',
  description:
    'Remove every bridge on the board (the firmware keeps the probe power bridge BUFFER_IN-DAC0). Loses the wiring of the active slot unless it was saved.',
  group: 'connections',
  kind: 'destructive',
  capability: 'jumperless.wire',
  requires: ['nodes_clear', ...SNAPSHOT_REQUIRES],
  input: z.object({}),
  output: z.object({ removed: z.number(), remaining: z.array(bridgeOut) }),
  handle: async (_args, { board }) => {
    const before = await readBridges(board);
    const after = bridgeViews(await board.call('_jlt.conn_clear()'));
    const removed = before.filter((b) => !findBridge(after, b.node1, b.node2)).length;
    return { removed, remaining: after.map(toBridgeOut) };
  },
});

export const bridgesList = defineTool({
  name: 'bridges_list',
  title: 'List bridges',
  description:
    'List every bridge (node pairs joined through the crossbar) with its net and whether it is actually routed; the firmware keeps unrouted bridges silently.',
  group: 'connections',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...SNAPSHOT_REQUIRES],
  input: z.object({}),
  output: z.object({ bridges: z.array(bridgeOut), count: z.number(), unrouted: z.number() }),
  handle: async (_args, { board }) => {
    const bridges = await readBridges(board);
    return {
      bridges: bridges.map(toBridgeOut),
      count: bridges.length,
      unrouted: bridges.filter((b) => !b.routed).length,
    };
  },
});

const netOut = z.object({
  index: z.number(),
  name: z.string(),
  color: z.string().describe('#rrggbb'),
  color_name: z.string(),
  nodes: z.array(z.string()),
  special: z.string().describe('none, RAIL, DAC, ADC, GPIO, UART_TX, UART_RX or FAKE_GPIO_IN'),
  volts: z.number().optional().describe('Supply setpoint (RAIL, DAC) or last ADC reading (ADC)'),
  logic: z.number().optional().describe('GPIO nets: 0 low, 1 high, 2 floating, 3 unknown'),
});

export const netsList = defineTool({
  name: 'nets_list',
  title: 'List nets',
  description:
    'List the nets (sets of nodes joined by bridges) with names, colours, members and voltages. Nets 1-5 are GND, Top Rail, Bottom Rail, DAC 0 and DAC 1; user nets start at 6 and renumber as wiring changes.',
  group: 'connections',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...SNAPSHOT_REQUIRES],
  input: z.object({}),
  output: z.object({ nets: z.array(netOut) }),
  handle: async (_args, { board }) => {
    const snapshot = await readSnapshot(board);
    return { nets: snapshot.nets.map(({ node_ids: _ids, ...net }) => net) };
  },
});

export const bridgeCheck = defineTool({
  name: 'bridge_check',
  title: 'Is there a direct bridge',
  description:
    'Whether a direct bridge joins exactly these two nodes (the firmware is_connected). Two nodes in the same net without a bridge between them answer false: use net_check for that.',
  group: 'connections',
  kind: 'read',
  capability: 'jumperless.read',
  requires: ['is_connected', 'get_path_between'],
  input: z.object({ a: nodeArg, b: nodeArg }),
  output: z.object({
    a: z.string(),
    b: z.string(),
    bridged: z.boolean(),
    routed: z.boolean().describe('The bridge closes crosspoints (false when stored but unrouted)'),
  }),
  handle: async ({ a, b }, { board }) => {
    const [x, y] = resolvePair([a, b]);
    const [bridged, net] = z
      .tuple([z.boolean(), z.number()])
      .parse(await board.call(py`_jlt.conn_check(${x.id}, ${y.id})`));
    return { a: x.name, b: y.name, bridged, routed: bridged && net >= 1 };
  },
});

export const netCheck = defineTool({
  name: 'net_check',
  title: 'Do two nodes share a net',
  description:
    'Whether two nodes are electrically joined through the crossbar (same net, directly or through other bridges). Wires and parts outside the crossbar are invisible to the board.',
  group: 'connections',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...SNAPSHOT_REQUIRES],
  input: z.object({ a: nodeArg, b: nodeArg }),
  output: z.object({
    a: z.string(),
    b: z.string(),
    same_net: z.boolean(),
    a_net: z.number().nullable(),
    b_net: z.number().nullable(),
    net_name: z.string().optional(),
  }),
  handle: async ({ a, b }, { board }) => {
    const x = routableNode(a);
    const y = routableNode(b);
    const snapshot = await readSnapshot(board);
    const nx = netOf(snapshot, x.id);
    const ny = netOf(snapshot, y.id);
    const same = x.id === y.id || (nx !== undefined && nx.index === ny?.index);
    return {
      a: x.name,
      b: y.name,
      same_net: same,
      a_net: nx?.index ?? null,
      b_net: ny?.index ?? null,
      ...(same && nx ? { net_name: nx.name } : {}),
    };
  },
});

const netTarget = {
  net: z.number().int().min(1).max(59).optional().describe('Net index (see nets_list)'),
  node: nodeArg.optional().describe('A node of the net (steadier than the index, which renumbers)'),
};

async function targetNet(
  board: Parameters<typeof readSnapshot>[0],
  args: { net?: number | undefined; node?: NodeArg | undefined },
): Promise<{ snapshot: BoardSnapshot; net: NetView }> {
  if ((args.net === undefined) === (args.node === undefined)) {
    throw new ToolError(
      'invalid_arguments',
      'Give exactly one of `net` (index) or `node` (a member of the net).',
    );
  }
  const node = args.node === undefined ? undefined : routableNode(args.node);
  const snapshot = await readSnapshot(board);
  if (node) {
    const net = netOf(snapshot, node.id);
    if (!net) {
      throw new ToolError('no_net', `${node.name} is not in any net: bridge it to something first.`);
    }
    return { snapshot, net };
  }
  const net = snapshot.nets.find((n) => n.index === args.net);
  if (!net) {
    const last = snapshot.nets.at(-1)?.index ?? 5;
    throw new ToolError('no_net', `There is no net ${args.net}: nets are 1..${last} (see nets_list).`);
  }
  return { snapshot, net };
}

/** Printable ASCII only: the name is shown on the OLED, in listings and in slot files. */
const NET_NAME = /^[\x20-\x7e]{0,31}$/;

export const netNameSet = defineTool({
  name: 'net_name_set',
  title: 'Name a net',
  description:
    'Give a net a name (printable ASCII, up to 31 characters; empty restores the default "Net N"). Pick the net by a member node or by index.',
  group: 'connections',
  kind: 'write',
  capability: 'jumperless.wire',
  requires: ['set_net_name', 'get_net_name', ...SNAPSHOT_REQUIRES],
  input: z.object({
    ...netTarget,
    name: z
      .string()
      .max(31)
      .regex(NET_NAME, 'printable ASCII only')
      .describe('New name; empty for the default'),
  }),
  output: z.object({ net: z.number(), name: z.string(), previous_name: z.string() }),
  handle: async (args, { board }) => {
    const { net } = await targetNet(board, args);
    const after = z
      .string()
      .nullable()
      .parse(await board.call(py`_jlt.conn_net_name(${net.index}, ${args.name === '' ? null : args.name})`));
    if (args.name !== '' && after !== args.name) {
      throw new ToolError('not_applied', `Net ${net.index} reads back as ${JSON.stringify(after)}.`, {
        details: { requested: args.name, actual: after },
      });
    }
    return { net: net.index, name: after ?? '', previous_name: net.name };
  },
});

export const netColorSet = defineTool({
  name: 'net_color_set',
  title: 'Colour a net',
  description:
    "Set a net's LED colour: a name (red, orange, yellow, green, cyan, blue, violet, magenta, pink, white...) or #rrggbb. Pick the net by a member node or by index.",
  group: 'connections',
  kind: 'write',
  capability: 'jumperless.wire',
  requires: ['set_net_color', 'get_net_color', 'get_net_color_name', ...SNAPSHOT_REQUIRES],
  input: z.object({ ...netTarget, color: z.string().min(1).max(16).describe('Colour name or #rrggbb') }),
  output: z.object({
    net: z.number(),
    color: z.string(),
    color_name: z.string(),
    previous_color: z.string(),
  }),
  handle: async (args, { board }) => {
    const parsed = parseColor(args.color);
    if (!parsed.ok) throw new ToolError('invalid_color', parsed.error);
    const { net } = await targetNet(board, args);
    const [ok, rgb, name] = z
      .tuple([z.boolean(), z.number(), z.string()])
      .parse(await board.call(py`_jlt.conn_net_color(${net.index}, ${parsed.color.rgb})`));
    if (!ok || rgb !== parsed.color.rgb) {
      throw new ToolError('not_applied', `Net ${net.index} reads back colour ${colorHex(rgb)}.`, {
        details: { requested: colorHex(parsed.color.rgb), actual: colorHex(rgb) },
      });
    }
    return { net: net.index, color: colorHex(rgb), color_name: name, previous_color: net.color };
  },
});

export default [
  connect,
  disconnect,
  nodesClear,
  bridgesList,
  netsList,
  bridgeCheck,
  netCheck,
  netNameSet,
  netColorSet,
];
