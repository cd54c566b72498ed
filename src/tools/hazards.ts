/**
 * Why a wiring request would damage the board, said so a person can act on it: which supplies it
 * would tie together and at what voltages, the physics of what happens then, and what to do
 * instead. Every wiring tool (connect, state_set, wokwi_import, slot and undo restores) refuses with
 * these words and applies nothing (DESIGN.md §4 "Tasks": a refused hazard applies nothing).
 *
 * A source is what holds a net at a voltage: GND, the two rails, the two DACs, the fixed 3.3 V, 5 V
 * and +-8 V supplies, the routable buffer's output, and a GPIO pin (which drives 0 or 3.3 V and must
 * never sit on a net a supply holds: the firmware forbids the GPIO-rail/DAC pairs, spec §8.3).
 */
import { GPIO_1, nodeInfo, parseShortName, shortName, UART_RX, UART_TX } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import { supplySource } from './boardState.js';

/** Setpoints of the programmable supplies, as `get_state()`'s power section gives them. */
export interface Setpoints {
  top_rail: number;
  bottom_rail: number;
  dac0: number;
  dac1: number;
}

/** One source a request would join: its name and, when the board knows it, its voltage. */
export interface Source {
  name: string;
  volts: number | null;
  kind: 'ground' | 'supply' | 'gpio';
}

/** A refused pair or net, with everything the refusal says. */
export interface Hazard {
  /** What was asked, e.g. `50-GND` or `net 2 of state_set`. */
  request: string;
  joins: Source[];
  why: string;
  instead: string;
}

/** The name a person knows a supply source by (supplySource gives short names). */
const SOURCE_NAMES: Readonly<Record<string, string>> = {
  GND: 'GND',
  TOP_R: 'TOP_RAIL',
  BOT_R: 'BOTTOM_RAIL',
  DAC_0: 'DAC0',
  DAC_1: 'DAC1',
  '3V3': '3V3',
  '5V': '5V',
  '8V_P': '+8V',
  '8V_N': '-8V',
  BUF_OUT: 'BUFFER_OUT',
};

const FIXED_VOLTS: Readonly<Record<string, number>> = { '3V3': 3.3, '5V': 5, '8V_P': 8, '8V_N': -8 };

/** The source a node is, if any: a supply (the three grounds are one), or a GPIO/UART pin. */
export function sourceOf(node: string | number, power?: Setpoints): Source | undefined {
  const id = typeof node === 'number' ? node : parseShortName(node);
  const supply = supplySource(id === undefined ? String(node) : shortName(id));
  if (supply !== undefined) {
    const name = SOURCE_NAMES[supply] ?? supply;
    return { name, volts: supplyVolts(supply, power), kind: supply === 'GND' ? 'ground' : 'supply' };
  }
  const info = id === undefined ? undefined : nodeInfo(id);
  if (info?.kind === 'gpio' || id === UART_TX || id === UART_RX) {
    const name =
      id === UART_TX ? 'UART_TX' : id === UART_RX ? 'UART_RX' : `GPIO_${(id ?? GPIO_1) - GPIO_1 + 1}`;
    return { name, volts: null, kind: 'gpio' };
  }
  return undefined;
}

function supplyVolts(supply: string, power: Setpoints | undefined): number | null {
  if (supply === 'GND') return 0;
  if (supply in FIXED_VOLTS) return FIXED_VOLTS[supply] ?? null;
  if (!power) return null;
  switch (supply) {
    case 'TOP_R':
      return power.top_rail;
    case 'BOT_R':
      return power.bottom_rail;
    case 'DAC_0':
    case 'BUF_OUT':
      // The routable buffer follows BUFFER_IN, which DAC0 feeds for the probe.
      return power.dac0;
    case 'DAC_1':
      return power.dac1;
    default:
      return null;
  }
}

/** The distinct sources among `nodes`, in order of first appearance. */
export function sourcesIn(nodes: ReadonlyArray<string | number>, power?: Setpoints): Source[] {
  const out: Source[] = [];
  for (const node of nodes) {
    const source = sourceOf(node, power);
    if (source && !out.some((s) => s.name === source.name)) out.push(source);
  }
  return out;
}

/** Whether these sources, on one net, would damage something. */
export function isHazard(sources: readonly Source[]): boolean {
  const supplies = sources.filter((s) => s.kind !== 'gpio');
  const gpio = sources.filter((s) => s.kind === 'gpio');
  return supplies.length > 1 || (gpio.length > 0 && supplies.some((s) => s.kind === 'supply'));
}

const volts = (v: number | null): string => (v === null ? 'its setpoint' : `${round(v)} V`);
const round = (v: number): number => Math.round(v * 100) / 100;
const named = (s: Source): string => (s.kind === 'gpio' ? s.name : `${s.name} (${volts(s.volts)})`);

