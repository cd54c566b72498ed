/**
 * CDC3, the read-only machine backchannel (spec §4). Single characters answer at once; `:verb`
 * lines are read up to CR/LF, each character echoed and the line end echoed as CRLF before the
 * answer, as the firmware's usbSer3_readLine does. `:json[:section]` answers as cmd_showJsonState
 * (blank lines, the state JSON, a line end); `:leds` as usbSer3_sendLeds: `leds{300:rrggbb...}`, the
 * 300 row LEDs, five per row, bottom-half rows mirrored (Graphics.cpp rowColumnToPixelIndex).
 * Anything that would change the board is refused with the JSON `blocked` reply.
 * Sources: Architeuthis-Flux/JumperlOS src/Ser3Backchannel.cpp @54c931db,
 * src/SingleCharCommands.cpp cmd_showJsonState @020f59a8.
 */
import type { FirmwareFunctions, Json } from './firmware/types.js';

const ALLOWED = 'AVGNK.';
const VERBS = ['cmds', 'help', 'ver', 'slot', 'json', 'nets', 'adc', 'status', 'all', 'leds'];
/** The JSON state's sections `:json:<section>` answers alone (JsonState getJumperlessStateJSON). */
const SECTIONS = ['power', 'nets', 'gpio', 'overlays'];
const ROW_LEDS = 5;
const HELP_YAML = `---YAML_HELP_START---
device: Jumperless V5
port: USBSer3 backchannel (read-only)
firmware: %VERSION%
chars:
  A: full status JSON
  V: ADC and current JSON
  G: GPIO JSON
  N: nets JSON
  K: state YAML
  ".": repeat the last inquiry
verbs:
  ":help": this text
  ":cmds": allowed characters
  ":ver": firmware version
  ":slot": active slot as ACTIVE_SLOT:n
  ":json[:section]": state JSON, whole or one section
  ":leds": breadboard LED snapshot
  ":nets": nets JSON
  ":adc": ADC and current JSON
  ":status": full status JSON
---YAML_HELP_END---
`;

export interface BackchannelIo {
  functions: FirmwareFunctions;
  write(text: string): void;
}

export class BackchannelPort {
  private verbLine: string | undefined;
  private last: string | undefined;

  constructor(private readonly io: BackchannelIo) {}

  feed(data: Uint8Array): void {
    for (const byte of data) this.feedByte(byte);
  }

  private feedByte(byte: number): void {
    if (this.verbLine !== undefined) {
      if (byte === 0x0d || byte === 0x0a) {
        const verb = this.verbLine;
        this.verbLine = undefined;
        this.io.write('\n');
        this.answer(`:${verb}`);
      } else if (byte >= 0x20 && byte < 0x7f && this.verbLine.length < 256) {
        this.verbLine += String.fromCharCode(byte);
        this.io.write(String.fromCharCode(byte));
      }
      return;
    }
    if (byte === 0x0d || byte === 0x0a || byte === 0x1b || byte < 0x20) return;
    const char = String.fromCharCode(byte);
    if (char === ':') {
      this.io.write(':');
      this.verbLine = '';
      return;
    }
    this.answer(char === '.' ? (this.last ?? '.') : char);
  }

  private version(): string {
    return String(this.call('firmware_version') ?? '');
  }

  private call(name: string, ...args: Json[]): Json | undefined {
    const fn = this.io.functions[name];
    return fn ? fn(...args) : undefined;
  }

  private state(): Record<string, unknown> {
    try {
      return JSON.parse(String(this.call('get_state') ?? '{}')) as Record<string, unknown>;
    } catch {
      return {};
    }
  }

  private readings(): { adc: Record<string, number>; current: Record<string, number> } {
    const adc: Record<string, number> = {};
    for (let ch = 0; ch <= 4; ch++) {
      const value = this.tryNumber('_adc_sample', ch);
      if (value !== undefined) adc[`adc${ch}`] = round(value, 4);
    }
    const current: Record<string, number> = {};
    for (const sensor of [0, 1]) {
      const amps = this.tryNumber('ina_get_current', sensor);
      if (amps !== undefined) current[`ina${sensor}_mA`] = round(amps * 1000, 3);
    }
    return { adc, current };
  }

