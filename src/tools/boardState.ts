/**
 * The board's state as tools read it (`get_state()`, spec §7), and the questions several groups ask
 * of it: which net a GPIO sits on, what drives that net, whether two nodes share a net.
 */
import { z } from 'zod';
import { defaultNetName } from '../board/connections.js';
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
  yamlName,
} from '../board/nodes.js';
import { parseFirmwareNodeName } from '../board/slots.js';
import { type StateDocument, type StateDocumentNet, stateDocumentSchema } from '../board/stateDocument.js';
import { ToolError } from '../core/errors.js';
import type { BoardCallOptions, BoardClient } from '../device/board.js';
import { py } from '../device/pyLiteral.js';
import type { PythonPart } from './pythonParts.js';

export {
  type StateDocument,
  type StateDocumentNet,
  type StateDocumentOverlay,
  stateDocumentSchema,
} from '../board/stateDocument.js';

/** Reads and parses `get_state()`; also returns the text (for snapshots). */
export async function readState(
  board: BoardClient,
  options?: BoardCallOptions,
): Promise<{ state: StateDocument; text: string }> {
  const text = await board.call<unknown>('get_state()', options);
  if (typeof text !== 'string') throw new ToolError('bad_state', 'get_state() did not return text.');
  return { state: parseStateText(text), text };
}

/** An overlay as state_get tells it: where it is, and its colour when it has one (overlay_list has the pixels). */
export const overlaySummarySchema = z.object({
  name: z.string(),
  row: z.number(),
  col: z.number(),
  width: z.number(),
  height: z.number(),
  color: z
    .string()
    .optional()
    .describe('#rrggbb when the whole overlay is one colour (else see overlay_list)'),
});

/** The state with each overlay's pixel list (up to 300 colours, 2.7 KB) told as one colour or left to overlay_list. */
export type StateSummary = Omit<StateDocument, 'overlays'> & {
  overlays: Array<z.infer<typeof overlaySummarySchema>>;
};

export function withOverlaySummaries<S extends StateDocument>(state: S): Omit<S, 'overlays'> & StateSummary {
  return {
    ...state,
    overlays: state.overlays.map(({ colors, ...where }) => {
      const [first] = colors;
      const uniform = first !== undefined && colors.every((color) => color === first);
      return { ...where, ...(uniform ? { color: `#${first.toLowerCase()}` } : {}) };
    }),
  };
}

export function parseStateText(text: string): StateDocument {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ToolError('bad_state', `get_state() returned invalid JSON: ${(error as Error).message}`);
  }
  const parsed = stateDocumentSchema.safeParse(doc);
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

export function netOfNode(state: StateDocument, name: string): StateDocumentNet | undefined {
  const key = canonicalNode(name) ?? name.toUpperCase();
  return state.nets.find((net) => net.nodes.some((n) => (canonicalNode(n) ?? n.toUpperCase()) === key));
}

/** The node a `gpio_*` pin number (1-10) stands for. */
export function gpioPinNode(pin: number): string {
  if (pin === 9) return 'UART_TX';
  if (pin === 10) return 'UART_RX';
  return `GPIO_${pin}`;
}

/**
 * A pin's level in gpio_get's words (gpio.ts plainRead), from get_state's entry: an input only its
 * pull holds (the firmware says `float`) is at the pull's level, the pull named; a pad in PWM says
 * so; the UART pins are UNKNOWN, as gpio_get reads them. The picture and the page draw this, so
 * they never contradict gpio_get (issue 20: the picture said "IN FLOAT" where gpio_get said LOW,
 * held by the pull-down).
 */
