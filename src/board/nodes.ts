/**
 * The V5 node table (spec §6.2): every node id with its names.
 *
 * - `printName` is the first alias in the firmware table, what `print(node)` shows (spec §6.1):
 *   `NANO_D13`, not `D13`; `RP_GPIO_1`, not `GPIO_1`.
 * - `shortName` is the name used in net listings, `get_net_nodes` and the state JSON (§6.2, §7).
 * - `yamlName` is the name the slot YAML writes for bridges (§7: `BUFFER_IN`, `DAC0`, `NANO_D5`).
 * - `bridgeable` is the set `connect` stores: the firmware's id ranges minus the ids the V5 crossbar
 *   has no lane for (see BRIDGEABLE_RANGES).
 */

export type NodeKind = 'row' | 'nano' | 'special' | 'gpio' | 'uart' | 'pad' | 'fake_gpio';

export interface NodeInfo {
  readonly id: number;
  readonly printName: string;
  /** Every name `node()` accepts for this id, printName first (matching is case-insensitive). */
  readonly aliases: readonly string[];
  readonly shortName: string;
  readonly yamlName: string;
  readonly kind: NodeKind;
  readonly bridgeable: boolean;
}

export const GND = 100;
export const TOP_RAIL = 101;
export const BOTTOM_RAIL = 102;
export const SUPPLY_3V3 = 103;
export const TOP_RAIL_GND = 104;
export const SUPPLY_5V = 105;
export const DAC0 = 106;
export const DAC1 = 107;
export const ISENSE_PLUS = 108;
export const ISENSE_MINUS = 109;
export const ADC0 = 110;
export const ADC1 = 111;
export const ADC2 = 112;
export const ADC3 = 113;
export const ADC4 = 114;
export const ADC7 = 115;
export const PROBE = ADC7;
export const UART_TX = 116;
export const UART_RX = 117;
export const RP_GPIO_18 = 118;
export const RP_GPIO_19 = 119;
export const SUPPLY_8V_P = 120;
export const SUPPLY_8V_N = 121;
export const BOTTOM_RAIL_GND = 126;
export const EMPTY_NET = 127;
export const GPIO_1 = 131;
export const GPIO_2 = 132;
export const GPIO_3 = 133;
export const GPIO_5 = 135;
export const GPIO_6 = 136;
export const GPIO_7 = 137;
export const GPIO_8 = 138;
export const BUFFER_IN = 139;
export const BUFFER_OUT = 140;
export const LOGO_PAD_TOP = 142;
export const LOGO_PAD_BOTTOM = 143;
export const GPIO_PAD = 144;
export const DAC_PAD = 145;
export const ADC_PAD = 146;
export const BUILDING_PAD_TOP = 147;
export const BUILDING_PAD_BOTTOM = 148;
export const NANO_VIN = 69;
export const NANO_D0 = 70;
export const NANO_RESET = 84;
export const NANO_AREF = 85;
export const NANO_A0 = 86;
export const FAKE_GP_OUT_0 = 150;
export const FAKE_GP_IN_0 = 158;
/** `ProbePad` value when no pad is touched (§6.10). */
export const NO_PAD = -1;

/** Nano digital pin `NANO_D<n>` (0-13). */
export const nanoD = (n: number): number => NANO_D0 + n;
/** Nano analogue pin `NANO_A<n>` (0-7). */
export const nanoA = (n: number): number => NANO_A0 + n;
/** Routable GPIO node for pin 1-8 (`GPIO_1` = 131). */
export const gpioNode = (pin: number): number => GPIO_1 + pin - 1;

/** The five special nodes whose nets always exist and never merge (§6.9, §8.3). */
export const SPECIAL_NET_NODES: readonly number[] = [GND, TOP_RAIL, BOTTOM_RAIL, DAC0, DAC1];

// FileParsing.cpp:2033-2070 (isNodeValid): the id ranges `connect` accepts...
const BRIDGEABLE_RANGES: readonly (readonly [number, number])[] = [
  [1, 60],
  [70, 93],
  [100, 117],
  [131, 140],
  [150, 181],
];

