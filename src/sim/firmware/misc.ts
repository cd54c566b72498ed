/**
 * Miscellaneous firmware calls (spec §6.14): Arduino reset, apps, the core-2 pause flag, raw
 * crosspoint writes, terminal colours, service kicks and the help text.
 */
import { asInt, asNum, truthy } from './args.js';
import type { Hardware } from './hardware.js';
import {
  HELP_SECTIONS,
  HELP_TITLE,
  helpIndexLines,
  helpSection,
  NODES_HELP,
  UNKNOWN_SECTION,
} from './help.js';
import type { InputState } from './inputs.js';
import { WHEEL_HELD, WHEEL_IDLE } from './inputs.js';
import { type FirmwareFunctions, type FirmwareHost, type Json, PyError } from './types.js';

/**
 * The main loop's services in jOS's table order, which `get_service_index` answers with: registration
 * order (main.cpp:442-484, a V5 with probe pads and PSRAM), stably sorted by priority CRITICAL, HIGH,
 * NORMAL, LOW (JumperlOS.cpp:494-518; each service's getPriority() in its header). Names are
 * matched case-sensitively (JumperlOS.cpp:406-488).
 */
export const SERVICES: readonly string[] = [
  'TermSerial',
  'InjectedCmd',
  'ProbeButton',
  'MpRemote',
  'Peripherals',
  'AsyncPassthrough',
  'Menus',
  'States',
  'Probing',
  'Highlighting',
  'MeasureMode',
  'TinyUSB',
  'ProbeSwitch',
  'USBPeriodic',
  'SingleCharCommands',
  'OledGui',
  'ProbePads',
  'OLED',
  'LiveXbar',
  'ConfigSave',
  'FileCache',
];

/** The built-in apps `run_app` knows (Apps.cpp:66-88); matched after collapsing spaces, any case. */
export const APPS: readonly string[] = [
  'Bounce Startup',
  'Calib  DACs',
  'I2C    Scan',
  'Custom App',
  'PNG Image',
  'Scan',
  'XLSX   GUI',
  'Micropython',
  'uPythonREPL',
  'File   Manager',
  'eKilo Editor',
  'Probe  Calib',
  'JDI MIPdisplay',
  'DOOM',
  'Snake',
  'DMX Serial',
  'OLED Images',
  'Switch Calib',
  'Python',
  'Files',
];

/** Apps.cpp:91-115 normalizeSpaces: trimmed, runs of spaces collapsed, \x19 dropped. */
export const normalizeSpaces = (s: string): string => s.trim().replace(/\x19/g, '').replace(/ {2,}/g, ' ');

export interface MiscState {
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

const serviceIndex = (name: string): number => SERVICES.indexOf(name);

export interface MiscDeps {
  host: FirmwareHost;
  inputs: InputState;
  hw: Pick<Hardware, 'core2Paused'>;
}

export function miscFunctions(state: MiscState, deps: MiscDeps): FirmwareFunctions {
  const { host, inputs } = deps;
  /** cycleTermColor: `reset` starts over, otherwise the hue moves on by `step` (our own palette). */
  const nextColor = (reset: boolean, step: number): string => {
    state.hue = reset ? 0 : (state.hue + (Number.isFinite(step) ? step : 0)) % 360;
    return `${ESC}38;5;${hueToAnsi(state.hue)}m`;
  };

  return {
    arduino_reset: () => {
      state.arduinoResets++;
      return null;
    },
    // Apps.cpp:122-144: an unknown name prints on Serial (the main port) and returns at once. A
    // known app takes over until the user leaves it: holding the clickwheel does here, and Ctrl-C
    // ends the wait with KeyboardInterrupt.
    run_app: (name) => {
      const wanted = normalizeSpaces(asStr(name));
      const app = APPS.find((a) => normalizeSpaces(a).toLowerCase() === wanted.toLowerCase());
      if (app === undefined) {
        host.writeMain('App not found\r\n');
        return null;
      }
      host.writeMain(`Running app: ${wanted}\r\n`);
      state.app = app;
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
      deps.hw.core2Paused = truthy(pause);
      return null;
    },
    _core2_paused: () => deps.hw.core2Paused,
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
    // Graphics.cpp:442-479, 488-545: colour escapes go to Jerial, the main port, never to the
    // REPL's stdout. The colour is printed as given (only -1 means reset).
    change_terminal_color: (color) => {
      const c = color === undefined ? -1 : asInt(color);
      host.writeMain(c === -1 ? `${ESC}0m` : `${ESC}38;5;${c}m`);
      return null;
    },
    cycle_term_color: (reset, step) => {
      host.writeMain(nextColor(reset !== undefined && truthy(reset), step === undefined ? 100 : asNum(step)));
      return null;
    },
    force_service: (name) => serviceIndex(asStr(name)) >= 0,
    // JumperlessMicroPythonAPI.cpp:2204-2209: negative is False, otherwise the index is cast to uint8.
    force_service_by_index: (index) => {
      const i = asInt(index);
      return i >= 0 && (i & 0xff) < SERVICES.length;
    },
    get_service_index: (name) => serviceIndex(asStr(name)),
    /**
     * help(): the text for stdout (mp_printf), with the colour changes between lines and sections on
     * the main port (modjumperless.c:4279-4598).
     */
    help_text: (section) => {
      const wanted = section === undefined || section === null ? undefined : asStr(section);
      const out: string[] = [];
      const print = (text: string) => {
        host.writeMain(nextColor(false, 100));
        out.push(text);
      };
      if (wanted === undefined) {
        out.push(HELP_TITLE);
        for (const line of helpIndexLines()) print(line);
      }
      const sections = wanted === undefined || wanted.toUpperCase() === 'ALL' ? [...HELP_SECTIONS] : [wanted];
      for (const name of sections) {
        host.writeMain(nextColor(true, 5));
        const text = helpSection(name);
        print(text === undefined ? UNKNOWN_SECTION(name) : `${text}\n`);
      }
      return out.join('');
    },
    nodes_help_text: () => NODES_HELP,
  };
}
