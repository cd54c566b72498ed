/**
 * Applying nets at once (the nets section of spec §7's state document), for the firmware's real
 * `set_state`: a substring scanner (JsonState.cpp:321-735) that ignores net names and reads only
 * quoted node names. state_set (and wokwi_import) send documents it reads as meant, checked before
 * (shorts, GPIO outputs onto driven nets) and compared after.
 *
 * state_set takes what must change together: the wiring, every net in one set_state, never half
 * (with clear_first, all of it replaced). It once took supplies, GPIO and LED overlays as well; their
 * complete schema was 2 KB of every tools/list (issue 13), and each has its own tool that checks
 * and verifies it: dac_set (with the probe warning for DAC0), gpio_config, overlay_set. A supply is
 * set before the wiring that carries it, so that nothing sees the old voltage.
 */
import { z } from 'zod';
import { pairKey } from '../board/connections.js';
import { MAX_BRIDGES, MAX_NODES_PER_NET } from '../board/limits.js';
import { asToolName, BUFFER_IN, DAC0, isBridgeable, parseShortName, shortName } from '../board/nodes.js';
import { parseState } from '../board/state.js';
import { ToolError } from '../core/errors.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import {
  canonicalNode,
  driveHazards,
  mergeGroups,
  netOfNode,
  RAM_REQUIRES,
  readRam,
  type StateDocument,
  setStateNodeText,
  stateDocumentSchema,
} from './boardState.js';
import { netHazards, refuseHazards } from './hazards.js';
import { bridgesMissing, namesOf, recordChange } from './journal.js';
import type { PythonPart } from './pythonParts.js';
import { nodeValue } from './shapes.js';
import { type BridgeView, readBridges } from './snapshot.js';
import { defineDeviceTool } from './tool.js';

/**
 * Board-side helper, inside `_jlt`. The state is read back in a job of its own: with a full board's
 * 33 KB state text, the document and its copies would not fit in one job's heap.
 */
export const stateSetPython: PythonPart = {
  name: 'stateSet',
  source: `
def state_put(j, c, k):
    r = set_state(j, c)
    if k:
        connect(139, 106, 0)
    return r
`,
};

/** Bridges a list of nets asks for: each net is a chain, n nodes taking n-1 bridges. */
const bridgesOf = (nets: ReadonlyArray<readonly unknown[]>): number =>
  nets.reduce((sum, net) => sum + Math.max(0, net.length - 1), 0);
const TOO_MANY_BRIDGES = `at most ${MAX_BRIDGES} bridges (n nodes: n-1)`;

/**
 * The nets applyState takes, each the list of its nodes; a node is a row or any of the board's names
 * for it (connect's, or get_state's). Nets are named afterwards with net_set: set_state ignores
 * names, and a name field per net cost state_set's listing more than it could afford.
 */
const netsInput = z
  .array(z.array(nodeValue).min(1).max(MAX_NODES_PER_NET))
  .max(60)
  .refine((nets) => bridgesOf(nets) <= MAX_BRIDGES, TOO_MANY_BRIDGES);
interface StateInput {
  nets: z.infer<typeof netsInput>;
}

// ---- applying a state, checked before and verified after ----

/** Node ids of the requested nets; refuses names the board does not know or cannot route. */
function requestedNodes(doc: StateInput): number[][] {
  return doc.nets.map((net) =>
    net.map((n) => {
      const id = typeof n === 'number' ? (Number.isInteger(n) ? n : undefined) : parseShortName(n);
      if (id === undefined) throw new ToolError('bad_state', `Unknown node ${JSON.stringify(n)} in nets.`);
      if (!isBridgeable(id) || setStateNodeText(id) === undefined) {
        throw new ToolError('bad_state', `Node ${JSON.stringify(n)} cannot be routed.`);
      }
      return id;
    }),
  );
}

