/**
 * Bridges and nets (spec §6.3, §6.9). The firmware refuses or half-applies connections silently
 * (§8.3), so `connect` checks each pair against the board model before sending, refuses shorts in
 * code, and reports what the board actually did after reading the bridge list back. Whether a
 * bridge is routed is read from its path's crossbar lanes (snapshot.ts), never from its net number.
 */
import { z } from 'zod';
import { FIRMWARE_COLORS, firmwareParseColor } from '../board/colors.js';
import { type Connections, isForbiddenPair, NET_NAME_MAX } from '../board/connections.js';
import { MAX_BRIDGES } from '../board/limits.js';
import { BOTTOM_RAIL, BUFFER_IN, DAC0, DAC1, GND, TOP_RAIL } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import type { StateDocument } from './boardState.js';
import { runsPwm } from './gpio.js';
import {
  type Hazard,
  hazard,
  isHazard,
  refuseHazards,
  type Setpoints,
  sourceOf,
  sourcesIn,
} from './hazards.js';
import { type BridgeRow, knownPwm, namesOf, recordChange } from './journal.js';
import { type NodeArg, nodeArg, type ResolvedNode, routableNode } from './nodeArg.js';
import type { PythonPart } from './pythonParts.js';
import { nodePair, nodeValue } from './shapes.js';
import {
  type BoardSnapshot,
  type BridgeView,
  bridgeViews,
  colorHex,
  modelOf,
  type NetView,
  netOf,
  nodeLabel,
  ROUTE_STATES,
  type RouteState,
  readBridges,
  readSnapshot,
  SNAPSHOT_REQUIRES,
  snapshotPython,
} from './snapshot.js';
import { defineDeviceTool } from './tool.js';
import { runningWave } from './wavegen.js';

/** Board-side helpers, inside `_jlt`. */
const connectionsPython: PythonPart = {
  name: 'connections',
  source: `
def conn_sum(rows):
    h = 0
    g = len(rows)
    for r in rows:
        for v in r:
            h = (h * 31 + v + 7) & 0x3fffffff
            g = (g * 131 + v + 3) & 0x3fffffff
    return [h, g]
def conn_connect(seen, pairs):
    before = _jlt.snap_bridges()
    if _jlt.conn_sum(before) != seen:
        return [before, None]
    for p in pairs:
        connect(p[0], p[1])
    return [before, _jlt.snap_bridges()]
def conn_disconnect(pairs, nodes):
    before = _jlt.snap_bridges()
    for p in pairs:
        disconnect(p[0], p[1])
    for n in nodes:
        disconnect(n, -1)
    return [before, _jlt.snap_bridges()]
def conn_clear(keep_power):
    power = []
    for i in range(get_num_bridges()):
        b = get_bridge(i)
        if b[0] in (139, 106, 107) and b[1] in (139, 106, 107) and 139 in (b[0], b[1]):
            power.append([int(b[0]), int(b[1]), int(b[2])])
    nodes_clear()
    if keep_power:
        for b in power:
            connect(b[0], b[1], b[2])
    return [_jlt.snap_bridges(), power if keep_power else [], CURRENT_SLOT()]
def conn_net_name(i, name):
    set_net_name(i, name)
    return get_net_name(i)
def conn_net_color(i, c):
    ok = set_net_color(i, c)
    return [bool(ok), int(get_net_color(i)), get_net_color_name(i)]
`,
};

/** The board-side parts the connection tools call: the snapshot's bridge and path readers, and their own. */
export const python: readonly PythonPart[] = [snapshotPython, connectionsPython];

const routeArg = z
  .enum(ROUTE_STATES)
  .describe(
    'routed (crossbar lanes placed); no_free_lanes (in a net, but the router found no free lanes: nothing connected); not_in_a_net (stored only: it would join two supply nets); unknown (fake-GPIO bridge: the board cannot tell)',
  );

const bridgeOut = z.object({
  node1: z.string(),
  node2: z.string(),
  extra_parallel_paths: z
    .number()
    .describe('Copies routed beside it where lanes are free (less ohms); go with it'),
  net: z.number().nullable().describe('Net the firmware put it in; null when in none'),
  routed: z.boolean().describe('True only when the board shows its crossbar lanes placed'),
  route: routeArg,
});

