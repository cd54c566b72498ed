/**
 * Telnet with the COM-PORT option (RFC 854, 855 and 2217) as a pure module: the client side of a
 * serial port exported by ser2net (or a labgrid exporter, which runs ser2net). Encoders, an
 * incremental decoder fed arbitrary chunks, option negotiation, and `ComPortClient`, which walks
 * the opening handshake. No timers, no I/O: the link (rfc2217Link.ts) decides when to give up.
 *
 * What the board sees is exactly what the session wrote: data bytes go out with every 0xFF
 * doubled (ser2net halves them again), and every negotiation byte is a telnet command that the
 * exporter consumes.
 */

export const IAC = 0xff;
export const DONT = 0xfe;
export const DO = 0xfd;
export const WONT = 0xfc;
export const WILL = 0xfb;
export const SB = 0xfa;
export const NOP = 0xf1;
export const SE = 0xf0;

/** `IAC NOP`: a telnet command that does nothing; the server consumes it, the board never sees it. */
export const TELNET_NOP: Buffer = Buffer.of(IAC, NOP);

/** The telnet options a COM-PORT client deals with. */
export const OPTION = { binary: 0, echo: 1, suppressGoAhead: 3, comPort: 44 } as const;

/**
 * Baud rates that reboot the board into its bootloader instead of setting a line coding: 1200
 * with DTR low is the "1200-baud touch" on CDC0 (Adafruit TinyUSB) and, on purpose, on the REPL
 * port CDC2 (JumperlOS `src/ArduinoStuff.cpp` secondSerialHandler, `coding.bit_rate == 1200` ->
 * `reset_usb_boot`; spec jumperless-v5.md §1 "Baud rate"). The firmware checks no other value.
 */
export const BOOTLOADER_BAUDS: ReadonlySet<number> = new Set([1200]);

/** Client-to-server command codes of the COM-PORT option; the server answers with code + 100. */
const COMMAND = {
  signature: 0,
  baud: 1,
  dataSize: 2,
  parity: 3,
  stopSize: 4,
  control: 5,
  lineState: 6,
  modemState: 7,
  flowSuspend: 8,
  flowResume: 9,
  lineStateMask: 10,
  modemStateMask: 11,
  purge: 12,
} as const;
const SERVER = 100;

export type Parity = 'ask' | 'none' | 'odd' | 'even' | 'mark' | 'space';
const PARITY: readonly Parity[] = ['ask', 'none', 'odd', 'even', 'mark', 'space'];

export type StopSize = 'ask' | '1' | '2' | '1.5';
const STOP_SIZE: readonly StopSize[] = ['ask', '1', '2', '1.5'];

/** SET-CONTROL values (RFC 2217 p. 7); the `ask*` ones request the current state. */
export const CONTROL = {
  askFlow: 0,
  flowNone: 1,
  flowXonXoff: 2,
  flowHardware: 3,
  askBreak: 4,
  breakOn: 5,
  breakOff: 6,
  askDtr: 7,
  dtrOn: 8,
  dtrOff: 9,
  askRts: 10,
  rtsOn: 11,
  rtsOff: 12,
} as const;
export type Control = keyof typeof CONTROL;

export type PurgeBuffers = 'receive' | 'transmit' | 'both';
const PURGE: Record<PurgeBuffers, number> = { receive: 1, transmit: 2, both: 3 };

/** One COM-PORT request from the client. A value of 0 / `ask` asks for the current setting. */
export type ComPortRequest =
  | { set: 'signature'; text?: string }
  | { set: 'baud'; baud: number }
  | { set: 'dataSize'; bits: 0 | 5 | 6 | 7 | 8 }
  | { set: 'parity'; parity: Parity }
  | { set: 'stopSize'; stop: StopSize }
  | { set: 'control'; control: Control }
  | { set: 'lineStateMask'; mask: number }
  | { set: 'modemStateMask'; mask: number }
  | { set: 'purge'; buffers: PurgeBuffers };

/** What the server reported (its answer to a request, or a notification). */
export type ComPortReport =
  | { about: 'signature'; text: string }
  | { about: 'baud'; baud: number }
  | { about: 'dataSize'; bits: number }
  | { about: 'parity'; parity: Parity | number }
  | { about: 'stopSize'; stop: StopSize | number }
  | { about: 'control'; value: number }
  | { about: 'lineState'; state: number }
  | { about: 'modemState'; state: number }
  | { about: 'flowControl'; suspend: boolean }
  | { about: 'lineStateMask'; mask: number }
  | { about: 'modemStateMask'; mask: number }
  | { about: 'purge'; buffers: number }
  | { about: 'unknown'; code: number; payload: Buffer };