export function pinLevelWords(g: {
  pin: number | string;
  function: string;
  pull: string;
  reading: string;
}): string {
  // gpio_get reads UART TX/RX as UNKNOWN: the firmware's gpio_get never samples them.
  if (g.pin === 'TX' || g.pin === 'RX') return 'UNKNOWN';
  if (g.function.toUpperCase() === 'PWM') return 'PWM';
  const reading = g.reading.toUpperCase();
  if (reading !== 'FLOAT' && reading !== 'FLOATING') return reading;
  if (g.pull === 'up') return 'HIGH (PULL-UP)';
  if (g.pull === 'down') return 'LOW (PULL-DOWN)';
  return 'FLOATING';
}

const gpioStateId = (pin: number): number | string => (pin === 9 ? 'TX' : pin === 10 ? 'RX' : pin);
const gpioStateNode = (id: number | string): string =>
  id === 'TX' ? 'UART_TX' : id === 'RX' ? 'UART_RX' : `GPIO_${id}`;

/**
 * Why driving `pin` as an output would fight something already on its net: a supply (rail, DAC,
 * GND, the routable buffer's output) or another output. Empty when the pin is free to drive.
 * The board cannot see external wires (spec §8.3), so this covers only what it routed.
 */
export function driveHazards(state: StateDocument, pin: number): string[] {
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
    // A hardware-PWM pin drives its pad whatever the configured direction says (get_state shows
    // the config direction, JsonState.cpp:260-262, and the pad function).
    if (other.pin === self || (other.direction !== 'OUTPUT' && other.function !== 'PWM')) continue;
    if (netOfNode(state, gpioStateNode(other.pin))?.index === net.index) {
      hazards.push(`${gpioStateNode(other.pin)} drives the same net as an output`);
    }
  }
  return hazards;
}

/** Throws `unsafe_drive` when `pin` may not become an output. */
export function assertCanDrive(state: StateDocument, pin: number, action: string): void {
  const hazards = driveHazards(state, pin);
  if (hazards.length === 0) return;
  throw new ToolError(
    'unsafe_drive',
    `Refusing to ${action}: ${gpioPinNode(pin)} would fight a driven net (${hazards.join('; ')}). Disconnect it first.`,
    { details: { pin, hazards } },
  );
}