  private tryNumber(name: string, arg: number): number | undefined {
    try {
      const value = this.call(name, arg);
      return typeof value === 'number' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  private answer(inquiry: string): void {
    if (inquiry !== '.') this.last = inquiry;
    const [verb, section] = inquiry.startsWith(':') ? inquiry.slice(1).split(':') : [undefined, undefined];
    if (verb !== undefined) return this.answerVerb(verb.trim(), section?.trim());
    switch (inquiry) {
      case 'A':
      case 'V': {
        const readings = this.readings();
        if (inquiry === 'V') return this.json(readings);
        const state = this.state();
        return this.json({
          version: this.version(),
          slot: this.call('CURRENT_SLOT') ?? 0,
          ...readings,
          gpio: state.gpio ?? [],
          nets: state.nets ?? [],
          power: state.power ?? {},
        });
      }
      case 'G':
        return this.json({ gpio: this.state().gpio ?? [] });
      case 'N':
        return this.json({ nets: this.state().nets ?? [] });
      case 'K':
        return this.io.write(`---YAML_START---\n${String(this.call('_slot_yaml') ?? '')}\n---YAML_END---\n`);
      default:
        return this.blocked(inquiry, 'status_only');
    }
  }

  private answerVerb(verb: string, section: string | undefined): void {
    switch (verb) {
      case '':
      case 'help':
        return this.io.write(HELP_YAML.replace('%VERSION%', this.version()));
      case 'cmds':
        return this.io.write(`${ALLOWED}\n`);
      case 'ver':
        return this.io.write(`${this.version()}\n`);
      case 'slot':
        return this.io.write(`ACTIVE_SLOT:${String(this.call('CURRENT_SLOT') ?? 0)}\n`);
      case 'json': {
        // An unknown section answers the whole state, as the firmware's slice does.
        const state = this.state();
        const only = section && SECTIONS.includes(section) ? { [section]: state[section] ?? null } : state;
        return this.io.write(`\n\n\r${JSON.stringify(only, null, 2)}\n\r`);
      }
      case 'leds':
        return this.io.write(`leds{${60 * ROW_LEDS}:${this.leds()}}\n`);
      case 'nets':
        return this.json({ nets: this.state().nets ?? [] });
      case 'adc':
        return this.json(this.readings());
      case 'status':
      case 'all':
        return this.answer('A');
      default:
        return this.blocked(`:${verb}`, VERBS.includes(verb) ? 'interactive' : 'not_a_command');
    }
  }

  /** The row LEDs as hex: an overlay's pixel where one is drawn, else the colour of the row's net. */
  private leds(): string {
    const rowColor = new Map<number, number>();
    const nets = (this.state().nets ?? []) as Array<{ index?: number; nodes?: unknown[] }>;
    for (const net of nets) {
      const color = this.call('get_net_color', net.index ?? 0);
      for (const node of net.nodes ?? []) {
        const row = Number(node);
        if (Number.isInteger(row) && row >= 1 && row <= 60 && typeof color === 'number')
          rowColor.set(row, color);
      }
    }
    const canvas = this.call('_overlay_canvas');
    const overlay = Array.isArray(canvas) ? canvas : [];
    const pixels = new Array<number>(60 * ROW_LEDS).fill(0);
    for (let row = 1; row <= 60; row++) {
      for (let hole = 0; hole < ROW_LEDS; hole++) {
        // The overlay canvas: 10 x 30, its rows 1-5 the top half's holes, 6-10 the bottom half's.
        const cell = row <= 30 ? hole * 30 + (row - 1) : (5 + hole) * 30 + (row - 31);
        const drawn = Number(overlay[cell] ?? 0);
        const column = row > 30 ? ROW_LEDS - 1 - hole : hole;
        pixels[(row - 1) * ROW_LEDS + column] = drawn !== 0 ? drawn : (rowColor.get(row) ?? 0);
      }
    }
    return pixels.map((c) => (c & 0xffffff).toString(16).padStart(6, '0')).join('');
  }

  private blocked(cmd: string, reason: string): void {
    this.json({ error: 'blocked', cmd, reason, ok: ALLOWED, hint: ':cmds' });
  }

  private json(value: unknown): void {
    this.io.write(`${JSON.stringify(value)}\n`);
  }
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