/** What the request would route, refused when it joins supplies or puts a GPIO output on a driven net. */
function checkState(
  nodes: readonly (readonly number[])[],
  current: StateDocument,
  clearFirst: boolean,
): void {
  const requested = nodes.map((net) => net.map((id) => canonicalNode(shortName(id)) ?? shortName(id)));
  const kept = clearFirst ? [] : current.nets.map((net) => net.nodes);
  const groups = mergeGroups([...kept, ...requested]);
  const hazards = netHazards(groups, current.power);
  if (hazards.length > 0)
    throw refuseHazards(clearFirst ? 'the nets' : 'the nets (added to the wiring there is)', hazards);
  // The GPIO outputs there are, on the nets after the change.
  const { gpio } = current;
  const predicted: StateDocument = {
    ...current,
    nets: groups.map((members, i) => ({
      index: 100 + i,
      name: `net ${i + 1}`,
      nodes: members,
      special: 'none',
    })),
    gpio,
  };
  for (const g of gpio) {
    // A hardware-PWM pin drives its pad whatever its direction says (as driveHazards counts it).
    const pwm = g.function.toUpperCase() === 'PWM';
    if (g.direction !== 'OUTPUT' && !pwm) continue;
    const pin = g.pin === 'TX' ? 9 : g.pin === 'RX' ? 10 : Number(g.pin);
    const hazards = driveHazards(predicted, pin);
    if (hazards.length > 0) {
      throw new ToolError(
        'unsafe_drive',
        pwm
          ? `Refusing the state: GPIO ${g.pin} runs PWM and ${hazards.join('; ')}. Stop it first (pwm_stop).`
          : `Refusing the state: GPIO ${g.pin} is an output and ${hazards.join('; ')}. Make it an input first (gpio_config).`,
        { details: { pin: g.pin, hazards } },
      );
    }
  }
}

/**
 * The set_state document, written so the firmware's scanner reads it as meant: quoted node names it
 * parses back to the same nodes, no net names (it ignores them).
 */
function stateDocument(nodes: readonly (readonly number[])[], keepProbePower: boolean): string {
  const nets = nodes.map((net) => `{"nodes":[${net.map((id) => `"${setStateNodeText(id)}"`).join(',')}]}`);
  // clear_first would drop the probe-power bridge BUFFER_IN-DAC0: it is sent first and gets its
  // duplicates 0 back after (state_put).
  if (keepProbePower) nets.unshift('{"nodes":["BUFFER_IN","DAC0"]}');
  return `{"nets":[${nets.join(',')}]}`;
}

/** What differs between the request (its nets as node ids) and the board after it. */
function compareState(nodes: readonly (readonly number[])[], after: StateDocument): string[] {
  const differences: string[] = [];
  for (const net of nodes) {
    const [first, ...rest] = net.map(shortName);
    if (first === undefined) continue;
    const home = netOfNode(after, first);
    for (const node of rest) {
      if (!home || netOfNode(after, node)?.index !== home.index)
        differences.push(`${first} and ${node} are not connected`);
    }
  }
  return differences;
}

interface Applied {
  state: StateDocument;
  differences: string[];
}