const toBridgeOut = (b: BridgeView): z.infer<typeof bridgeOut> => ({
  node1: b.node1_name,
  node2: b.node2_name,
  extra_parallel_paths: b.duplicates,
  net: b.net,
  routed: b.routed,
  route: b.route,
});

/** Said beside a bridge list when some bridge has copies, as the key alone is not plain. */
const PARALLEL_NOTE =
  'extra_parallel_paths: copies of that bridge the firmware routes beside it through free crossbar lanes, to lower its resistance; they come and go with the bridge and need nothing from you.';
const parallelNote = (bridges: readonly BridgeView[]): { about_extra_parallel_paths?: string } =>
  bridges.some((b) => b.duplicates > 0) ? { about_extra_parallel_paths: PARALLEL_NOTE } : {};

/** What a clear leaves running: supplies, PWM, the wave generator, GPIO outputs (it removes bridges only). */
function stillRunning(
  board: BoardClient,
  state: StateDocument,
  pads: readonly string[],
  wave: unknown,
): string[] {
  const { top_rail, bottom_rail, dac0, dac1 } = state.power;
  const supplies = (
    [
      ['top rail', top_rail],
      ['bottom rail', bottom_rail],
      ['DAC0', dac0],
      ['DAC1', dac1],
    ] as const
  )
    .filter(([, volts]) => volts !== 0)
    .map(([name, volts]) => `${name} at ${volts} V`);
  const pwm = state.gpio
    .filter((g) => typeof g.pin === 'number' && runsPwm(state, pads, g.pin))
    .map((g) => {
      const known = knownPwm(board, g.pin as number);
      return `PWM on GPIO_${g.pin}${known ? ` (${known.frequency} Hz, duty ${known.duty})` : ''}`;
    });
  const outputs = state.gpio
    .filter(
      (g) => typeof g.pin === 'number' && g.direction === 'OUTPUT' && !runsPwm(state, pads, g.pin as number),
    )
    .map((g) => `GPIO_${g.pin} output ${g.reading}`);
  const waveLine = runningWave(wave);
  return [...supplies, ...pwm, ...(waveLine ? [waveLine] : []), ...outputs];
}

const CONNECT_STATUS = ['added', 'already_connected', 'unrouted', 'crossbar_full', 'stored'] as const;
type ConnectStatus = (typeof CONNECT_STATUS)[number];

