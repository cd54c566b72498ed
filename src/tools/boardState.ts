/**
 * The board's state as tools read it (`get_state()`, spec §7), and the questions several groups ask
 * of it: which net a GPIO sits on, what drives that net, whether two nodes share a net.
 */
import { z } from 'zod';
import {
  BOTTOM_RAIL,
  BOTTOM_RAIL_GND,
  BUFFER_OUT,
  DAC0,
  DAC1,
  GND,
  parseShortName,
  SUPPLY_3V3,
  SUPPLY_5V,
  SUPPLY_8V_N,
  SUPPLY_8V_P,
  shortName,
  TOP_RAIL,
  TOP_RAIL_GND,
} from '../board/nodes.js';
import type { BoardCallOptions, BoardClient } from './boardClient.js';
import { ToolError } from './tool.js';

const stateNet = z.object({
  index: z.number(),
  name: z.string(),
  nodes: z.array(z.string()),
  special: z.string(),
  voltage: z.number().optional(),
  logic: z.number().optional(),
});

const stateGpio = z.object({
  pin: z.union([z.number(), z.string()]),
  net: z.number().nullable(),
  function: z.string(),
  direction: z.string(),
  pull: z.string(),
  reading: z.string(),
  floating_read: z.number(),
});

const stateOverlay = z.object({
  name: z.string(),
  row: z.number(),
  col: z.number(),
  width: z.number(),
  height: z.number(),
  colors: z.array(z.string()),
});

/** The §7 document, as loose as the firmware's variants need. */
export const boardStateSchema = z.object({
  power: z.object({ top_rail: z.number(), bottom_rail: z.number(), dac0: z.number(), dac1: z.number() }),
  nets: z.array(stateNet),
  gpio: z.array(stateGpio).default([]),
  overlays: z.array(stateOverlay).default([]),
});
export type ToolBoardState = z.infer<typeof boardStateSchema>;
export type ToolStateNet = z.infer<typeof stateNet>;

/** Reads and parses `get_state()`; also returns the text (for snapshots). */
export async function readState(
  board: BoardClient,
  options?: BoardCallOptions,
): Promise<{ state: ToolBoardState; text: string }> {
  const text = await board.call<unknown>('get_state()', options);
  if (typeof text !== 'string') throw new ToolError('bad_state', 'get_state() did not return text.');
  return { state: parseStateText(text), text };
}