/** Check, `set_state` (the nets), re-read, compare; the change goes into the journal for undo. */
export async function applyState(
  board: BoardClient,
  doc: StateInput,
  clearFirst: boolean,
  tool: string,
  label: string,
): Promise<Applied> {
  const nodes = requestedNodes(doc);
  const bridges = bridgesOf(doc.nets);
  if (bridges > MAX_BRIDGES) {
    throw new ToolError(
      'too_many_bridges',
      `The nets ask for ${bridges} bridges (a net of n nodes takes n-1); the board holds at most ${MAX_BRIDGES}. Nothing was changed.`,
    );
  }
  const ram = await readRam(board);
  const probeInRequest = nodes.some((net) => net.includes(BUFFER_IN) || net.includes(DAC0));
  const hasProbePower = ram.bridges.some(([a, b]) => pairKey(a, b) === pairKey(BUFFER_IN, DAC0));
  const keepProbePower = clearFirst && hasProbePower && !probeInRequest;
  // Our own shape check of what we send (the board prints its reasons on the main port only).
  const text = stateDocument(nodes, keepProbePower);
  const pre = parseState(text);
  if (!pre.ok) throw new ToolError('bad_state', `The state is not valid: ${pre.error}.`);
  checkState(nodes, ram.state, clearFirst);
  const code = z
    .number()
    .parse(await board.call(py`_jlt.state_put(${text}, ${clearFirst}, ${keepProbePower})`));
  const after = await readRam(board);
  board.seen.delete('connections.bridges');
  const changed =
    bridgesMissing(ram.bridges, after.bridges).length + bridgesMissing(after.bridges, ram.bridges).length > 0;
  if (changed) {
    recordChange(board, {
      tool,
      label: `${tool} (${label})`,
      bridges: { before: ram.bridges, after: after.bridges },
      names: namesOf(ram.state),
    });
  }
  if (code !== 0) {
    throw new ToolError(
      'refused',
      `The firmware refused the state (set_state returned ${code}; it prints the reason on its main port).${changed ? ' It changed the wiring anyway: undo puts it back.' : ' Nothing was changed.'}`,
    );
  }
  // A bridge the crossbar had no lanes for stays in its net (so the state matches) but connects nothing.
  const unrouted = (await readBridges(board)).filter((b) => b.route === 'no_free_lanes');
  return { state: after.state, differences: [...compareState(nodes, after.state), ...unrouted.map(noLanes)] };
}

const noLanes = (b: BridgeView): string =>
  `bridge ${b.node1_name}-${b.node2_name} is in net ${b.net} but the crossbar has no free lanes for it: not connected`;

/** Functions applyState calls beyond set_state and the RAM state (the route of each bridge). */
export const APPLY_REQUIRES = ['get_path_between'] as const;

export const appliedOutput = z.object({
  applied: z.boolean(),
  differences: z.array(z.string()),
  nets: z.array(z.object({ name: z.string(), nodes: z.array(z.string()) })),
  power: stateDocumentSchema.shape.power,
});

export const summary = (a: Applied) => ({
  applied: a.differences.length === 0,
  differences: a.differences,
  nets: a.state.nets
    .filter((n) => n.index > 5 || n.nodes.length > 1)
    .map((n) => ({ name: n.name, nodes: n.nodes.map(asToolName) })),
  power: a.state.power,
});

/** Where what state_set once took goes now: said to a caller that still sends it. */
const ELSEWHERE = 'supplies: dac_set; GPIO: gpio_config; LED overlays: overlay_set';

export const stateSet = defineDeviceTool({
  name: 'state_set',
  title: 'Apply nets at once',
  description:
    'Wire nets (chains of nodes) at once; clear_first replaces all wiring, probe power kept. Refused on shorts. Set supplies first (dac_set).',
  group: 'state',
  kind: 'physical',
  capability: 'jumperless.wire',
  requires: ['set_state', 'connect', ...RAM_REQUIRES, ...APPLY_REQUIRES],
  // Strict: a section state_set once took (power, gpio, overlays, or the old `state` wrapper) is
  // refused with where it goes, never silently dropped.
  input: z.strictObject(
    {
      nets: netsInput.describe(`Nodes as in connect; ${TOO_MANY_BRIDGES}`),
      clear_first: z.boolean().default(true),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `state_set takes nets and clear_first, not ${issue.keys.join(', ')} (${ELSEWHERE})`
          : undefined,
    },
  ),
  output: appliedOutput,
  handle: async ({ nets, clear_first }, { board }) =>
    summary(
      await applyState(
        board,
        { nets },
        clear_first,
        'state_set',
        `${nets.length} net${nets.length === 1 ? '' : 's'}${clear_first ? ', the rest cleared' : ''}`,
      ),
    ),
});