const pairResult = z.object({
  nodes: z.array(z.string()),
  status: z.enum(CONNECT_STATUS),
  net: z.number().optional().describe('Net the pair belongs to (added, already connected, crossbar_full)'),
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

/**
 * The hazard of bridging a and b, or undefined: the sources (supplies, GND, GPIO pins) of both nets
 * together, as the bridge would join them. Covers the firmware's pair check (§8.3) and goes past
 * it: any two supplies, through any rows, and a GPIO onto a supply; a merge of two special nets the
 * firmware would store unrouted is refused here too.
 */
export function bridgeHazard(
  model: Connections,
  a: number,
  b: number,
  power?: Setpoints,
): Hazard | undefined {
  const netA = model.netOf(a);
  const netB = model.netOf(b);
  if (netA !== undefined && netA === netB) return undefined;
  const members = (net: number | undefined, node: number): readonly number[] =>
    net === undefined ? [node] : (model.net(net)?.nodes ?? [node]);
  const joined = [...members(netA, a), ...members(netB, b)];
  const sources = sourcesIn(joined, power);
  const forbidden = isForbiddenPair(a, b);
  if (!isHazard(sources) && !forbidden) return undefined;
  const request = `${nodeLabel(a)}-${nodeLabel(b)}`;
  const through = [a, b].filter((n) => sourceOf(n) === undefined).map((n) => `row ${nodeLabel(n)}`);
  return hazard(request, sources.length > 1 ? sources : sourcesIn([a, b], power), through[0]);
}

const sameEnds = (x: { node1: number; node2: number }, a: number, b: number): boolean =>
  (x.node1 === a && x.node2 === b) || (x.node1 === b && x.node2 === a);

const findBridge = (bridges: readonly BridgeView[], a: number, b: number): BridgeView | undefined =>
  bridges.find((x) => sameEnds(x, a, b));

/** The status and reason a stored bridge reports, from its route state. */
function storedResult(bridge: BridgeView, predicted: string | undefined): Omit<PairResult, 'nodes'> {
  const net = bridge.net === null ? {} : { net: bridge.net };
  switch (bridge.route) {
    case 'routed':
      return { status: 'added', ...net };
    case 'no_free_lanes':
      return {
        status: 'crossbar_full',
        ...net,
        reason:
          'Stored and in the net, but the crossbar found no free lanes for it, so nothing is connected. Remove other bridges or use other rows.',
      };
    case 'not_in_a_net':
      return { status: 'unrouted', reason: unroutedReason(predicted) };
    case 'unknown':
      return {
        status: 'stored',
        reason:
          'Stored; the board does not show whether a bridge to a fake-GPIO node is routed (its path is filed under the node it stands for).',
      };
  }
}

function unroutedReason(predicted: string | undefined): string {
  switch (predicted) {
    case 'net_too_big':
      return 'Stored but not routed: the net would have more than 40 nodes.';
    case 'too_many_nets':
      return 'Stored but not routed: the board already has 60 nets.';
    case 'special_nets':
      return 'Stored but not routed: it would merge two supply nets.';
    default:
      return 'Stored but not routed: the firmware put it in no net.';
  }
}

export const connect = defineDeviceTool({
  name: 'connect',
  title: 'Connect nodes',
  description:
    'Bridge pairs of nodes. 5 V/3.3 V: set TOP_RAIL (dac_set), connect to it. Shorts (supplies/GND together, GPIO on a supply): none applied, and why. crossbar_full/unrouted: stored only.',
  group: 'connections',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['connect', 'disconnect', 'dac_get', ...SNAPSHOT_REQUIRES],
  input: z.object({
    pairs: z.array(nodePair).min(1).max(MAX_BRIDGES).describe('Applied in order, e.g. [["TOP_RAIL",10]]'),
  }),
  output: z.object({
    results: z.array(pairResult),
    added: z.number().describe('Stored and routed'),
    unrouted: z.number().describe('Stored but not connected (crossbar_full or unrouted)'),
    unverified: z.number().describe('Stored, routing not visible (fake GPIO)'),
  }),
  handle: async ({ pairs }, { board }) => {
    const resolved = pairs.map(resolvePair);
    // One board job: planned against the bridges last seen, which the board checks before it
    // connects anything; when they changed, it sends them back and the plan is made again. A plan
    // with a hazard sends no pair: its job only confirms the bridges it was made on.
    let seen = board.seen.get(SEEN_BRIDGES) as RawBridges | undefined;
    for (let attempt = 1; ; attempt++) {
      // Without a view of the board yet, the first job only reads.
      const plan = seen === undefined ? undefined : planConnect(resolved, bridgeViews(seen));
      const send = plan && plan.hazards.length === 0 && plan.full.length === 0 ? plan.toSend : [];
      const [beforeRaw, afterRaw] = z
        .tuple([z.unknown(), z.unknown()])
        .parse(
          await board.call(
            py`_jlt.conn_connect(${seen === undefined ? null : bridgeSum(seen)}, ${send.map((p) => [p.a, p.b])})`,
          ),
        );
      if (afterRaw === null || plan === undefined) {
        const rows = rawBridgeRows(beforeRaw);
        if (attempt >= 3 || (seen !== undefined && sameSum(seen, rows))) {
          throw new ToolError(
            'not_applied',
            'Nothing was connected: the bridges kept changing on the board while connect planned (is someone using the probe?). Retry.',
            { retryable: true },
          );
        }
        seen = rows;
        continue;
      }
      const afterRows = rawBridgeRows(afterRaw);
      board.seen.set(SEEN_BRIDGES, afterRows);
      if (plan.hazards.length > 0) {
        // The refusal names the volts the supplies are set to: planned again with them.
        const power = await readSetpoints(board);
        const again = planConnect(resolved, bridgeViews(afterRows), power);
        throw refuseHazards('connect', again.hazards.length > 0 ? again.hazards : plan.hazards);
      }
      if (plan.full.length > 0) {
        throw new ToolError(
          'table_full',
          `Nothing was connected: the bridge table holds ${MAX_BRIDGES} bridges, and ${plan.full.join(', ')} would not fit. Disconnect something first.`,
          { details: { pairs: plan.full } },
        );
      }
      const outcome = await connectOutcome(board, plan, bridgeViews(afterRows));
      if (send.length > 0) {
        recordChange(board, {
          tool: 'connect',
          label: `connect ${send.map((p) => `${nodeLabel(p.a)}-${nodeLabel(p.b)}`).join(', ')}`,
          bridges: { before: bridgeRowsOf(beforeRaw), after: bridgeRowsOf(afterRows) },
        });
      }
      return outcome;
    }
  },
});

/** node1, node2, duplicates of `snap_bridges` rows, as the journal keeps them. */
const bridgeRowsOf = (raw: unknown): BridgeRow[] =>
  bridgeViews(raw).map((b) => [b.node1, b.node2, b.duplicates]);

/** The four programmable supplies' setpoints, for a refusal's wording. */
async function readSetpoints(board: BoardClient): Promise<Setpoints> {
  const [dac0, dac1, top, bottom] = z
    .tuple([z.number(), z.number(), z.number(), z.number()])
    .parse(await board.call('[dac_get(0), dac_get(1), dac_get(2), dac_get(3)]'));
  return { dac0, dac1, top_rail: top, bottom_rail: bottom };
}

interface ConnectPlan {
  results: PairResult[];
  toSend: Array<{ at: number; a: number; b: number; predicted?: string }>;
  repeats: Array<{ at: number; a: number; b: number }>;
  hazards: Hazard[];
  /** Pairs that would not fit the bridge table. */
  full: string[];
}

/** What each pair will be, decided in code against the bridges the board has (hazards found here). */
function planConnect(
  resolved: ReadonlyArray<[ResolvedNode, ResolvedNode]>,
  before: BridgeView[],
  power?: Setpoints,
): ConnectPlan {
  const model = modelOf(before);
  const plan: ConnectPlan = { results: [], toSend: [], repeats: [], hazards: [], full: [] };
  const { results, toSend, repeats } = plan;
  for (const [a, b] of resolved) {
    const nodes = [a.name, b.name];
    const existing = findBridge(before, a.id, b.id);
    if (existing) {
      const { status: _status, ...rest } = storedResult(existing, model.unroutedReason(a.id, b.id));
      results.push({ nodes, status: 'already_connected', ...rest });
      continue;
    }
    if (model.bridges().some((x) => sameEnds(x, a.id, b.id))) {
      // The same pair earlier in this call: sent once, reported from the read-back.
      repeats.push({ at: results.length, a: a.id, b: b.id });
      results.push({ nodes, status: 'already_connected' });
      continue;
    }
    const unsafe = bridgeHazard(model, a.id, b.id, power);
    if (unsafe) {
      plan.hazards.push(unsafe);
      continue;
    }
    const outcome = model.connect(a.id, b.id);
    if (outcome.status === 'refused') {
      plan.full.push(`${a.name}-${b.name}`);
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
  return plan;
}

/**
 * What the board did with each pair. A pair the firmware dropped silently (it refuses without a
 * word) makes the whole call fail, and the pairs this call added are taken off again.
 */
async function connectOutcome(
  board: BoardClient,
  { results, toSend, repeats }: ConnectPlan,
  after: BridgeView[],
) {
  const dropped = toSend.filter((sent) => !findBridge(after, sent.a, sent.b));
  if (dropped.length > 0) {
    const added = toSend.filter((sent) => findBridge(after, sent.a, sent.b)).map((p) => [p.a, p.b]);
    const [, rows] = z
      .tuple([z.unknown(), z.unknown()])
      .parse(await board.call(py`_jlt.conn_disconnect(${added}, ${[]})`));
    board.seen.set(SEEN_BRIDGES, rawBridgeRows(rows));
    const names = dropped.map((p) => `${nodeLabel(p.a)}-${nodeLabel(p.b)}`);
    throw new ToolError(
      'not_applied',
      `The firmware did not store ${names.join(', ')} (it refuses silently: check the nodes); the pairs this call had added were removed again, so nothing changed.`,
      { details: { pairs: names } },
    );
  }
  for (const sent of toSend) {
    const result = results[sent.at] as PairResult;
    Object.assign(result, storedResult(findBridge(after, sent.a, sent.b) as BridgeView, sent.predicted));
  }
  for (const repeat of repeats) {
    const net = findBridge(after, repeat.a, repeat.b)?.net;
    if (typeof net === 'number') (results[repeat.at] as PairResult).net = net;
  }
  const count = (...statuses: ConnectStatus[]) => results.filter((r) => statuses.includes(r.status)).length;
  return {
    results,
    added: count('added'),
    unrouted: count('unrouted', 'crossbar_full'),
    unverified: count('stored'),
  };
}

/** Key of the bridge rows last seen in `board.seen`. */
const SEEN_BRIDGES = 'connections.bridges';
type RawBridges = number[][];

const rawBridgeRows = (raw: unknown): RawBridges => {
  bridgeViews(raw); // checks the shape
  return raw as RawBridges;
};

/**
 * The two 30-bit checksums `_jlt.conn_sum` computes on the board, over the same rows: a plan is
 * only applied to the bridges it was made for (a stale plan could join supplies).
 */
export function bridgeSum(rows: RawBridges): [number, number] {
  let h = 0;
  let g = rows.length;
  for (const row of rows) {
    for (const v of row) {
      h = (h * 31 + v + 7) & 0x3fffffff;
      g = (g * 131 + v + 3) & 0x3fffffff;
    }
  }
  return [h, g];
}

const sameSum = (a: RawBridges, b: RawBridges): boolean => bridgeSum(a).join() === bridgeSum(b).join();

const isProbePower = (b: { node1: number; node2: number }): boolean =>
  sameEnds(b, BUFFER_IN, DAC0) || sameEnds(b, BUFFER_IN, DAC1);

export const disconnect = defineDeviceTool({
  name: 'disconnect',
  title: 'Disconnect nodes',
  description:
    "Remove exact bridges (pairs) and/or every bridge touching nodes. Removing BUFFER_IN-DAC0 cuts the probe's power.",
  group: 'connections',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['disconnect', ...SNAPSHOT_REQUIRES],
  input: z.object({
    pairs: z.array(nodePair).max(MAX_BRIDGES).default([]),
    nodes: z.array(nodeValue).max(MAX_BRIDGES).default([]),
  }),
  output: z.object({
    removed: z.array(bridgeOut),
    not_found: z.array(z.array(z.string())).describe('Requested pairs that were not bridged'),
    remaining: z.number().describe('Bridges left on the board'),
    probe_power_removed: z.boolean().describe('The probe-power bridge BUFFER_IN-DAC0/DAC1 was removed'),
    about_extra_parallel_paths: z.string().optional(),
  }),
  handle: async ({ pairs, nodes }, { board }) => {
    if (pairs.length === 0 && nodes.length === 0) {
      throw new ToolError('invalid_arguments', 'Give at least one pair or node to disconnect.');
    }
    const resolvedPairs = pairs.map(resolvePair);
    const resolvedNodes = nodes.map(routableNode);
    // The read before, the change and the read after in one board job.
    const [beforeRaw, afterRaw] = z
      .tuple([z.unknown(), z.unknown()])
      .parse(
        await board.call(
          py`_jlt.conn_disconnect(${resolvedPairs.map(([a, b]) => [a.id, b.id])}, ${resolvedNodes.map((n) => n.id)})`,
        ),
      );
    const before = bridgeViews(beforeRaw);
    const after = bridgeViews(afterRaw);
    board.seen.set(SEEN_BRIDGES, afterRaw);
    const notFound = resolvedPairs
      .filter(([a, b]) => !findBridge(before, a.id, b.id))
      .map(([a, b]) => [a.name, b.name]);
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
    const removed = before.filter((b) => !findBridge(after, b.node1, b.node2));
    if (removed.length > 0) {
      recordChange(board, {
        tool: 'disconnect',
        label: `disconnect ${removed.map((b) => `${b.node1_name}-${b.node2_name}`).join(', ')}`,
        bridges: { before: bridgeRowsOf(beforeRaw), after: bridgeRowsOf(afterRaw) },
      });
    }
    return {
      removed: removed.map(toBridgeOut),
      not_found: notFound,
      remaining: after.length,
      probe_power_removed: removed.some(isProbePower),
      ...parallelNote(removed),
    };
  },
});

export const nodesClear = defineDeviceTool({
  name: 'nodes_clear',
  title: 'Clear all connections',
  description:
    'Remove every bridge (supplies, PWM, GPIO stay as set); probe power BUFFER_IN-DAC0 comes back unless keep_probe_power: false.',
  group: 'connections',
  kind: 'destructive',
  capability: 'jumperless.wire',
  requires: [
    'nodes_clear',
    'connect',
    'CURRENT_SLOT',
    'gpio_get_dir',
    'wavegen_is_running',
    ...SNAPSHOT_REQUIRES,
  ],
  input: z.object({
    keep_probe_power: z.boolean().default(true),
  }),
  output: z.object({
    removed: z.number(),
    probe_power_restored: z.boolean(),
    remaining: z.array(bridgeOut),
    autosave: z.string().describe('Which slot file the cleared board is autosaved into'),
    still_running: z
      .array(z.string())
      .describe('What a clear leaves as it was: supplies, PWM, wave, GPIO outputs'),
    not_touched: z.string(),
    about_extra_parallel_paths: z.string().optional(),
  }),
  hazard: () => 'Remove every bridge on the board?',
  handle: async ({ keep_probe_power }, { board }) => {
    const { bridges: before, state } = await readSnapshot(board);
    const [rawAfter, restored, slot] = z
      .tuple([z.unknown(), z.array(z.unknown()), z.number()])
      .parse(await board.call(py`_jlt.conn_clear(${keep_probe_power})`));
    const [pads, wave] = z
      .tuple([z.array(z.string()), z.unknown()])
      .parse(await board.call('[_jlt.gpio_pads(), _jlt.wave_status()]'));
    const after = bridgeViews(rawAfter);
    board.seen.set(SEEN_BRIDGES, rawAfter);
    const removed = before.filter((b) => !findBridge(after, b.node1, b.node2)).length;
    if (removed > 0) {
      recordChange(board, {
        tool: 'nodes_clear',
        label: `nodes_clear (${removed} bridge${removed === 1 ? '' : 's'})`,
        bridges: {
          before: before.map((b) => [b.node1, b.node2, b.duplicates]),
          after: bridgeRowsOf(rawAfter),
        },
        names: namesOf(state),
      });
    }
    return {
      removed,
      probe_power_restored: restored.length > 0 && after.some(isProbePower),
      remaining: after.map(toBridgeOut),
      // A model that saved to another slot first cannot tell the clear overwrites the active one.
      autosave:
        slot === 99
          ? 'The board is on the Python slot: the cleared board is not saved into slots 0-7.'
          : `Slot ${slot} (the active slot) gets this cleared board by the autosave within about 1 s; other slots keep what they hold (slot_switch to load one).`,
      still_running: stillRunning(board, state, pads, wave),
      not_touched:
        'A clear removes bridges only: supply setpoints (dac_set), PWM (pwm_stop), the wave generator and GPIO directions and levels stay as they were.',
      ...parallelNote(after),
    };
  },
});

export const bridgesList = defineDeviceTool({
  name: 'bridges_list',
  title: 'List bridges',
  description:
    'Each bridge (node pair) with its net and routing: the pairs to disconnect. The whole board: state_get.',
  group: 'connections',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...SNAPSHOT_REQUIRES],
  input: z.object({}),
  output: z.object({
    bridges: z.array(bridgeOut),
    count: z.number(),
    routed: z.number(),
    unrouted: z.number().describe('Stored but not connected (no_free_lanes or not_in_a_net)'),
    unknown: z.number().describe('Fake-GPIO bridges, whose routing the board does not show'),
    about_extra_parallel_paths: z.string().optional(),
  }),
  handle: async (_args, { board }) => {
    const bridges = await readBridges(board);
    const count = (...states: RouteState[]) => bridges.filter((b) => states.includes(b.route)).length;
    return {
      bridges: bridges.map(toBridgeOut),
      count: bridges.length,
      routed: count('routed'),
      unrouted: count('no_free_lanes', 'not_in_a_net'),
      unknown: count('unknown'),
      ...parallelNote(bridges),
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
  unrouted_bridges: z
    .number()
    .describe('Bridges of this net the crossbar found no lanes for: their nodes may not be joined'),
});

/** Bridges of `net` whose path found no lanes. */
const unplacedIn = (snapshot: BoardSnapshot, net: number): number =>
  snapshot.bridges.filter((b) => b.net === net && b.route === 'no_free_lanes').length;

export const netsList = defineDeviceTool({
  name: 'nets_list',
  title: 'List nets',
  description:
    'Each net: name, colour, nodes, volts, unrouted bridges (1-5 supplies and GND; 6 up renumber). The whole board: state_get.',
  group: 'connections',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...SNAPSHOT_REQUIRES],
  input: z.object({}),
  output: z.object({ nets: z.array(netOut) }),
  handle: async (_args, { board }) => {
    const snapshot = await readSnapshot(board);
    return {
      nets: snapshot.nets.map(({ node_ids: _ids, ...net }) => ({
        ...net,
        unrouted_bridges: unplacedIn(snapshot, net.index),
      })),
    };
  },
});

/**
 * Both questions about two nodes in one tool (it replaced bridge_check): is there a direct bridge
 * (the firmware's is_connected) and is it routed; are they in one net, however joined.
 */
export const netCheck = defineDeviceTool({
  name: 'net_check',
  title: 'How two nodes are joined',
  description:
    'Whether two nodes are bridged directly (and routed) and share a net (the board cannot see jumper wires).',
  group: 'connections',
  kind: 'read',
  capability: 'jumperless.read',
  requires: [...SNAPSHOT_REQUIRES],
  input: z.object({ a: nodeArg, b: nodeValue }),
  output: z.object({
    a: z.string(),
    b: z.string(),
    bridged: z.boolean(),
    routed: z
      .boolean()
      .describe('The bridge has crossbar lanes placed (false when not bridged or not routed)'),
    route: routeArg.optional().describe('Only when bridged'),
    net: z.number().nullable().describe("The direct bridge's net"),
    same_net: z.boolean(),
    a_net: z.number().nullable(),
    b_net: z.number().nullable(),
    nets_note: z.string().optional().describe('Why a_net or b_net is null'),
    net_name: z.string().optional(),
    unrouted_bridges: z
      .number()
      .optional()
      .describe('When same_net: bridges of the net with no crossbar lanes'),
  }),
  handle: async ({ a, b }, { board }) => {
    const x = routableNode(a);
    const y = routableNode(b);
    // One snapshot answers both questions: its bridge list is what is_connected checks (the exact
    // pair, either way round, spec §6.1), with the route each bridge got.
    const snapshot = await readSnapshot(board);
    const direct =
      x.id === y.id
        ? undefined
        : snapshot.bridges.find(
            (bridge) =>
              (bridge.node1 === x.id && bridge.node2 === y.id) ||
              (bridge.node1 === y.id && bridge.node2 === x.id),
          );
    const bridged = direct !== undefined;
    const route = direct?.route;
    const bridgeNet = direct?.net ?? null;
    const nx = netOf(snapshot, x.id);
    const ny = netOf(snapshot, y.id);
    const same = x.id === y.id || (nx !== undefined && nx.index === ny?.index);
    // A supply alone is left out of the firmware's net list, but it always owns its fixed net.
    const aNet = nx?.index ?? SUPPLY_NETS.get(x.id) ?? null;
    const bNet = ny?.index ?? SUPPLY_NETS.get(y.id) ?? null;
    const loose = [
      [x, aNet],
      [y, bNet],
    ].flatMap(([end, net]) => (net === null ? [(end as ResolvedNode).name] : []));
    return {
      a: x.name,
      b: y.name,
      bridged,
      routed: route === 'routed',
      ...(route ? { route } : {}),
      net: bridgeNet,
      same_net: same,
      a_net: aNet,
      b_net: bNet,
      ...(loose.length > 0
        ? {
            nets_note: `null: ${loose.join(' and ')} ${loose.length === 1 ? 'is' : 'are'} on no net (nothing bridged to it).`,
          }
        : {}),
      ...(same && nx ? { net_name: nx.name, unrouted_bridges: unplacedIn(snapshot, nx.index) } : {}),
    };
  },
});

/** The nets the firmware gives the supplies, each alone at power-on (spec §6.4). */
const SUPPLY_NETS: ReadonlyMap<number, number> = new Map([
  [GND, 1],
  [TOP_RAIL, 2],
  [BOTTOM_RAIL, 3],
  [DAC0, 4],
  [DAC1, 5],
]);

const netTarget = {
  net: z.number().int().min(1).max(59).optional(),
  node: nodeValue.optional(),
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

/**
 * A name the board keeps intact and every later get_state() can carry: printable ASCII without `\`
 * and `"`, no space at either end, up to 31 characters (the firmware keeps 31). get_state escapes
 * only `"`, newline and CR (JsonState.cpp:30-35), so a backslash makes every later get_state() invalid
 * JSON; set_state's parser splits on quotes; and the JSON trims names (JsonState.cpp:100), so a name
 * with an outer space would read differently there and in get_net_name.
 */
export function validNetName(name: string): boolean {
  return /^[\x20-\x7e]*$/.test(name) && !/[\\"]/.test(name) && name === name.trim();
}

const PALETTE = FIRMWARE_COLORS.map((c) => c.name);
const HEX_COLOR = /^(?:#|0x)([0-9a-f]{6})$/i;

/** What to send for a colour and what the board will store: a palette name, or an exact RGB. */
function colorRequest(text: string): { send: string | number; rgb: number } | undefined {
  const hex = HEX_COLOR.exec(text.trim());
  if (hex?.[1]) {
    // Sent as an int: stored exactly. As text the firmware would dim it and misread '#' (States.cpp:2418).
    const rgb = Number.parseInt(hex[1], 16);
    return { send: rgb, rgb };
  }
  const name = text.trim().toLowerCase();
  const rgb = PALETTE.includes(name) ? firmwareParseColor(name) : undefined;
  return rgb === undefined ? undefined : { send: name, rgb };
}

/** A net's name and colour in one tool (it replaced net_name_set and net_color_set). */
export const netSet = defineDeviceTool({
  name: 'net_set',
  title: 'Name or colour a net',
  description:
    'Name and/or colour the net of a node (or index; nets renumber). Empty name restores "Net N". color: #rrggbb, or a name (red, cyan...) dimmed.',
  group: 'connections',
  kind: 'write',
  capability: 'jumperless.wire',
  requires: [
    'set_net_name',
    'get_net_name',
    'set_net_color',
    'get_net_color',
    'get_net_color_name',
    ...SNAPSHOT_REQUIRES,
  ],
  input: z
    .object({
      ...netTarget,
      name: z
        .string()
        .max(NET_NAME_MAX)
        .refine(validNetName, 'printable ASCII without \\ or ", no space at either end')
        .optional(),
      color: z.string().min(1).max(16).optional(),
    })
    .refine((args) => args.name !== undefined || args.color !== undefined, { message: 'give name or color' }),
  output: z.object({
    net: z.number(),
    name: z.string().optional(),
    previous_name: z.string().optional(),
    color: z.string().optional(),
    color_name: z.string().optional(),
    previous_color: z.string().optional(),
  }),
  handle: async (args, { board }) => {
    const request = args.color === undefined ? undefined : colorRequest(args.color);
    if (args.color !== undefined && !request) {
      throw new ToolError(
        'invalid_color',
        `Unknown colour ${JSON.stringify(args.color)}: use #rrggbb or one of ${PALETTE.join(', ')}.`,
      );
    }
    const { net } = await targetNet(board, args);
    const result: Record<string, unknown> & { net: number } = { net: net.index };
    if (args.name !== undefined) {
      const after = z
        .string()
        .nullable()
        .parse(
          await board.call(py`_jlt.conn_net_name(${net.index}, ${args.name === '' ? null : args.name})`),
        );
      if (args.name !== '' && after !== args.name) {
        throw new ToolError('not_applied', `Net ${net.index} reads back as ${JSON.stringify(after)}.`, {
          details: { requested: args.name, actual: after },
        });
      }
      Object.assign(result, { name: after ?? '', previous_name: net.name });
    }
    if (request) {
      const [ok, rgb, name] = z
        .tuple([z.boolean(), z.number(), z.string()])
        .parse(await board.call(py`_jlt.conn_net_color(${net.index}, ${request.send})`));
      if (!ok || rgb !== request.rgb) {
        throw new ToolError('not_applied', `Net ${net.index} reads back colour ${colorHex(rgb)}.`, {
          details: { requested: colorHex(request.rgb), actual: colorHex(rgb) },
        });
      }
      Object.assign(result, { color: colorHex(rgb), color_name: name, previous_color: net.color });
    }
    return result;
  },
});

export default [connect, disconnect, nodesClear, bridgesList, netsList, netCheck, netSet];