// ...except ids that are in no lane of the V5 crossbar maps (FileParsing.cpp:2016 isNodeOnBoard,
// boards/v5/board_v5.cpp:21-34): NANO_RESET, the 3V3 / TOP_RAIL_GND / 5V supplies, and ADC7 (the
// probe's own ADC). addConnection refuses them silently (States.cpp:591-599).
const NOT_ON_V5_CROSSBAR = new Set<number>([NANO_RESET, SUPPLY_3V3, TOP_RAIL_GND, SUPPLY_5V, ADC7]);

const inRanges = (id: number): boolean =>
  BRIDGEABLE_RANGES.some(([lo, hi]) => id >= lo && id <= hi) && !NOT_ON_V5_CROSSBAR.has(id);

const table = new Map<number, NodeInfo>();
const byName = new Map<string, number>();
const byShort = new Map<string, number>();
const byYaml = new Map<string, number>();

function add(id: number, kind: NodeKind, shortName: string, yamlName: string, aliases: string[]): void {
  const info: NodeInfo = {
    id,
    printName: aliases[0] ?? String(id),
    aliases,
    shortName,
    yamlName,
    kind,
    bridgeable: inRanges(id),
  };
  table.set(id, info);
  for (const a of aliases) {
    const key = a.toUpperCase();
    if (!byName.has(key)) byName.set(key, id);
  }
  byShort.set(shortName.toUpperCase(), id);
  byYaml.set(yamlName.toUpperCase(), id);
}

for (let r = 1; r <= 60; r++) add(r, 'row', String(r), String(r), [String(r)]);

add(NANO_VIN, 'nano', 'VIN', 'NANO_VIN', ['NANO_VIN', 'VIN']);
for (let d = 0; d <= 13; d++) add(nanoD(d), 'nano', `D${d}`, `NANO_D${d}`, [`NANO_D${d}`, `D${d}`]);
add(NANO_RESET, 'nano', 'RESET', 'NANO_RESET', ['NANO_RESET', 'RESET']);
add(NANO_AREF, 'nano', 'AREF', 'NANO_AREF', ['NANO_AREF', 'AREF']);
for (let a = 0; a <= 7; a++) add(nanoA(a), 'nano', `A${a}`, `NANO_A${a}`, [`NANO_A${a}`, `A${a}`]);
add(94, 'nano', 'RST0', 'NANO_RST0', ['NANO_RESET_0', 'RST0']);
add(95, 'nano', 'RST1', 'NANO_RST1', ['NANO_RESET_1', 'RST1']);
add(96, 'nano', 'N_GND1', 'NANO_N_GND1', ['NANO_GND_1', 'N_GND1']);
add(97, 'nano', 'N_GND0', 'NANO_N_GND0', ['NANO_GND_0', 'N_GND0']);
add(98, 'nano', 'NANO_3V3', 'NANO_3V3', ['NANO_3V3']);
add(99, 'nano', 'NANO_5V', 'NANO_5V', ['NANO_5V']);