export function parseStateText(text: string): ToolBoardState {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ToolError('bad_state', `get_state() returned invalid JSON: ${(error as Error).message}`);
  }
  const parsed = boardStateSchema.safeParse(doc);
  if (!parsed.success) {
    throw new ToolError(
      'bad_state',
      `get_state() returned an unexpected shape: ${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

/** Nodes that are (or tie to) a power source: a GPIO output on their net fights it (DESIGN.md §4). */
export const SUPPLY_NODES: readonly number[] = [
  GND,
  TOP_RAIL,
  BOTTOM_RAIL,
  SUPPLY_3V3,
  TOP_RAIL_GND,
  SUPPLY_5V,
  DAC0,
  DAC1,
  SUPPLY_8V_P,
  SUPPLY_8V_N,
  BOTTOM_RAIL_GND,
  BUFFER_OUT,
];
const SUPPLY_SHORT = new Set(SUPPLY_NODES.map((id) => shortName(id).toUpperCase()));
/** Nets 1-5 are GND, Top Rail, Bottom Rail, DAC 0 and DAC 1 (spec §7). */
const LAST_SPECIAL_NET = 5;

/** A node's canonical short name (`GP_1`, `TOP_R`, `12`), from any name the board accepts. */
export function canonicalNode(name: string): string | undefined {
  const id = parseShortName(name);
  return id === undefined ? undefined : shortName(id).toUpperCase();
}

export function netOfNode(state: ToolBoardState, name: string): ToolStateNet | undefined {
  const key = canonicalNode(name) ?? name.toUpperCase();
  return state.nets.find((net) => net.nodes.some((n) => (canonicalNode(n) ?? n.toUpperCase()) === key));
}

/** The node a `gpio_*` pin number (1-10) stands for. */
export function gpioPinNode(pin: number): string {
  if (pin === 9) return 'UART_Tx';
  if (pin === 10) return 'UART_Rx';
  return `GP_${pin}`;
}

const gpioStateId = (pin: number): number | string => (pin === 9 ? 'TX' : pin === 10 ? 'RX' : pin);
const gpioStateNode = (id: number | string): string =>
  id === 'TX' ? 'UART_Tx' : id === 'RX' ? 'UART_Rx' : `GP_${id}`;

/**
 * Why driving `pin` as an output would fight something already on its net: a supply (rail, DAC,
 * GND, the routable buffer's output) or another output. Empty when the pin is free to drive.
 * The board cannot see external wires (spec §8.3), so this covers only what it routed.
 */
export function driveHazards(state: ToolBoardState, pin: number): string[] {
  const net = netOfNode(state, gpioPinNode(pin));
  if (!net) return [];
  const hazards: string[] = [];
  if (net.index <= LAST_SPECIAL_NET) hazards.push(`it is on the supply net "${net.name}"`);
  const supplies = net.nodes.filter((n) => SUPPLY_SHORT.has(canonicalNode(n) ?? n.toUpperCase()));
  if (supplies.length > 0 && net.index > LAST_SPECIAL_NET) {
    hazards.push(`its net "${net.name}" holds ${supplies.join(', ')}`);
  }
  const self = gpioStateId(pin);
  for (const other of state.gpio) {
    if (other.pin === self || other.direction !== 'OUTPUT') continue;
    if (netOfNode(state, gpioStateNode(other.pin))?.index === net.index) {
      hazards.push(`${gpioStateNode(other.pin)} drives the same net as an output`);
    }
  }
  return hazards;
}

/** Throws `unsafe_drive` when `pin` may not become an output. */
export function assertCanDrive(state: ToolBoardState, pin: number, action: string): void {
  const hazards = driveHazards(state, pin);
  if (hazards.length === 0) return;
  throw new ToolError(
    'unsafe_drive',
    `Refusing to ${action}: ${gpioPinNode(pin)} would fight a driven net (${hazards.join('; ')}). Disconnect it first.`,
    { details: { pin, hazards } },
  );
}

/** Groups of nodes that share a net (canonical names, sorted), for comparing states. */
export function connectivity(state: ToolBoardState): string[][] {
  return state.nets
    .map((net) => net.nodes.map((n) => canonicalNode(n) ?? n.toUpperCase()).sort())
    .filter((nodes) => nodes.length > 1)
    .sort((a, b) => (a.join(',') < b.join(',') ? -1 : 1));
}

/** The source a supply node stands for: the three grounds are one, every other supply its own. */
export function supplySource(name: string): string | undefined {
  const key = canonicalNode(name) ?? name.toUpperCase();
  if (!SUPPLY_SHORT.has(key)) return undefined;
  return key === 'TOP_GND' || key === 'BOT_GND' ? 'GND' : key;
}

/** Messages for groups of connected nodes that would tie two different sources together. */
export function supplyShorts(groups: readonly (readonly string[])[]): string[] {
  return groups.flatMap((group) => {
    const sources = [...new Set(group.map(supplySource).filter((s): s is string => s !== undefined))];
    return sources.length > 1
      ? [`${sources.join(' and ')} would be joined (through ${group.join(', ')})`]
      : [];
  });
}

const canonicalKey = (n: string): string => canonicalNode(n) ?? n.toUpperCase();

/** Merges groups of names that share a member, as routing them would (canonical node names by default). */
export function mergeGroups(
  groups: readonly (readonly string[])[],
  key: (name: string) => string = canonicalKey,
): string[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root) as string;
    parent.set(x, root);
    return root;
  };
  for (const group of groups) {
    const names = group.map(key);
    for (const name of names) if (!parent.has(name)) parent.set(name, name);
    for (const name of names.slice(1)) parent.set(find(name), find(names[0] as string));
  }
  const merged = new Map<string, string[]>();
  for (const name of parent.keys()) {
    const root = find(name);
    merged.set(root, [...(merged.get(root) ?? []), name]);
  }
  return [...merged.values()].map((g) => g.sort());
}