export type Verb = 'will' | 'wont' | 'do' | 'dont';
const VERB_BYTE: Record<Verb, number> = { will: WILL, wont: WONT, do: DO, dont: DONT };

export type TelnetEvent =
  | { kind: 'data'; bytes: Buffer }
  | { kind: 'negotiate'; verb: Verb; option: number }
  | { kind: 'comPort'; report: ComPortReport }
  /** A subnegotiation of another option (ignored by a COM-PORT client). */
  | { kind: 'subnegotiation'; option: number; payload: Buffer }
  /** A one-byte command (NOP, DM, BRK, IP, AO, AYT, EC, EL, GA). */
  | { kind: 'command'; command: number };

/** Data bytes as they go on the wire: each 0xFF doubled. Returns a view (no copy) when there is none. */
export function escapeData(bytes: Uint8Array): Buffer {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = view.indexOf(IAC); at >= 0; at = view.indexOf(IAC, at + 1)) count++;
  if (count === 0) return view;
  const out = Buffer.allocUnsafe(view.length + count);
  let o = 0;
  for (const byte of view) {
    out[o++] = byte;
    if (byte === IAC) out[o++] = IAC;
  }
  return out;
}

export function encodeNegotiation(verb: Verb, option: number): Buffer {
  return Buffer.of(IAC, VERB_BYTE[verb], option);
}

/** `IAC SB <option> <payload, 0xFF doubled> IAC SE`. */
export function encodeSubnegotiation(option: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.of(IAC, SB, option), escapeData(payload), Buffer.of(IAC, SE)]);
}

/**
 * Encodes one COM-PORT request. Refuses (RangeError, nothing encoded) a baud rate the board takes
 * for its bootloader touch, and values the option cannot carry.
 */
export function encodeComPort(request: ComPortRequest): Buffer {
  return encodeSubnegotiation(OPTION.comPort, comPortPayload(request));
}

function comPortPayload(request: ComPortRequest): Buffer {
  switch (request.set) {
    case 'signature':
      return Buffer.concat([Buffer.of(COMMAND.signature), Buffer.from(request.text ?? '', 'latin1')]);
    case 'baud': {
      const { baud } = request;
      if (!Number.isInteger(baud) || baud < 0 || baud > 0xffffffff) {
        throw new RangeError(`SET-BAUDRATE takes a whole number of baud from 0 to 2^32-1, not ${baud}`);
      }
      if (BOOTLOADER_BAUDS.has(baud)) {
        throw new RangeError(
          `refusing to send SET-BAUDRATE ${baud}: ${baud} baud is the Jumperless bootloader touch (CDC0 and the REPL port CDC2 reboot into BOOTSEL)`,
        );
      }
      const payload = Buffer.alloc(5);
      payload[0] = COMMAND.baud;
      payload.writeUInt32BE(baud, 1);
      return payload;
    }
    case 'dataSize':
      if (![0, 5, 6, 7, 8].includes(request.bits)) throw new RangeError(`no data size ${request.bits}`);
      return Buffer.of(COMMAND.dataSize, request.bits);
    case 'parity':
      return Buffer.of(COMMAND.parity, PARITY.indexOf(request.parity));
    case 'stopSize':
      return Buffer.of(COMMAND.stopSize, STOP_SIZE.indexOf(request.stop));
    case 'control':
      return Buffer.of(COMMAND.control, CONTROL[request.control]);
    case 'lineStateMask':
    case 'modemStateMask': {
      const { mask } = request;
      if (!Number.isInteger(mask) || mask < 0 || mask > 0xff) throw new RangeError(`no state mask ${mask}`);
      return Buffer.of(
        request.set === 'lineStateMask' ? COMMAND.lineStateMask : COMMAND.modemStateMask,
        mask,
      );
    }
    case 'purge':
      return Buffer.of(COMMAND.purge, PURGE[request.buffers]);
  }
}