/**
 * The crossbar path between two joined supplies: two or three switch paths of about 80 ohm in
 * parallel per bridge (spec §8.2), so tens of ohms in all.
 */
const PATH_OHMS_ESTIMATE = 40;

/** What joining these sources does, in physical terms. */
function physics(sources: readonly Source[]): string {
  const supplies = sources.filter((s) => s.kind !== 'gpio');
  const gpio = sources.find((s) => s.kind === 'gpio');
  if (supplies.length > 1) {
    const [a, b] = supplies as [Source, Source];
    const difference = a.volts !== null && b.volts !== null ? Math.abs(a.volts - b.volts) : null;
    const current =
      difference !== null && difference > 0.05
        ? `, ${round(difference)} V across some ${PATH_OHMS_ESTIMATE} ohms: over ${Math.round((difference / PATH_OHMS_ESTIMATE) * 1000)} mA`
        : '';
    return (
      `A short circuit: the two would fight through nothing but crossbar switches${current}, in switches rated for a few tens of mA. ` +
      'The crosspoints overheat and fail, and the supply amplifiers overload.' +
      (difference !== null && difference <= 0.05
        ? ' Equal setpoints do not make it safe: two supplies never agree exactly, and the difference drives a large current.'
        : '')
    );
  }
  const supply = supplies.find((s) => s.kind === 'supply') as Source;
  return (
    `${gpio?.name} drives 0 V or 3.3 V: on a net ${supply.name} holds, the pin would fight the supply through tens of ohms ` +
    '(tens of mA into a pin rated for a few), which burns its driver.'
  );
}

/** What to do instead, for what the request probably meant. */
function saferWay(sources: readonly Source[], via: string | undefined): string {
  const supplies = sources.filter((s) => s.kind !== 'gpio');
  const gpio = sources.find((s) => s.kind === 'gpio');
  if (gpio) {
    const supply = supplies.find((s) => s.kind === 'supply');
    return (
      `To read ${supply?.name}'s voltage, use voltage_measure; to let ${gpio.name} drive or read a circuit, ` +
      'bridge it to a row no supply is on, with the part (e.g. a resistor of 1 kohm or more) between that row and the supply.'
    );
  }
  const ground = supplies.find((s) => s.kind === 'ground');
  const other = supplies.find((s) => s.kind === 'supply' && s !== ground) ?? supplies[1];
  if (ground && other) {
    return (
      `To power a part from ${other.name} to GND, put the part across two rows: bridge one row to ${other.name} and another to GND, ` +
      `with the part (e.g. a resistor, or an LED with its resistor) between them${via ? `, instead of both on ${via}` : ''}. ` +
      `To switch ${other.name} off, set it to 0 V with dac_set.`
    );
  }
  const [a, b] = supplies as [Source, Source];
  return (
    `Give each supply its own row and put the part between those rows; to have the same voltage on both nets, ` +
    `set ${a.name} and ${b.name} to it with dac_set, each on its own net.`
  );
}

/** The hazard of joining `sources` (already known to be one), for a request. */
export function hazard(request: string, sources: readonly Source[], via?: string): Hazard {
  return { request, joins: [...sources], why: physics(sources), instead: saferWay(sources, via) };
}

/** One sentence per hazard: the request, what it joins, why that damages the board, what to do. */
export function describeHazard(h: Hazard): string {
  const joined = h.joins.map(named).join(' and ');
  return `${h.request} would join ${joined}. ${h.why} ${h.instead}`;
}

/**
 * The refusal of a wiring request with hazards: nothing applied, each refused pair or net named
 * with what it joins, why that damages the board, and the safe way to do what was probably meant.
 */
export function refuseHazards(what: string, hazards: readonly Hazard[]): ToolError {
  const list = hazards.map(describeHazard).join(' ');
  return new ToolError('unsafe_short', `Refused ${what}; nothing was changed. ${list}`, {
    details: {
      refused: hazards.map((h) => ({
        request: h.request,
        joins: h.joins.map((s) => ({ source: s.name, volts: s.volts })),
      })),
    },
  });
}

/** The hazards of whole nets (groups of node names), as state_set and the restores route them. */
export function netHazards(nets: readonly (readonly string[])[], power?: Setpoints): Hazard[] {
  return nets.flatMap((nodes) => {
    const sources = sourcesIn(nodes, power);
    if (!isHazard(sources)) return [];
    const rows = nodes.filter((n) => sourceOf(n) === undefined);
    return [hazard(`the net ${nodes.join(', ')}`, sources, rows.length > 0 ? `row ${rows[0]}` : undefined)];
  });
}