add(GND, 'special', 'GND', 'GND', ['GND', 'GROUND']);
add(TOP_RAIL, 'special', 'TOP_R', 'TOP_RAIL', ['TOP_RAIL', 'TOPRAIL', 'T_R', 'TOP_R', 'T_RAIL']);
add(BOTTOM_RAIL, 'special', 'BOT_R', 'BOTTOM_RAIL', [
  'BOTTOM_RAIL',
  'BOT_RAIL',
  'BOTTOMRAIL',
  'BOTRAIL',
  'B_R',
  'BOT_R',
  'B_RAIL',
]);
add(SUPPLY_3V3, 'special', '3V3', 'SUPPLY_3V3', ['SUPPLY_3V3', '3V3', '3.3V']);
add(TOP_RAIL_GND, 'special', 'TOP_GND', 'TOP_GND', ['TOP_RAIL_GND', 'TOP_GND']);
add(SUPPLY_5V, 'special', '5V', 'SUPPLY_5V', ['SUPPLY_5V', '5V', '+5V']);
add(DAC0, 'special', 'DAC_0', 'DAC0', ['DAC0', 'DAC_0', 'DAC0_5V']);
add(DAC1, 'special', 'DAC_1', 'DAC1', ['DAC1', 'DAC_1', 'DAC1_8V']);
add(ISENSE_PLUS, 'special', 'I_POS', 'ISENSE_PLUS', [
  'ISENSE_PLUS',
  'ISENSE_POS',
  'ISENSE_P',
  'INA_P',
  'I_P',
  'CURRENT_SENSE_PLUS',
  'ISENSE_POSITIVE',
  'I_POS',
  'CURRENT_SENSE_P',
]);
add(ISENSE_MINUS, 'special', 'I_NEG', 'ISENSE_MINUS', [
  'ISENSE_MINUS',
  'ISENSE_NEG',
  'ISENSE_N',
  'INA_N',
  'I_N',
  'CURRENT_SENSE_MINUS',
  'ISENSE_NEGATIVE',
  'I_NEG',
  'CURRENT_SENSE_N',
]);
for (let c = 0; c <= 3; c++)
  add(ADC0 + c, 'special', `ADC_${c}`, `ADC${c}`, [`ADC${c}`, `ADC_${c}`, `ADC${c}_8V`]);
add(ADC4, 'special', 'ADC_4', 'ADC4', ['ADC4', 'ADC_4', 'ADC4_5V']);
add(ADC7, 'special', 'ADC_7', 'ADC7', ['ADC7', 'ADC_7', 'ADC7_PROBE', 'PROBE']);
add(UART_TX, 'uart', 'UART_Tx', 'RP_UART_Tx', ['RP_UART_TX', 'UART_TX', 'TX', 'RP_GPIO_16']);
add(UART_RX, 'uart', 'UART_Rx', 'RP_UART_Rx', ['RP_UART_RX', 'UART_RX', 'RX', 'RP_GPIO_17']);
add(RP_GPIO_18, 'special', 'GP_18', 'RP_GPIO_18', ['RP_GPIO_18', 'GP_18']);
add(RP_GPIO_19, 'special', 'GP_19', 'RP_GPIO_19', ['RP_GPIO_19', 'GP_19']);
add(SUPPLY_8V_P, 'special', '8V_P', '8V_POS', ['SUPPLY_8V_P', '8V_P', '8V_POS']);
add(SUPPLY_8V_N, 'special', '8V_N', '8V_NEG', ['SUPPLY_8V_N', '8V_N', '8V_NEG']);
add(BOTTOM_RAIL_GND, 'special', 'BOT_GND', 'BOTTOM_GND', ['BOTTOM_RAIL_GND', 'BOT_GND', 'BOTTOM_GND']);
add(EMPTY_NET, 'special', 'EMPTY', 'EMPTY_NET', ['EMPTY_NET', 'EMPTY']);
for (let p = 1; p <= 8; p++) {
  add(gpioNode(p), 'gpio', `GP_${p}`, `RP_GPIO_${p}`, [
    `RP_GPIO_${p}`,
    `GPIO_${p}`,
    `GPIO${p}`,
    `GP_${p}`,
    `GP${p}`,
    // RP2350 pin numbers (spec §6.2: GPIO_20..GPIO_27 name the same nodes).
    `GPIO_${19 + p}`,
  ]);
}
add(BUFFER_IN, 'special', 'BUF_IN', 'BUFFER_IN', [
  'ROUTABLE_BUFFER_IN',
  'BUFFER_IN',
  'BUF_IN',
  'BUFF_IN',
  'BUFFIN',
]);
add(BUFFER_OUT, 'special', 'BUF_OUT', 'BUFFER_OUT', [
  'ROUTABLE_BUFFER_OUT',
  'BUFFER_OUT',
  'BUF_OUT',
  'BUFF_OUT',
  'BUFFOUT',
]);
add(LOGO_PAD_TOP, 'pad', 'LOGO_T', 'LOGO_TOP', ['LOGO_PAD_TOP', 'LOGO_TOP']);
add(LOGO_PAD_BOTTOM, 'pad', 'LOGO_B', 'LOGO_BOTTOM', ['LOGO_PAD_BOTTOM', 'LOGO_BOTTOM']);
add(GPIO_PAD, 'pad', 'GPIO_PAD', 'GPIO_PAD', ['GPIO_PAD']);
add(DAC_PAD, 'pad', 'DAC_PAD', 'DAC_PAD', ['DAC_PAD']);
add(ADC_PAD, 'pad', 'ADC_PAD', 'ADC_PAD', ['ADC_PAD']);
add(BUILDING_PAD_TOP, 'pad', 'BLDG_TOP', 'BUILDING_TOP', ['BUILDING_PAD_TOP', 'BUILDING_TOP']);
add(BUILDING_PAD_BOTTOM, 'pad', 'BLDG_BOT', 'BUILDING_BOT', ['BUILDING_PAD_BOTTOM', 'BUILDING_BOT']);
for (let i = 0; i < 8; i++) {
  add(FAKE_GP_OUT_0 + i, 'fake_gpio', `FGPO${i}`, `FAKE_GP_OUT_${i}`, [`FAKE_GP_OUT_${i}`]);
}
for (let i = 0; i < 24; i++) {
  add(FAKE_GP_IN_0 + i, 'fake_gpio', `FGPI${i}`, `FAKE_GP_IN_${i}`, [`FAKE_GP_IN_${i}`]);
}