/** A server's COM-PORT subnegotiation payload (code + value) as a report. */
export function parseComPort(payload: Buffer): ComPortReport {
  const code = payload[0] ?? -1;
  const value = payload.subarray(1);
  const byte = value[0] ?? 0;
  switch (code - SERVER) {
    case COMMAND.signature:
      return { about: 'signature', text: value.toString('latin1') };
    case COMMAND.baud:
      if (value.length === 4) return { about: 'baud', baud: value.readUInt32BE(0) };
      break;
    case COMMAND.dataSize:
      return { about: 'dataSize', bits: byte };
    case COMMAND.parity:
      return { about: 'parity', parity: PARITY[byte] ?? byte };
    case COMMAND.stopSize:
      return { about: 'stopSize', stop: STOP_SIZE[byte] ?? byte };
    case COMMAND.control:
      return { about: 'control', value: byte };
    case COMMAND.lineState:
      return { about: 'lineState', state: byte };
    case COMMAND.modemState:
      return { about: 'modemState', state: byte };
    case COMMAND.flowSuspend:
      return { about: 'flowControl', suspend: true };
    case COMMAND.flowResume:
      return { about: 'flowControl', suspend: false };
    case COMMAND.lineStateMask:
      return { about: 'lineStateMask', mask: byte };
    case COMMAND.modemStateMask:
      return { about: 'modemStateMask', mask: byte };
    case COMMAND.purge:
      return { about: 'purge', buffers: byte };
  }
  return { about: 'unknown', code, payload: Buffer.from(value) };
}

/** Longest subnegotiation kept (a signature is a few dozen bytes); the rest is counted as stray. */
export const MAX_SUBNEGOTIATION_BYTES = 1024;

type DecoderState = 'data' | 'iac' | 'verb' | 'sbOption' | 'sb' | 'sbIac';

/**
 * Splits a telnet byte stream into data and commands, across any chunking. A doubled 0xFF is one
 * data byte; `IAC` + a byte that is no command is dropped (as ser2net's own parser does); a
 * subnegotiation runs until `IAC SE`, whatever comes in between.
 */
export class TelnetDecoder {
  private state: DecoderState = 'data';
  private verb: Verb = 'will';
  private sbOption = 0;
  private sbBytes: number[] = [];
  /** Bytes that fit nothing (bad commands, the over-long part of a subnegotiation). */
  strayBytes = 0;

  push(chunk: Buffer): TelnetEvent[] {
    const events: TelnetEvent[] = [];
    let from = 0;
    // Fast path inside data: runs up to the next IAC go out as views of the chunk.
    for (let i = 0; i < chunk.length; ) {
      if (this.state === 'data') {
        const at = chunk.indexOf(IAC, i);
        const end = at < 0 ? chunk.length : at;
        if (end > from) events.push({ kind: 'data', bytes: chunk.subarray(from, end) });
        if (at < 0) return events;
        this.state = 'iac';
        i = at + 1;
        from = i;
        continue;
      }
      const byte = chunk[i++] as number;
      from = i;
      switch (this.state) {
        case 'iac':
          if (byte === IAC) {
            this.state = 'data';
            events.push({ kind: 'data', bytes: Buffer.of(IAC) });
          } else if (byte === WILL || byte === WONT || byte === DO || byte === DONT) {
            this.verb = byte === WILL ? 'will' : byte === WONT ? 'wont' : byte === DO ? 'do' : 'dont';
            this.state = 'verb';
          } else if (byte === SB) {
            this.state = 'sbOption';
          } else {
            if (byte > SE) events.push({ kind: 'command', command: byte });
            else this.strayBytes += 2;
            this.state = 'data';
          }
          break;
        case 'verb':
          events.push({ kind: 'negotiate', verb: this.verb, option: byte });
          this.state = 'data';
          break;
        case 'sbOption':
          this.sbOption = byte;
          this.sbBytes = [];
          this.state = byte === IAC ? 'sbIac' : 'sb';
          break;
        case 'sb':
          if (byte === IAC) this.state = 'sbIac';
          else this.keep(byte);
          break;
        case 'sbIac':
          if (byte === SE) {
            events.push(this.endSubnegotiation());
            this.state = 'data';
          } else {
            if (byte === IAC) this.keep(IAC);
            else this.strayBytes += 2;
            this.state = 'sb';
          }
          break;
      }
    }
    return events;
  }

  private keep(byte: number): void {
    if (this.sbBytes.length < MAX_SUBNEGOTIATION_BYTES) this.sbBytes.push(byte);
    else this.strayBytes++;
  }