/** The source a supply node stands for: the three grounds are one, every other supply its own. */
export function supplySource(name: string): string | undefined {
  const key = canonicalNode(name) ?? name.toUpperCase();
  if (!SUPPLY_SHORT.has(key)) return undefined;
  return key === 'TOP_GND' || key === 'BOT_GND' ? 'GND' : key;
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

// ---- set_state node names ----

/**
 * The text to give `set_state` for a node: a spelling the firmware's parseNodeName reads back as the
 * same node (States.cpp:2331-2383). Rows are digits; other nodes take their short or long name, but
 * never one starting with a digit, which reads as a row ("3V3" is row 3, "5V" row 5).
 */
export function setStateNodeText(id: number): string | undefined {
  if (id >= 1 && id <= 60) return String(id);
  for (const text of [shortName(id), yamlName(id)]) {
    if (parseFirmwareNodeName(text) === id) return text;
  }
  return undefined;
}

// ---- the RAM state a slot file records, as the API reads it ----

/** Firmware functions `ram()` reads the board with. */
export const RAM_REQUIRES = [
  'CURRENT_SLOT',
  'get_state',
  'get_num_bridges',
  'get_bridge',
  'get_num_nets',
  'get_net_color',
  'get_net_color_name',
] as const;

/** Bytes of a slot file per board job: 8 KB of hex in the reply. */
export const SLOT_PART_BYTES = 4096;

/**
 * Board-side helpers, inside `_jlt`, listed by the groups that read them: the RAM state and slot
 * files. A full board's RAM state is 39 KB of heap (33 KB of it the state text) and its slot file
 * 38 KB: together they do not fit the 58 KB a board without PSRAM has free. So `slot_look` reads
 * the RAM state and only sizes and sums the slot files (`[bytes, sum]`, None when missing); the
 * host then reads each file SLOT_PART_BYTES a job (`slot_part`, as hex: exact bytes) and checks
 * the sum, which tells a file the board rewrote in between (its autosave) from the one the RAM
 * state was read with. `read()` returns at most 8192 bytes (modjumperless.c:4712-4715).
 */
export const ramPython: PythonPart = {
  name: 'ram',
  source: `
def ram():
    b = [list(get_bridge(i)) for i in range(get_num_bridges())]
    n = range(get_num_nets())
    c = [get_net_color(i) for i in n]
    cn = [get_net_color_name(i) for i in n]
    return {'slot': CURRENT_SLOT(), 'bridges': b, 'colors': c, 'color_names': cn, 'state': get_state()}
def slot_path(s):
    return '/slots/slotPython.yaml' if s == 99 else '/slots/slot%d.yaml' % s
def slot_sum(s):
    try:
        f = open(_jlt.slot_path(s), 'rb')
    except OSError:
        return None
    try:
        n = 0
        t = 0
        k = 1
        while True:
            p = f.read(${SLOT_PART_BYTES})
            if not p:
                return [n, t]
            n += len(p)
            t += k * sum(p)
            k += 1
    finally:
        f.close()
def slot_part(s, off, n):
    import binascii
    try:
        f = open(_jlt.slot_path(s), 'rb')
    except OSError:
        return None
    try:
        f.seek(off)
        p = f.read(n)
    finally:
        f.close()
    return binascii.hexlify(p).decode()
def slot_look(t):
    r = _jlt.ram()
    r['file'] = _jlt.slot_sum(r['slot'])
    r['target'] = None if t is None else _jlt.slot_sum(t)
    return r
`,
};

const ramReply = z.object({
  slot: z.number(),
  bridges: z.array(z.tuple([z.number(), z.number(), z.number()])),
  colors: z.array(z.number()),
  color_names: z.array(z.string()),
  state: z.string(),
});

/** What the board holds now: its slot number, exact bridges, net colours by number, the state JSON. */
export interface RamState {
  readonly slot: number;
  /** `get_bridge(i)` for every i: node1, node2, duplicates, in list order. */
  readonly bridges: readonly (readonly [number, number, number])[];
  /** `get_net_color(n)` for n = 0 .. get_num_nets()-1. */
  readonly colors: readonly number[];
  /** `get_net_color_name(n)`: a custom colour's own name (what a slot file writes), else a computed one. */
  readonly colorNames: readonly string[];
  readonly state: StateDocument;
  readonly text: string;
}

export function parseRam(reply: unknown): RamState {
  const r = ramReply.parse(reply);
  return {
    slot: r.slot,
    bridges: r.bridges,
    colors: r.colors,
    colorNames: r.color_names,
    state: parseStateText(r.state),
    text: r.state,
  };
}

export async function readRam(board: BoardClient, options?: BoardCallOptions): Promise<RamState> {
  return parseRam(await board.call('_jlt.ram()', options));
}

/**
 * Slot files longer than this are refused: the board writes at most about 38 KB (128 bridges, 60
 * named nets, 8 full overlays), and the host reads a file in SLOT_PART_BYTES jobs.
 */
export const SLOT_FILE_MAX_BYTES = 64 * 1024;

/** `slot_sum`'s `[bytes, sum]`: a file's size and its sum of bytes, each 4 KB block weighted by its number. */
const fileSum = z.tuple([z.number(), z.number()]).nullable();
type SlotFileSum = z.infer<typeof fileSum>;

/** `slot_sum`'s sum of a file's bytes (each SLOT_PART_BYTES block weighted by its number). */
export function slotFileSum(bytes: Uint8Array): number {
  let total = 0;
  for (let at = 0, k = 1; at < bytes.length; at += SLOT_PART_BYTES, k++) {
    let part = 0;
    for (const b of bytes.subarray(at, at + SLOT_PART_BYTES)) part += b;
    total += k * part;
  }
  return total;
}

/** Thrown by readSlotFile when the file is not the one `sum` describes (rewritten in between). */
class SlotFileChanged extends Error {}

/**
 * A slot file's text, read SLOT_PART_BYTES per job and checked against the `[bytes, sum]` the board
 * gave for it; null when there is no file. Refuses a file longer than SLOT_FILE_MAX_BYTES or not
 * UTF-8 (nothing a board writes).
 */
async function readSlotFile(board: BoardClient, slot: number, sum: SlotFileSum): Promise<string | null> {
  if (sum === null) return null;
  const [size, expected] = sum;
  const path = slot === 99 ? '/slots/slotPython.yaml' : `/slots/slot${slot}.yaml`;
  if (size > SLOT_FILE_MAX_BYTES) {
    throw new ToolError(
      'bad_slot_file',
      `${path} is ${size} bytes, longer than any slot file the board writes (${SLOT_FILE_MAX_BYTES} at most here): it cannot be used. Nothing was changed.`,
    );
  }
  const parts: Buffer[] = [];
  for (let offset = 0; offset < size; offset += SLOT_PART_BYTES) {
    const hex = z
      .string()
      .regex(/^[0-9a-f]*$/)
      .nullable()
      .parse(await board.call(py`_jlt.slot_part(${slot}, ${offset}, ${SLOT_PART_BYTES})`));
    if (hex === null) throw new SlotFileChanged();
    parts.push(Buffer.from(hex, 'hex'));
  }
  const bytes = Buffer.concat(parts);
  if (bytes.length !== size || slotFileSum(bytes) !== expected) throw new SlotFileChanged();
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolError(
      'bad_slot_file',
      `${path} is not UTF-8 text: it cannot be used. Nothing was changed.`,
    );
  }
}