/** Every node in id order. */
export const ALL_NODES: readonly NodeInfo[] = [...table.values()].sort((a, b) => a.id - b.id);

const DIGITS = /^\s*[+-]?\d+$/;

/**
 * A node argument as the firmware reads it (§6.1): integers are returned as they are (Python does not
 * validate ints), a string is a case-insensitive name or digits 1-200. Anything else: undefined.
 */
export function resolveNode(x: string | number): number | undefined {
  if (typeof x === 'number') return Number.isInteger(x) ? x : undefined;
  if (typeof x !== 'string' || x.length > 31) return undefined;
  if (DIGITS.test(x)) {
    const n = Number.parseInt(x, 10);
    return n >= 1 && n <= 200 ? n : undefined;
  }
  return byName.get(x.toUpperCase());
}

export const nodeInfo = (id: number): NodeInfo | undefined => table.get(id);

/** `print(node)` text; '' for ids the firmware has no name for (it prints an empty string). */
export const printName = (id: number): string => table.get(id)?.printName ?? '';

/**
 * The name the tools' descriptions use and their results echo, one per node (a trial met GPIO_3,
 * RP_GPIO_3 and GP_3 for one pin): `GPIO_3`, `D13`, `A0`, `BUFFER_IN`, `UART_TX`, else the print name.
 */
export function toolName(id: number): string {
  const info = table.get(id);
  if (!info) return String(id);
  if (info.kind === 'gpio') return info.printName.replace(/^RP_/, '');
  if (info.kind === 'uart') return info.aliases.find((a) => a.startsWith('UART_')) ?? info.printName;
  if (info.kind === 'nano' && /^NANO_[DA]\d+$/.test(info.printName)) return info.printName.slice(5);
  if (id === BUFFER_IN) return 'BUFFER_IN';
  if (id === BUFFER_OUT) return 'BUFFER_OUT';
  return info.printName || String(id);
}

/** A node of get_state's listing (`TOP_R`, `GP_3`) by the name the tools take (`TOP_RAIL`, `GPIO_3`). */
export function asToolName(short: string): string {
  const id = parseShortName(short);
  return id === undefined ? short : toolName(id);
}

/** Net-listing name; unknown ids print as their number. */
export const shortName = (id: number): string => table.get(id)?.shortName ?? String(id);

/** Name used for bridges in slot YAML; unknown ids as their number. */
export const yamlName = (id: number): string => table.get(id)?.yamlName ?? String(id);

