/**
 * Miscellaneous firmware calls (spec §6.14): Arduino reset, apps, the core-2 pause flag, raw
 * crosspoint writes, terminal colours, service kicks and the help text.
 */
import { asInt, asNum, truthy } from './args.js';
import { HELP_SECTIONS, helpIndex, helpSection, NODES_HELP, UNKNOWN_SECTION } from './help.js';
import type { InputState } from './inputs.js';
import { WHEEL_HELD, WHEEL_IDLE } from './inputs.js';
import { type FirmwareFunctions, type FirmwareHost, type Json, PyError } from './types.js';

/** The main loop's services, in registration order (`get_service_index` answers with the position). */
export const SERVICES: readonly string[] = [
  'ProbeButton',
  'TermSerial',
  'InjectedCommand',
  'Menus',
  'TinyUSB',
  'AsyncPassthrough',
  'Probing',
  'Highlighting',
  'SlotManager',
  'Peripherals',
  'LEDs',
  'OLED',
  'Clickwheel',
];

export interface MiscState {
  /** `pause_core2`: the core that refreshes LEDs and routing is held (wavegen and others read this). */
  core2Paused: boolean;
  arduinoResets: number;
  /** Crosspoints closed by `send_raw`, as `chip,x,y` (A = 0 ... L = 11). */
  rawCrosspoints: Set<string>;
  /** `cycle_term_color` hue in degrees. */
  hue: number;
  /** The app `run_app` is running, if any. */
  app: string | undefined;
}

export function createMiscState(): MiscState {
  return {
    core2Paused: false,
    arduinoResets: 0,
    rawCrosspoints: new Set(),
    hue: 0,
    app: undefined,
  };
}

const ESC = '\x1b[';

/** An xterm-256 colour index for a hue (full saturation and value), from the 6x6x6 cube. */
export function hueToAnsi(hue: number): number {
  const h = (((hue % 360) + 360) % 360) / 60;
  const x = 1 - Math.abs((h % 2) - 1);
  const [r, g, b] =
    h < 1
      ? [1, x, 0]
      : h < 2
        ? [x, 1, 0]
        : h < 3
          ? [0, 1, x]
          : h < 4
            ? [0, x, 1]
            : h < 5
              ? [x, 0, 1]
              : [1, 0, x];
  return 16 + 36 * Math.round(r * 5) + 6 * Math.round(g * 5) + Math.round(b * 5);
}

/** A chip as `send_raw` takes it: 0-11, or 'A'-'L' / '0'-'11' as a string; undefined otherwise. */
export function parseChip(chip: Json | undefined): number | undefined {
  if (typeof chip === 'number') return Number.isInteger(chip) && chip >= 0 && chip <= 11 ? chip : undefined;
  if (typeof chip !== 'string') return undefined;
  const s = chip.trim().toUpperCase();
  if (/^\d+$/.test(s)) return parseChip(Number(s));
  return s.length === 1 && s >= 'A' && s <= 'L' ? s.charCodeAt(0) - 65 : undefined;
}

const asStr = (x: Json | undefined): string => {
  if (typeof x !== 'string') throw new PyError('TypeError', "can't convert to str implicitly");
  return x;
};

const serviceIndex = (name: string): number =>
  SERVICES.findIndex((s) => s.toLowerCase() === name.trim().toLowerCase());

export interface MiscDeps {
  host: FirmwareHost;
  inputs: InputState;
}

export function miscFunctions(state: MiscState, deps: MiscDeps): FirmwareFunctions {
  const { host, inputs } = deps;

  return {
    arduino_reset: () => {
      state.arduinoResets++;
      return null;
    },
    // The firmware's UI apps take over until the user leaves them: holding the clickwheel does, and
    // Ctrl-C ends the wait with KeyboardInterrupt.
    run_app: (name) => {
      state.app = asStr(name);
      try {
        for (;;) {
          host.pollInputs();
          if (inputs.wheelButton === WHEEL_HELD) {
            inputs.wheelButton = WHEEL_IDLE;
            return null;
          }
          host.sleep(20);
        }
      } finally {
        state.app = undefined;
      }
    },
    pause_core2: (pause) => {
      state.core2Paused = truthy(pause);
      return null;
    },
    _core2_paused: () => state.core2Paused,
    send_raw: (chip, x, y, set) => {
      const c = parseChip(chip);
      const cx = asInt(x);
      const cy = asInt(y);
      if (c === undefined || cx < 0 || cx > 15 || cy < 0 || cy > 7) return null;
      const key = `${c},${cx},${cy}`;
      if (set === undefined || asInt(set) !== 0) state.rawCrosspoints.add(key);
      else state.rawCrosspoints.delete(key);
      return null;
    },
    _raw_crosspoints: () => [...state.rawCrosspoints].map((k) => k.split(',').map(Number)),
    /** The escape for `change_terminal_color(color)`: -1 resets to the default colour. */
    change_terminal_color: (color) => {
      const c = color === undefined ? -1 : asInt(color);
      return c < 0 ? `${ESC}0m` : `${ESC}38;5;${c & 0xff}m`;
    },
    cycle_term_color: (reset, step) => {
      if (reset !== undefined && truthy(reset)) state.hue = 0;
      state.hue = (state.hue + (step === undefined ? 100 : asNum(step))) % 360;
      return `${ESC}38;5;${hueToAnsi(state.hue)}m`;
    },
    force_service: (name) => serviceIndex(asStr(name)) >= 0,
    force_service_by_index: (index) => {
      const i = asInt(index);
      return i >= 0 && i < SERVICES.length;
    },
    get_service_index: (name) => serviceIndex(asStr(name)),
    /** help(): the whole text with a colour change before each section, as the firmware prints it. */
    help_text: (section) => {
      const color = () => {
        state.hue = (state.hue + 100) % 360;
        return `${ESC}38;5;${hueToAnsi(state.hue)}m`;
      };
      const wanted = section === undefined || section === null ? undefined : asStr(section);
      if (wanted !== undefined && wanted.toUpperCase() !== 'ALL') {
        const text = helpSection(wanted);
        return text === undefined ? UNKNOWN_SECTION(wanted) : `${color()}${text}\n${ESC}0m`;
      }
      const all = HELP_SECTIONS.map((s) => `${color()}${helpSection(s)}\n`).join('');
      return `${wanted === undefined ? helpIndex() : ''}${all}${ESC}0m`;
    },
    nodes_help_text: () => NODES_HELP,
    /** `check_interrupt()` of spec §3.1: a 1 ms sleep, during which Ctrl-C is noticed. */
    check_interrupt: () => {
      host.sleep(1);
      return null;
    },
  };
}
