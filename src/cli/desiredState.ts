/**
 * A declared board state for a lab (issue 26 item 3): a JSON file of supplies, nets, GPIO and LED
 * overlays; its differences from the board; the tool calls that apply it; and a fingerprint of the
 * board's state that two boards (or one board before and after a job) share exactly when they match.
 *
 * A declaration is whole: what it leaves out is as at power-on (pins 1-8 inputs with the pull-down,
 * no overlays, no wiring but the probe power). Applying it goes through the catalog tools, each
 * checking and verifying its own part, so a lab job's baseline gets the same refusals as a model.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DEFAULT_POWER } from '../board/limits.js';
import { isBridgeable, parseShortName, shortName } from '../board/nodes.js';
import { canonicalNode, mergeGroups, type StateSummary } from '../tools/boardState.js';

const volts = z.number().min(-8).max(8);
const PULLS = { PULLUP: 'up', PULLDOWN: 'down', NO_PULL: 'none', BUS_KEEPER: 'keeper' } as const;

export const desiredStateSchema = z.strictObject({
  supplies: z
    .strictObject({
      top_rail: volts.default(DEFAULT_POWER.topRail),
      bottom_rail: volts.default(DEFAULT_POWER.bottomRail),
      dac0: volts.default(DEFAULT_POWER.dac0),
      dac1: volts.default(DEFAULT_POWER.dac1),
    })
    .prefault({}),
  nets: z.array(z.array(z.union([z.string(), z.number()])).min(2)).default([]),
  gpio: z
    .array(
      z.strictObject({
        pin: z.number().int().min(1).max(8),
        direction: z.enum(['INPUT', 'OUTPUT']),
        level: z.enum(['HIGH', 'LOW']).optional(),
        pull: z.enum(Object.keys(PULLS) as [keyof typeof PULLS]).optional(),
      }),
    )
    .default([]),
  overlays: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        x_col: z.number().int(),
        y_row: z.number().int(),
        width: z.number().int(),
        height: z.number().int(),
        color: z.string().regex(/^#[0-9a-fA-F]{6}$/),
      }),
    )
    .default([]),
});
export type DesiredState = z.infer<typeof desiredStateSchema>;

/** Parses a declaration file's text; the error names the field. */
export function parseDesiredState(text: string): DesiredState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const parsed = desiredStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || 'the document'}: ${issue?.message}`);
  }
  for (const net of parsed.data.nets) for (const node of net) nodeKey(node);
  const pins = parsed.data.gpio.map((g) => g.pin);
  const twice = pins.find((pin, i) => pins.indexOf(pin) !== i);
  if (twice !== undefined) throw new Error(`gpio: pin ${twice} is declared twice`);
  return parsed.data;
}

/** A node as get_state names it, upper-cased: a declared row or name and the board's agree. */
function nodeKey(node: string | number): string {
  const id = typeof node === 'number' ? node : parseShortName(node);
  if (id === undefined || !isBridgeable(id)) throw new Error(`nets: unknown node ${JSON.stringify(node)}`);
  return shortName(id).toUpperCase();
}
const boardKey = (name: string): string => canonicalNode(name) ?? name.toUpperCase();

/** The probe's power (BUFFER_IN on DAC0): state_set with clear_first keeps it, so a declaration need not. */
const PROBE_POWER = [boardKey('DAC0'), boardKey('BUFFER_IN')].sort().join(',');

/** Nets of two or more nodes, each a sorted list, in sorted order: numbering and key order drop out. */
function netKeys(nets: readonly (readonly string[])[]): string[] {
  return mergeGroups(nets, (n) => n)
    .filter((net) => net.length > 1)
    .map((net) => [...net].sort().join(','))
    .filter((net) => net !== PROBE_POWER)
    .sort();
}

interface PinView {
  direction: string;
  pull?: string;
  level?: string;
}

/**
 * What a pin 1-8 is, in the terms a declaration uses; an input's reading is the circuit's, not state.
 * A pin state_get leaves out is as at power-on: an input with the pull-down.
 */
function boardPins(state: StateSummary): Map<number, PinView> {
  const pins = new Map<number, PinView>();
  for (let pin = 1; pin <= 8; pin++) pins.set(pin, { direction: 'INPUT', pull: 'down' });
  for (const g of state.gpio) {
    const pin = Number(g.pin);
    if (!Number.isInteger(pin) || pin < 1 || pin > 8) continue;
    const direction = g.direction.toUpperCase();
    pins.set(
      pin,
      direction === 'OUTPUT'
        ? { direction, level: g.reading.toUpperCase() }
        : { direction, pull: g.pull.toLowerCase() },
    );
  }
  return pins;
}

function declaredPins(doc: DesiredState): Map<number, PinView> {
  const pins = new Map<number, PinView>();
  for (let pin = 1; pin <= 8; pin++) pins.set(pin, { direction: 'INPUT', pull: 'down' });
  for (const g of doc.gpio) {
    pins.set(
      g.pin,
      g.direction === 'OUTPUT'
        ? { direction: 'OUTPUT', level: g.level ?? 'LOW' }
        : { direction: 'INPUT', pull: PULLS[g.pull ?? 'PULLDOWN'] },
    );
  }
  return pins;
}

const pinText = (p: PinView | undefined): string =>
  p === undefined ? 'not listed' : p.direction === 'OUTPUT' ? `OUTPUT ${p.level}` : `INPUT pull ${p.pull}`;

const overlayText = (o: {
  name: string;
  col: number;
  row: number;
  width: number;
  height: number;
  color?: string;
}) =>
  `${o.name} ${o.width}x${o.height} at column ${o.col}, row ${o.row} ${o.color?.toLowerCase() ?? 'several colours'}`;

/** The parts of a state that a fingerprint and a diff compare, each a line of text. */
interface Canonical {
  supplies: Record<'top_rail' | 'bottom_rail' | 'dac0' | 'dac1', string>;
  nets: string[];
  gpio: string[];
  overlays: string[];
}

const supplyText = (v: number): string => (Math.round(v * 100) / 100).toFixed(2);

function canonicalBoard(state: StateSummary): Canonical {
  const { power } = state;
  return {
    supplies: {
      top_rail: supplyText(power.top_rail),
      bottom_rail: supplyText(power.bottom_rail),
      dac0: supplyText(power.dac0),
      dac1: supplyText(power.dac1),
    },
    nets: netKeys(state.nets.map((n) => n.nodes.map(boardKey))),
    gpio: [...boardPins(state)].sort(([a], [b]) => a - b).map(([pin, p]) => `${pin} ${pinText(p)}`),
    overlays: state.overlays.map(overlayText).sort(),
  };
}

function canonicalDeclared(doc: DesiredState): Canonical {
  const s = doc.supplies;
  return {
    supplies: {
      top_rail: supplyText(s.top_rail),
      bottom_rail: supplyText(s.bottom_rail),
      dac0: supplyText(s.dac0),
      dac1: supplyText(s.dac1),
    },
    nets: netKeys(doc.nets.map((net) => net.map(nodeKey))),
    gpio: [...declaredPins(doc)].map(([pin, p]) => `${pin} ${pinText(p)}`),
    overlays: doc.overlays
      .map((o) =>
        overlayText({
          name: o.name,
          col: o.x_col,
          row: o.y_row,
          width: o.width,
          height: o.height,
          color: o.color,
        }),
      )
      .sort(),
  };
}

const hash = (c: Canonical): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        c.supplies.top_rail,
        c.supplies.bottom_rail,
        c.supplies.dac0,
        c.supplies.dac1,
        c.nets,
        c.gpio,
        c.overlays,
      ]),
    )
    .digest('hex')
    .slice(0, 16);

/** 16 hex digits of the board's state: supplies, nets (as sets of nodes), pins 1-8, overlays. */
export const boardFingerprint = (state: StateSummary): string => hash(canonicalBoard(state));
/** The fingerprint a board has once the declaration is applied to it. */
export const declaredFingerprint = (doc: DesiredState): string => hash(canonicalDeclared(doc));

/** What the board has that the declaration does not, and the other way round, one line each. */
export function diffState(doc: DesiredState, state: StateSummary): string[] {
  const want = canonicalDeclared(doc);
  const have = canonicalBoard(state);
  const lines: string[] = [];
  for (const key of ['top_rail', 'bottom_rail', 'dac0', 'dac1'] as const) {
    if (want.supplies[key] !== have.supplies[key])
      lines.push(`supply ${key}: ${have.supplies[key]} V on the board, ${want.supplies[key]} V declared`);
  }
  for (const net of want.nets)
    if (!have.nets.includes(net)) lines.push(`net ${net}: declared, not on the board`);
  for (const net of have.nets)
    if (!want.nets.includes(net)) lines.push(`net ${net}: on the board, not declared`);
  const havePins = boardPins(state);
  for (const [pin, p] of declaredPins(doc)) {
    const now = havePins.get(pin);
    if (pinText(now) !== pinText(p))
      lines.push(`gpio ${pin}: ${pinText(now)} on the board, ${pinText(p)} declared`);
  }
  for (const o of want.overlays)
    if (!have.overlays.includes(o)) lines.push(`overlay ${o}: declared, not on the board`);
  for (const o of have.overlays)
    if (!want.overlays.includes(o)) lines.push(`overlay ${o}: on the board, not declared`);
  return lines;
}

/** A catalog tool call; `apply` runs them in order. */
export interface Step {
  tool: string;
  args: Record<string, unknown>;
}

/**
 * The calls that make the board the declaration: outputs released first (so no rewiring puts one on
 * a driven net), supplies before the wiring that carries them, the wiring replaced whole (the probe
 * power kept), then the declared pins and overlays.
 */
export function applySteps(doc: DesiredState, state: StateSummary): Step[] {
  const steps: Step[] = [];
  const pins = boardPins(state);
  const declared = declaredPins(doc);
  for (const [pin, p] of pins) {
    if (p.direction === 'OUTPUT')
      steps.push({ tool: 'gpio_config', args: { pin, direction: 'INPUT', pull: 'PULLDOWN' } });
  }
  const channels = { top_rail: 'TOP_RAIL', bottom_rail: 'BOTTOM_RAIL', dac0: 'DAC0', dac1: 'DAC1' } as const;
  for (const key of Object.keys(channels) as (keyof typeof channels)[]) {
    if (supplyText(state.power[key]) !== supplyText(doc.supplies[key]))
      steps.push({ tool: 'dac_set', args: { channel: channels[key], volts: doc.supplies[key] } });
  }
  steps.push({ tool: 'state_set', args: { nets: doc.nets, clear_first: true } });
  for (const [pin, want] of declared) {
    const now = pins.get(pin);
    if (want.direction === 'OUTPUT') {
      steps.push({ tool: 'gpio_config', args: { pin, direction: 'OUTPUT', level: want.level } });
    } else if (now?.direction === 'OUTPUT' || pinText(now) !== pinText(want)) {
      // An output released above is an input with the pull-down now: a declared other pull still needs its call.
      const pull = (Object.keys(PULLS) as (keyof typeof PULLS)[]).find((k) => PULLS[k] === want.pull);
      steps.push({ tool: 'gpio_config', args: { pin, direction: 'INPUT', pull } });
    }
  }
  steps.push({ tool: 'overlay_clear', args: {} });
  for (const o of doc.overlays) steps.push({ tool: 'overlay_set', args: { ...o } });
  return steps;
}