/**
 * Reads the RAM state with the file sums (`reply`), then the files, again once when the board
 * rewrote one in between (its autosave): the files always match the RAM state they were read with.
 */
async function readWithSlotFiles<T extends { file: SlotFileSum; target: SlotFileSum }>(
  board: BoardClient,
  read: () => Promise<T>,
  slotOf: (reply: T) => { file: number; target: number | null },
): Promise<{ reply: T; file: string | null; target: string | null }> {
  for (let attempt = 1; ; attempt++) {
    const reply = await read();
    const slots = slotOf(reply);
    try {
      const file = await readSlotFile(board, slots.file, reply.file);
      const target = slots.target === null ? null : await readSlotFile(board, slots.target, reply.target);
      return { reply, file, target };
    } catch (error) {
      if (!(error instanceof SlotFileChanged)) throw error;
      if (attempt >= 2) {
        throw new ToolError(
          'changed',
          'A slot file changed while it was read (the board saves about a second after every change): try again.',
          { retryable: true },
        );
      }
    }
  }
}

const lookReply = z.object({ file: fileSum, target: fileSum }).loose();

/**
 * The slot files of the active slot and of `target`, with the RAM state they go with. `first`, when
 * given, is the job to run instead of the first look (e.g. `slot_store`, which saves, then looks);
 * a second look, if a file changed under the first, is a plain one.
 */
export async function readSlotLook(
  board: BoardClient,
  target?: number,
  first?: { expression: string; timeoutMs: number },
): Promise<{ ram: RamState; file: string | null; target: string | null }> {
  let looks = 0;
  const read = async () => {
    const job =
      looks++ === 0 && first
        ? board.call(first.expression, { timeoutMs: first.timeoutMs })
        : board.call(py`_jlt.slot_look(${target ?? null})`);
    const reply = lookReply.parse(await job);
    return { ...reply, ram: parseRam(reply) };
  };
  const {
    reply,
    file,
    target: text,
  } = await readWithSlotFiles(board, read, (r) => ({
    file: r.ram.slot,
    target: target ?? null,
  }));
  return { ram: reply.ram, file, target: text };
}

/** A net's name when it is a custom one (not its default `GND`, `Net 7`, ...). */
export function customNetName(net: StateDocumentNet): string | undefined {
  return net.name === defaultNetName(net.index) ? undefined : net.name;
}
