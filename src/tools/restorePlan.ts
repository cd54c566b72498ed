/**
 * The plan to restore a whole board state, as the slot tools restore it and compare with it: a
 * target (what a slot file holds), how it differs from the board, and the jobs that put it there.
 * The firmware 5.7.0.13 has no call that loads a slot (switch_slot only renumbers,
 * JumperlessMicroPythonAPI.cpp:1559-1585) and its set_state drops duplicates, names and
 * colours (JsonState.cpp:473-567), so a target is put on the board call by call: one job clears,
 * makes every bridge with its duplicates, the supplies, names and colours, sets GPIO through
 * set_state's gpio section (which it reads as meant) and removes the overlays; then one job per
 * overlay (overlay_set, as set_state's overlays section does for each), and the save. Eight full
 * overlays are 22 KB as a set_state document: in one job with the rest, the board would hold that
 * text twice (the code received, the string compiled from it) next to the bridges and names, more
 * than the 58 KB a board without PSRAM has free.
 */
import { Connections, pairKey } from '../board/connections.js';
import { shortName } from '../board/nodes.js';
import type { SlotData, SlotPower } from '../board/slots.js';
import type { GpioPullName, OverlayInput } from '../board/state.js';
import type { BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import {
  customNetName,
  driveHazards,
  RAM_REQUIRES,
  type RamState,
  type StateDocument,
} from './boardState.js';
import { netHazards, refuseHazards } from './hazards.js';
import type { PythonPart } from './pythonParts.js';
import { checkVolts, type SafetyPolicy } from './safety.js';

/** Firmware functions `putTarget` (and its read-back) use. */
export const RESTORE_REQUIRES = [
  'nodes_clear',
  'pwm',
  'pwm_stop',
  'gpio_get_dir',
  'connect',
  'dac_set',
  'set_net_name',
  'set_net_color',
  'set_state',
  'overlay_clear_all',
  'overlay_set',
  'nodes_save',
  ...RAM_REQUIRES,
] as const;

/** Board-side helpers, inside `_jlt` (`net_looks` reads back with the RAM part's `ram`). */
export const restorePlanPython: PythonPart = {
  name: 'restorePlan',
  source: `
def image_put(s, br, pw, nm, co, st, keep):
    if s is not None:
        switch_slot(s)
    for p in range(1, 9):
        if p not in keep:
            pwm_stop(p)
    nodes_clear()
    for i in range(60):
        set_net_name(i, None)
    for a, b, d in br:
        connect(a, b, d)
    for c, v in pw:
        dac_set(c, v)
    for i, t in nm:
        set_net_name(i, t)
    for i, c in co:
        set_net_color(i, c)
    overlay_clear_all()
    return set_state(st, False)
def image_pwm(ps):
    out = []
    for p, f, d in ps:
        try:
            pwm(p, f, d)
            out.append(str(gpio_get_dir(p)) == 'OUTPUT' or f >= 10)
        except Exception:
            out.append(False)
    return out
def net_looks(nm, co):
    for i, t in nm:
        set_net_name(i, t)
    for i, c in co:
        set_net_color(i, c)
    return _jlt.ram()
`,
};

// ---- what a slot file or a snapshot puts on the board, and how the board differs from it ----

type Bridge = readonly [number, number, number];

export interface PwmSetting {
  readonly pin: number;
  readonly frequency: number;
  readonly duty: number;
}

export interface PinSetting {
  readonly pin: number;
  readonly direction: 'INPUT' | 'OUTPUT';
  readonly pull: GpioPullName;
  readonly floating: 0 | 1;
}

/** A whole board state to restore and compare with: what a slot file holds, or a snapshot. */
export interface Target {
  readonly bridges: readonly Bridge[];
  readonly power: SlotPower;
  /** Custom net names by net number. */
  readonly names: ReadonlyMap<number, string>;
  /** Net colours by net number: the user colours of a slot file, every colour of a snapshot. */
  readonly colors: ReadonlyMap<number, number | string>;
  /** GPIO_1..8. */
  readonly gpio: readonly PinSetting[];
  /** Pins whose PWM the file has enabled (their pads are not compared). */
  readonly pwmPins: ReadonlySet<number>;
  /** The PWM a slot file has running, to start again. */
  readonly pwm: readonly PwmSetting[];
  readonly overlays: readonly OverlayInput[];
  /** A slot file names only nets of two or more nodes; a snapshot knows every net's name. */
  readonly namesOfAllNets: boolean;
}

/** Every PWM pin, as the PWM a restore keeps running when it leaves PWM alone. */
const _ALL_PWM_PINS: readonly PwmSetting[] = Array.from({ length: 8 }, (_, i) => ({
  pin: i + 1,
  frequency: 1,
  duty: 0.5,
}));

const PULL_OF_CODE: readonly GpioPullName[] = ['down', 'up', 'none', 'keeper'];

export function targetOfSlot(slot: SlotData): Target {
  const g = slot.config.gpio;
  return {
    bridges: slot.bridges.map((b) => [b.n1, b.n2, b.dup] as const),
    power: slot.power,
    names: new Map(slot.nets.filter((n) => n.name).map((n) => [n.num, n.name as string])),
    // Loading restores a colour only when the user set it (States.cpp:1804-1818).
    colors: new Map(slot.nets.filter((n) => n.user && n.color).map((n) => [n.num, n.color as string])),
    gpio: Array.from({ length: 8 }, (_, i) => ({
      pin: i + 1,
      direction: g.direction[i] === 0 ? 'OUTPUT' : 'INPUT',
      pull: PULL_OF_CODE[g.pulls[i] ?? 2] ?? 'none',
      floating: (g.readFloating[i] ?? 0) === 0 ? 0 : 1,
    })),
    pwmPins: new Set(g.pwmEnabled.flatMap((on, i) => (on && i < 8 ? [i + 1] : []))),
    pwm: g.pwmEnabled.flatMap((on, i) =>
      on && i < 8 ? [{ pin: i + 1, frequency: g.pwmFrequency[i] ?? 1, duty: g.pwmDutyCycle[i] ?? 0.5 }] : [],
    ),
    overlays: slot.overlays,
    namesOfAllNets: false,
  };
}

const bridgeName = (a: number, b: number): string => `${shortName(a)}-${shortName(b)}`;
const POWER_FIELDS = [
  ['topRail', 'top_rail'],
  ['bottomRail', 'bottom_rail'],
  ['dac0', 'dac0'],
  ['dac1', 'dac1'],
] as const;
/** Slot files keep two decimals, get_state prints three. */
const POWER_TOLERANCE = 0.006;
const overlayKey = (o: OverlayInput): string =>
  `${o.name}@${o.row},${o.col} ${o.width}x${o.height}:${Array.from({ length: o.width * o.height }, (_, i) => ((o.colors[i] ?? 0) & 0xffffff).toString(16)).join(',')}`;

/** How the board differs from the target, one sentence each (board first, then the target). */
export function differences(target: Target, ram: RamState, where: string): string[] {
  const out: string[] = [];
  const want = new Map(target.bridges.map(([a, b, d]) => [pairKey(a, b), { a, b, d }]));
  const have = new Map(ram.bridges.map(([a, b, d]) => [pairKey(a, b), { a, b, d }]));
  for (const [key, x] of have) {
    const w = want.get(key);
    if (!w) out.push(`bridge ${bridgeName(x.a, x.b)} is on the board but not in ${where}`);
    else if (w.d !== x.d) {
      out.push(`bridge ${bridgeName(x.a, x.b)} has ${x.d} duplicates on the board, ${w.d} in ${where}`);
    }
  }
  for (const [key, w] of want) {
    if (!have.has(key)) out.push(`bridge ${bridgeName(w.a, w.b)} is in ${where} but not on the board`);
  }
  for (const [key, jsonKey] of POWER_FIELDS) {
    const got = ram.state.power[jsonKey];
    const v = target.power[key];
    if (Math.abs(got - v) > POWER_TOLERANCE)
      out.push(`${jsonKey} is ${got} V on the board, ${v} V in ${where}`);
  }
  for (const net of ram.state.nets) {
    if (!target.namesOfAllNets && net.nodes.length < 2) continue;
    const got = customNetName(net);
    // get_state trims names (JsonState.cpp:100).
    const w = target.names.get(net.index)?.trim() || undefined;
    if (got !== w) {
      out.push(
        `net ${net.index} is ${got === undefined ? 'unnamed' : `named "${got}"`} on the board, ${w === undefined ? 'unnamed' : `"${w}"`} in ${where}`,
      );
    }
  }
  for (const [index, c] of target.colors) {
    // A slot file records a user colour by the name the board keeps with it (get_net_color_name);
    // a snapshot by its value.
    const same =
      typeof c === 'string'
        ? ram.colorNames[index] === undefined ||
          ram.colorNames[index]?.trim().toLowerCase() === c.trim().toLowerCase()
        : ram.colors[index] === undefined || ((ram.colors[index] as number) & 0xffffff) === (c & 0xffffff);
    if (!same) out.push(`net ${index} has another colour on the board than in ${where}`);
  }
  for (const p of target.gpio) {
    const got = ram.state.gpio.find((g) => g.pin === p.pin);
    // A PWM pin's pad belongs to the PWM (setGPIO skips it, Peripherals.cpp:707-711).
    if (!got || got.function === 'PWM' || target.pwmPins.has(p.pin)) continue;
    if (got.direction !== p.direction) {
      out.push(`GPIO ${p.pin} is ${got.direction} on the board, ${p.direction} in ${where}`);
    }
    // Reading a bus-keeper pin leaves only its pull-up (Peripherals.cpp:797-800, 883-884).
    if (got.pull !== p.pull && !(p.pull === 'keeper' && got.pull === 'up')) {
      out.push(`GPIO ${p.pin} pull is ${got.pull} on the board, ${p.pull} in ${where}`);
    }
    if (got.floating_read !== p.floating) {
      out.push(`GPIO ${p.pin} floating_read is ${got.floating_read} on the board, ${p.floating} in ${where}`);
    }
  }
  const wantOverlays = target.overlays.map(overlayKey).sort();
  const haveOverlays = ram.state.overlays
    .map((o) => overlayKey({ ...o, colors: o.colors.map((c) => Number.parseInt(c, 16) >>> 0) }))
    .sort();
  if (wantOverlays.join('|') !== haveOverlays.join('|')) out.push(`the overlays differ from ${where}`);
  return out;
}

export interface Plan {
  readonly target: Target;
  /** GPIO settings actually sent (outputs that would fight a driven net stay inputs). */
  readonly gpio: readonly PinSetting[];
  /** PWM started after the wiring (a pin on a driven net is left stopped). */
  readonly pwm: readonly PwmSetting[];
  readonly notes: string[];
}

/** The nets the bridges make, routed by the firmware's rules, as a StateDocument to check. */
function predictedState(target: Target, gpio: readonly PinSetting[]): StateDocument {
  const conns = new Connections();
  for (const [a, b, d] of target.bridges) conns.connect(a, b, d);
  return {
    power: { top_rail: 0, bottom_rail: 0, dac0: 0, dac1: 0 },
    nets: conns
      .nets()
      .map((n) => ({ index: n.index, name: n.name, nodes: n.nodes.map(shortName), special: n.special })),
    gpio: gpio.map((p) => ({
      pin: p.pin,
      net: null,
      function: 'SIO',
      direction: p.direction,
      pull: p.pull,
      reading: 'unknown',
      floating_read: p.floating,
    })),
    overlays: [],
  };
}

/** Refuses a target outside the voltage policy or joining two supplies; keeps fighting outputs as inputs. */
export function planTarget(target: Target, safety: SafetyPolicy, what: string): Plan {
  for (const [key, jsonKey] of POWER_FIELDS) checkVolts(safety, target.power[key], `${what} ${jsonKey}`);
  const predicted = predictedState(target, target.gpio);
  const power = {
    top_rail: target.power.topRail,
    bottom_rail: target.power.bottomRail,
    dac0: target.power.dac0,
    dac1: target.power.dac1,
  };
  const hazards = netHazards(
    predicted.nets.map((n) => n.nodes),
    power,
  );
  if (hazards.length > 0) throw refuseHazards(what, hazards);
  const notes: string[] = [];
  const gpio = target.gpio.map((p) => {
    if (p.direction !== 'OUTPUT') return p;
    const hazards = driveHazards(predicted, p.pin);
    if (hazards.length === 0) return p;
    notes.push(`GPIO ${p.pin} stays an INPUT instead of an OUTPUT: ${hazards.join('; ')}`);
    return { ...p, direction: 'INPUT' as const };
  });
  const pwm = target.pwm.filter((p) => {
    const hazards = driveHazards(predicted, p.pin);
    if (hazards.length === 0) return true;
    notes.push(`PWM on GPIO ${p.pin} is not started: ${hazards.join('; ')}`);
    return false;
  });
  return { target, gpio, pwm, notes };
}

/**
 * Characters that break get_state's JSON (JsonState.cpp:29-35), or any set_state document that
 * carries the name, as its scanner counts brackets inside names too (JsonState.cpp:321-381).
 */
const SCANNER_BREAKERS = /["\\[\]{}]/;

/** The gpio section of a set_state document. */
function gpioDocument(gpio: readonly PinSetting[]): string {
  const pins = gpio.map(
    (p) => `{"pin":${p.pin},"direction":"${p.direction}","pull":"${p.pull}","floating_read":${p.floating}}`,
  );
  return `{"gpio":[${pins.join(',')}]}`;
}

/**
 * Sets overlays one job each (the caller has removed the others), as set_state's overlays section
 * does for each entry: 300 colours are 2.4 KB of code, where a document of eight is 22 KB. Returns
 * the names the board refused (no free slot, a bad size or position).
 */
export async function putOverlays(board: BoardClient, overlays: readonly OverlayInput[]): Promise<string[]> {
  const refused: string[] = [];
  for (const o of overlays) {
    const colors = Array.from({ length: o.width * o.height }, (_, i) => (o.colors[i] ?? 0) & 0xffffff);
    // Argument order per the firmware (spec §6.12): name, x_col, y_row, height, width, colors.
    const index = await board.call(
      py`overlay_set(${o.name}, ${o.col}, ${o.row}, ${o.height}, ${o.width}, ${colors})`,
    );
    if (typeof index !== 'number' || index < 0) refused.push(o.name);
  }
  return refused;
}

/**
 * Puts a target on the board (the caller reads it back): one job switches to `slot` when given,
 * stops the PWM the target does not hold (it would run on, and be saved into the slot), clears,
 * makes every bridge with its duplicates, the supplies (dac_set stores them), names,
 * colours, GPIO direction and pulls (set_state's gpio section) and removes the overlays; then one
 * job per overlay, one to start the target's PWM, and the save.
 */
export async function putTarget(
  board: BoardClient,
  plan: Plan,
  slot: number | null,
  save: boolean,
): Promise<{ notes: string[]; pwm: readonly PwmSetting[] }> {
  const t = plan.target;
  const notes = [...plan.notes];
  const overlays = t.overlays.filter((o) => {
    if (!SCANNER_BREAKERS.test(o.name)) return true;
    notes.push(`overlay "${o.name}" is not restored: its name has a quote, backslash or bracket`);
    return false;
  });
  const power: [number, number][] = [
    [2, t.power.topRail],
    [3, t.power.bottomRail],
    [0, t.power.dac0],
    [1, t.power.dac1],
  ];
  const bridges = t.bridges.map(([a, b, d]) => [a, b, d]);
  const names = [...t.names].map(([i, name]) => [i, name]);
  const colors = [...t.colors].map(([i, c]) => [i, c]);
  const code = await board.call(
    py`_jlt.image_put(${slot}, ${bridges}, ${power}, ${names}, ${colors}, ${gpioDocument(plan.gpio)}, ${plan.pwm.map((p) => p.pin)})`,
    { timeoutMs: 20_000 },
  );
  if (code !== 0) notes.push('the board refused the GPIO settings (set_state returned -1)');
  for (const name of await putOverlays(board, overlays)) notes.push(`the board refused overlay "${name}"`);
  let started: PwmSetting[] = [];
  if (plan.pwm.length > 0) {
    const pads = await board.call(py`_jlt.image_pwm(${plan.pwm.map((p) => [p.pin, p.frequency, p.duty])})`);
    if (!Array.isArray(pads) || pads.some((pad) => pad !== true)) {
      notes.push('the board did not start all the PWM the file holds');
    }
    started = Array.isArray(pads) ? plan.pwm.filter((_, i) => pads[i] === true) : [];
  }
  if (save) await board.call('nodes_save()', { timeoutMs: 15_000 });
  return { notes, pwm: started };
}

const MAX_LISTED = 30;
export const listed = (xs: readonly string[]): string[] =>
  xs.length <= MAX_LISTED ? [...xs] : [...xs.slice(0, MAX_LISTED), `... and ${xs.length - MAX_LISTED} more`];