  private endSubnegotiation(): TelnetEvent {
    const payload = Buffer.from(this.sbBytes);
    this.sbBytes = [];
    if (this.sbOption === OPTION.comPort && payload.length > 0) {
      return { kind: 'comPort', report: parseComPort(payload) };
    }
    return { kind: 'subnegotiation', option: this.sbOption, payload };
  }
}

type Side = 'no' | 'yes' | 'asked';

/**
 * Telnet option negotiation without loops (the "Q method" of RFC 1143, reduced to what a client
 * that only ever turns options on needs): a request that would change nothing gets no answer.
 */
export class OptionNegotiator {
  /** Options we perform (we say WILL), by option. */
  private readonly us = new Map<number, Side>();
  /** Options the server performs (it says WILL, we say DO). */
  private readonly him = new Map<number, Side>();
  /** Options of ours that we asked for and the server turned down. */
  private readonly turnedDown = new Set<number>();

  constructor(
    private readonly wantUs: readonly number[],
    private readonly wantHim: readonly number[],
  ) {}

  /** Our requests for every wanted option not yet on or asked for. */
  offers(): Buffer {
    const out: Buffer[] = [];
    for (const [table, wanted, verb] of [
      [this.us, this.wantUs, 'will'],
      [this.him, this.wantHim, 'do'],
    ] as const) {
      for (const option of wanted) {
        if ((table.get(option) ?? 'no') !== 'no') continue;
        table.set(option, 'asked');
        out.push(encodeNegotiation(verb, option));
      }
    }
    return Buffer.concat(out);
  }

  /** Handles a WILL/WONT/DO/DONT from the server; returns our answer (maybe none). */
  receive(verb: Verb, option: number): Buffer {
    const local = verb === 'do' || verb === 'dont';
    const table = local ? this.us : this.him;
    const side = table.get(option) ?? 'no';
    const [yes, no]: [Verb, Verb] = local ? ['will', 'wont'] : ['do', 'dont'];
    if (verb === 'do' || verb === 'will') {
      if (side === 'yes') return NOTHING;
      if (side === 'asked') {
        table.set(option, 'yes');
        return NOTHING;
      }
      if (!(local ? this.wantUs : this.wantHim).includes(option)) return encodeNegotiation(no, option);
      table.set(option, 'yes');
      return encodeNegotiation(yes, option);
    }
    if (side === 'no') return NOTHING;
    table.set(option, 'no');
    // Our own request turned down: the refusal needs no answer. An option that was on: confirm.
    if (side === 'asked') {
      if (local) this.turnedDown.add(option);
      return NOTHING;
    }
    return encodeNegotiation(no, option);
  }

  /** Whether we perform `option` (`us`) or the server does (`him`). */
  isOn(side: 'us' | 'him', option: number): boolean {
    return (side === 'us' ? this.us : this.him).get(option) === 'yes';
  }

  /** Whether the server turned down our offer to perform `option`. */
  refused(option: number): boolean {
    return this.turnedDown.has(option);
  }
}

const NOTHING = Buffer.alloc(0);

/** The line settings a client asks for when it opens the port. */
export interface LineSettings {
  baud: number;
}

export type ClientPhase =
  /** Connected; nothing heard yet. A COM-PORT server speaks first (ser2net, pyserial's PortManager). */
  | 'greeting'
  /** Options exchanged; waiting for the server to take the COM-PORT option. */
  | 'negotiating'
  /** Line settings sent; waiting for the server to confirm each. */
  | 'configuring'
  | 'ready'
  /** The server is no COM-PORT server; `refusal` says why. Nothing more is sent. */
  | 'refused';

/** The settings whose confirmation ends the handshake, in the order they are sent. */
const CONFIRMED = ['baud', 'dataSize', 'parity', 'stopSize'] as const;

/**
 * The client side of one RFC 2217 connection: feed it what the server sends, write what it returns.
 *
 * It waits for the server's first telnet command before sending anything, so bytes meant for a
 * telnet server never reach a board behind a raw TCP port (where, ahead of a Ctrl-C, they would
 * wedge a running script: spec §3.3). Then it takes BINARY both ways (no CR/NUL rewriting),
 * suppress-go-ahead, refuses the server's ECHO, offers COM-PORT, and once the server takes it sets
 * the line (baud, 8 data bits, no parity, 1 stop bit, no flow control) and raises DTR and RTS, as
 * opening a local port does (the firmware ignores a host whose DTR is low: spec §1 "DTR").
 */