/** 1-60, 70-93, 100-117, 131-140, 150-181, minus 84, 103-105 and 115 (not on the V5 crossbar). */
export const isBridgeable = (id: number): boolean => Number.isInteger(id) && inRanges(id);

/**
 * Inverse of the listing names, for `set_state` and slot YAML. Accepts short names (`TOP_R`, `GP_1`,
 * `UART_Tx`), YAML names (`RP_GPIO_1`, `NANO_D5`), any `node()` alias and row digits, case-insensitively.
 */
export function parseShortName(s: string): number | undefined {
  if (typeof s !== 'string') return undefined;
  const key = s.trim().toUpperCase();
  if (key === '') return undefined;
  if (/^\d+$/.test(key)) {
    const n = Number.parseInt(key, 10);
    return table.has(n) ? n : undefined;
  }
  return byShort.get(key) ?? byYaml.get(key) ?? byName.get(key);
}

// ---- Probe pads (ProbePad printing, §6.1 / §6.10) ----

const PAD_IDS = new Set<number>([
  ...Array.from({ length: 31 }, (_, i) => 69 + i),
  TOP_RAIL,
  BOTTOM_RAIL,
  TOP_RAIL_GND,
  BOTTOM_RAIL_GND,
  LOGO_PAD_TOP,
  LOGO_PAD_BOTTOM,
  GPIO_PAD,
  DAC_PAD,
  ADC_PAD,
  BUILDING_PAD_TOP,
  BUILDING_PAD_BOTTOM,
]);

const padAliases = new Map<string, number>([
  ['NO_PAD', NO_PAD],
  ['NONE', NO_PAD],
  ['TOP_RAIL_PAD', TOP_RAIL],
  ['BOTTOM_RAIL_PAD', BOTTOM_RAIL],
  ['BOT_RAIL_PAD', BOTTOM_RAIL],
  ['TOP_GND_PAD', TOP_RAIL_GND],
  ['BOT_RAIL_GND', BOTTOM_RAIL_GND],
  ['BOTTOM_GND_PAD', BOTTOM_RAIL_GND],
  ['BOT_GND_PAD', BOTTOM_RAIL_GND],
  ['VIN_PAD', NANO_VIN],
  ['RESET_PAD', NANO_RESET],
  ['AREF_PAD', NANO_AREF],
  ['RESET_0_PAD', 94],
  ['RESET_1_PAD', 95],
  ['GND_1_PAD', 96],
  ['GND_0_PAD', 97],
  ['3V3_PAD', 98],
  ['5V_PAD', 99],
]);
for (let d = 0; d <= 13; d++) padAliases.set(`D${d}_PAD`, nanoD(d));
for (let a = 0; a <= 7; a++) padAliases.set(`A${a}_PAD`, nanoA(a));
for (let r = 1; r <= 60; r++) padAliases.set(`PAD_${r}`, r);

/**
 * What a `ProbePad` prints: `PAD_1`..`PAD_60`, `NANO_D13`, `TOP_RAIL`, `LOGO_PAD_TOP`, `NO_PAD`, else
 * `UNKNOWN_PAD`. modjumperless.c:721-735 searches its pad table first, and that table starts with
 * PAD_1..PAD_60, so its "plain number" branch for rows is never reached.
 */
export function padName(pad: number): string {
  if (pad === NO_PAD) return 'NO_PAD';
  if (pad >= 1 && pad <= 60) return `PAD_${pad}`;
  return PAD_IDS.has(pad) ? printName(pad) : 'UNKNOWN_PAD';
}

/** A pad by name (`LOGO_PAD_TOP`, `D13_PAD`, `NANO_D13`, `PAD_5`, `NO_PAD`) or digits 1-60. */
export function resolvePad(s: string): number | undefined {
  const key = s.trim().toUpperCase();
  if (/^\d+$/.test(key)) {
    const n = Number.parseInt(key, 10);
    return n >= 1 && n <= 60 ? n : undefined;
  }
  const alias = padAliases.get(key);
  if (alias !== undefined) return alias;
  const id = byName.get(key);
  return id !== undefined && PAD_IDS.has(id) ? id : undefined;
}