export class ComPortClient {
  private readonly decoder = new TelnetDecoder();
  private readonly options = new OptionNegotiator(
    [OPTION.binary, OPTION.suppressGoAhead, OPTION.comPort],
    [OPTION.binary, OPTION.suppressGoAhead],
  );
  private phaseNow: ClientPhase = 'greeting';
  private readonly pendingConfirmations = new Set<string>(CONFIRMED);
  private readonly settingsRequest: Buffer;
  /** Why the server is not usable, once `phase` is `refused`. */
  refusal: string | undefined;
  /** What the server said about itself and the port. */
  readonly server: {
    signature?: string;
    baud?: number;
    modemState?: number;
    lineState?: number;
    /** The server asked us to stop sending (FLOWCONTROL-SUSPEND) and has not resumed. */
    suspended: boolean;
  } = { suspended: false };

  constructor(settings: LineSettings) {
    // Encoded up front: a refused baud rate fails here, before any connection is made.
    this.settingsRequest = Buffer.concat([
      encodeComPort({ set: 'baud', baud: settings.baud }),
      encodeComPort({ set: 'dataSize', bits: 8 }),
      encodeComPort({ set: 'parity', parity: 'none' }),
      encodeComPort({ set: 'stopSize', stop: '1' }),
      encodeComPort({ set: 'control', control: 'flowNone' }),
      encodeComPort({ set: 'control', control: 'dtrOn' }),
      encodeComPort({ set: 'control', control: 'rtsOn' }),
    ]);
  }

  get phase(): ClientPhase {
    return this.phaseNow;
  }

  get strayBytes(): number {
    return this.decoder.strayBytes;
  }

  /** The session's bytes as they go on the wire. */
  encodeData(bytes: Uint8Array): Buffer {
    return escapeData(bytes);
  }

  /**
   * Feeds bytes from the server. Returns the board's bytes (`data`) and what to write back to the
   * server (`send`, telnet commands only).
   */
  push(chunk: Buffer): { data: Buffer[]; send: Buffer[] } {
    const data: Buffer[] = [];
    const send: Buffer[] = [];
    if (this.phaseNow === 'refused') return { data, send };
    for (const event of this.decoder.push(chunk)) {
      if (this.phaseNow === 'greeting') {
        if (event.kind === 'data') {
          this.refuse('it sent data before any telnet negotiation (a raw TCP port?)');
          data.push(event.bytes);
          continue;
        }
        this.phaseNow = 'negotiating';
        const offers = this.options.offers();
        // Answer the server's first command after the offers: an answer to a DO COM-PORT that
        // came first would otherwise repeat the offer.
        const answer = this.handle(event, data);
        if (offers.length > 0) send.push(offers);
        if (answer.length > 0) send.push(answer);
      } else {
        const answer = this.handle(event, data);
        if (answer.length > 0) send.push(answer);
      }
      if (this.phaseNow === 'negotiating') {
        if (this.options.isOn('us', OPTION.comPort)) {
          this.phaseNow = 'configuring';
          send.push(this.settingsRequest);
        } else if (this.options.refused(OPTION.comPort)) {
          this.refuse('it speaks telnet but refused the COM-PORT option (RFC 2217)');
        }
      }
      if (this.refusal !== undefined) break;
    }
    return { data, send };
  }

  private handle(event: TelnetEvent, data: Buffer[]): Buffer {
    switch (event.kind) {
      case 'data':
        data.push(event.bytes);
        return NOTHING;
      case 'negotiate':
        return this.options.receive(event.verb, event.option);
      case 'comPort':
        this.note(event.report);
        return NOTHING;
      default:
        return NOTHING;
    }
  }

  private note(report: ComPortReport): void {
    switch (report.about) {
      case 'signature':
        this.server.signature = report.text;
        break;
      case 'baud':
        this.server.baud = report.baud;
        break;
      case 'modemState':
        this.server.modemState = report.state;
        break;
      case 'lineState':
        this.server.lineState = report.state;
        break;
      case 'flowControl':
        this.server.suspended = report.suspend;
        break;
    }
    if (this.phaseNow === 'configuring' && this.pendingConfirmations.delete(report.about)) {
      if (this.pendingConfirmations.size === 0) this.phaseNow = 'ready';
    }
  }

  private refuse(why: string): void {
    this.phaseNow = 'refused';
    this.refusal = why;
  }
}
