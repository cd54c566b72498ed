import { describe, expect, it } from 'vitest';
import {
  BOOTLOADER_BAUDS,
  ComPortClient,
  encodeComPort,
  encodeNegotiation,
  encodeSubnegotiation,
  escapeData,
  MAX_SUBNEGOTIATION_BYTES,
  OPTION,
  OptionNegotiator,
  parseComPort,
  TELNET_NOP,
  TelnetDecoder,
  type TelnetEvent,
} from './rfc2217.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** Every single split point, every pair for short inputs, and byte by byte (as rawRepl.test.ts). */
function* splittings(length: number): Generator<number[]> {
  yield [];
  for (let i = 1; i < length; i++) yield [i];
  if (length <= 48) {
    for (let i = 1; i < length; i++) for (let j = i + 1; j < length; j++) yield [i, j];
  }
  yield Array.from({ length: Math.max(0, length - 1) }, (_, i) => i + 1);
}

function pieces(input: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    out.push(input.subarray(from, cut));
    from = cut;
  }
  return out;
}

/** Decoder events with adjacent data merged: how data is cut depends on the chunks, not its bytes. */
function decode(input: Buffer, cuts: number[]): { events: TelnetEvent[]; stray: number } {
  const decoder = new TelnetDecoder();
  const events: TelnetEvent[] = [];
  for (const piece of pieces(input, cuts)) {
    for (const event of decoder.push(piece)) {
      const last = events.at(-1);
      if (event.kind === 'data' && last?.kind === 'data') {
        last.bytes = Buffer.concat([last.bytes, event.bytes]);
      } else {
        events.push(event.kind === 'data' ? { kind: 'data', bytes: Buffer.from(event.bytes) } : event);
      }
    }
  }
  return { events, stray: decoder.strayBytes };
}

function expectSameEverySplit(input: Buffer, expected: TelnetEvent[], stray = 0): void {
  for (const cuts of splittings(input.length)) {
    expect(decode(input, cuts), `cuts ${cuts.join(',')}`).toEqual({ events: expected, stray });
  }
}

const data = (text: string | Buffer): TelnetEvent => ({
  kind: 'data',
  bytes: typeof text === 'string' ? Buffer.from(text, 'latin1') : text,
});

/** What ser2net 4.3.11 (Debian 12) sent on a `telnet(rfc2217)` accepter, captured on loopback. */
const SER2NET_GREETING = hex('fffb03 fffd03 fffb01 fffe01 fffd00 fffb00 fffd2c');
const SER2NET_AFTER_OFFERS = hex('fffa2c6b00fff0 fffd03');
const SER2NET_SETTINGS_REPLY = hex('fffa2c650001c200fff0 fffa2c6608fff0 fffa2c6701fff0 fffa2c6801fff0');

describe('telnet data escaping', () => {
  it('doubles every 0xFF and nothing else', () => {
    expect(escapeData(hex('00 ff 41 ff ff 0d 0a'))).toEqual(hex('00 ffff 41 ffffffff 0d 0a'));
  });

  it('hands back the same bytes without copying when there is no 0xFF', () => {
    const bytes = Buffer.from('print(1)\x04');
    const escaped = escapeData(bytes);
    expect(escaped).toEqual(bytes);
    expect(escaped.buffer).toBe(bytes.buffer);
  });

  it('carries all 256 byte values through escape and decode, at every split point', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const wire = escapeData(all);
    expect(wire.length).toBe(257);
    for (const cuts of splittings(wire.length)) {
      expect(decode(wire, cuts), `cuts ${cuts.join(',')}`).toEqual({ events: [data(all)], stray: 0 });
    }
  });

  it('never lets a random buffer come out different (1000 random buffers, random chunking)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let round = 0; round < 1000; round++) {
      const bytes = Buffer.from(
        Array.from({ length: 1 + Math.floor(random() * 64) }, () =>
          random() < 0.2 ? 0xff : Math.floor(random() * 256),
        ),
      );
      const wire = escapeData(bytes);
      const cuts = [...new Set(Array.from({ length: 4 }, () => Math.floor(random() * wire.length)))]
        .filter((cut) => cut > 0)
        .sort((a, b) => a - b);
      expect(decode(wire, cuts).events).toEqual([data(bytes)]);
    }
  });
});

describe('telnet decoder', () => {
  it('splits ser2net greeting, a COM-PORT report, data and a command apart, at every split point', () => {
    const input = Buffer.concat([
      hex('fffd2c'),
      Buffer.from('OK\r\n'),
      hex('fffa2c650001c200fff0'),
      hex('41 ffff 42'),
      hex('fff1'),
      Buffer.from('>'),
    ]);
    expectSameEverySplit(input, [
      { kind: 'negotiate', verb: 'do', option: OPTION.comPort },
      data('OK\r\n'),
      { kind: 'comPort', report: { about: 'baud', baud: 115200 } },
      data(hex('41ff42')),
      { kind: 'command', command: 0xf1 },
      data('>'),
    ]);
  });

  it('reads a doubled 0xFF inside a subnegotiation as one byte, at every split point', () => {
    expectSameEverySplit(hex('fffa2c6500ffff00ffff fff0 7a'), [
      { kind: 'comPort', report: { about: 'baud', baud: 0x00ff00ff } },
      data('z'),
    ]);
  });

  it('reads our own acknowledging NOP as a command, never as data', () => {
    expectSameEverySplit(Buffer.concat([hex('41'), TELNET_NOP, hex('42')]), [
      data('A'),
      { kind: 'command', command: 0xf1 },
      data('B'),
    ]);
  });

  it('drops IAC followed by a byte that is no command, as ser2net does', () => {
    expectSameEverySplit(hex('61 ff62 63'), [data('ac')], 2);
  });

  it('drops IAC + junk inside a subnegotiation and keeps reading it until IAC SE', () => {
    expectSameEverySplit(
      hex('fffa2c6b ff01 80 fff0'),
      [{ kind: 'comPort', report: { about: 'modemState', state: 0x80 } }],
      2,
    );
  });

  it('keeps the data of an unfinished subnegotiation out of the data stream', () => {
    const decoder = new TelnetDecoder();
    expect(decoder.push(hex('fffa2c64 736572'))).toEqual([]);
    expect(decoder.push(hex('326e6574'))).toEqual([]);
    expect(decoder.push(hex('fff0 41'))).toEqual([
      { kind: 'comPort', report: { about: 'signature', text: 'ser2net' } },
      data('A'),
    ]);
  });

  it('caps an endless subnegotiation and counts what it dropped', () => {
    const decoder = new TelnetDecoder();
    decoder.push(hex('fffa18'));
    for (let i = 0; i < 10; i++) expect(decoder.push(Buffer.alloc(1000, 0x41))).toEqual([]);
    const [event] = decoder.push(hex('fff0'));
    expect(event).toMatchObject({ kind: 'subnegotiation', option: 0x18 });
    if (event?.kind !== 'subnegotiation') throw new Error('expected a subnegotiation');
    expect(event.payload.length).toBe(MAX_SUBNEGOTIATION_BYTES);
    expect(decoder.strayBytes).toBe(10_000 - MAX_SUBNEGOTIATION_BYTES);
  });
});

describe('COM-PORT encoding (RFC 2217 §3)', () => {
  it('encodes each request with the RFC code and value', () => {
    expect(encodeComPort({ set: 'baud', baud: 115200 })).toEqual(hex('fffa2c 01 0001c200 fff0'));
    expect(encodeComPort({ set: 'baud', baud: 0 })).toEqual(hex('fffa2c 01 00000000 fff0'));
    expect(encodeComPort({ set: 'dataSize', bits: 8 })).toEqual(hex('fffa2c 02 08 fff0'));
    expect(encodeComPort({ set: 'parity', parity: 'none' })).toEqual(hex('fffa2c 03 01 fff0'));
    expect(encodeComPort({ set: 'parity', parity: 'space' })).toEqual(hex('fffa2c 03 05 fff0'));
    expect(encodeComPort({ set: 'stopSize', stop: '1' })).toEqual(hex('fffa2c 04 01 fff0'));
    expect(encodeComPort({ set: 'stopSize', stop: '1.5' })).toEqual(hex('fffa2c 04 03 fff0'));
    expect(encodeComPort({ set: 'control', control: 'dtrOn' })).toEqual(hex('fffa2c 05 08 fff0'));
    expect(encodeComPort({ set: 'control', control: 'rtsOn' })).toEqual(hex('fffa2c 05 0b fff0'));
    expect(encodeComPort({ set: 'control', control: 'flowNone' })).toEqual(hex('fffa2c 05 01 fff0'));
    expect(encodeComPort({ set: 'lineStateMask', mask: 0 })).toEqual(hex('fffa2c 0a 00 fff0'));
    expect(encodeComPort({ set: 'purge', buffers: 'both' })).toEqual(hex('fffa2c 0c 03 fff0'));
    expect(encodeComPort({ set: 'signature' })).toEqual(hex('fffa2c 00 fff0'));
  });

  it('doubles a 0xFF in a value, and the decoder reads the same request back', () => {
    const wire = encodeComPort({ set: 'modemStateMask', mask: 0xff });
    expect(wire).toEqual(hex('fffa2c 0b ffff fff0'));
    expect(encodeSubnegotiation(OPTION.comPort, hex('01 0001c2ff'))).toEqual(
      hex('fffa2c 01 0001c2ffff fff0'),
    );
    expect(new TelnetDecoder().push(wire)).toEqual([
      { kind: 'comPort', report: { about: 'unknown', code: 11, payload: hex('ff') } },
    ]);
  });

  it('refuses the bootloader touch: SET-BAUDRATE 1200 is never encoded', () => {
    expect(BOOTLOADER_BAUDS.has(1200)).toBe(true);
    expect(() => encodeComPort({ set: 'baud', baud: 1200 })).toThrow(
      /refusing to send SET-BAUDRATE 1200: 1200 baud is the Jumperless bootloader touch/,
    );
    expect(() => new ComPortClient({ baud: 1200 })).toThrow(/bootloader touch/);
    // The neighbours are ordinary line codings.
    expect(encodeComPort({ set: 'baud', baud: 1199 })).toEqual(hex('fffa2c 01 000004af fff0'));
    expect(encodeComPort({ set: 'baud', baud: 2400 })).toEqual(hex('fffa2c 01 00000960 fff0'));
  });

  it('refuses values the option cannot carry', () => {
    expect(() => encodeComPort({ set: 'baud', baud: -1 })).toThrow(RangeError);
    expect(() => encodeComPort({ set: 'baud', baud: 2 ** 32 })).toThrow(RangeError);
    expect(() => encodeComPort({ set: 'baud', baud: 9600.5 })).toThrow(RangeError);
    expect(() => encodeComPort({ set: 'lineStateMask', mask: 256 })).toThrow(RangeError);
    expect(() => encodeComPort({ set: 'dataSize', bits: 9 as 8 })).toThrow(RangeError);
  });

  it('parses every server report', () => {
    expect(parseComPort(hex('64 6162'))).toEqual({ about: 'signature', text: 'ab' });
    expect(parseComPort(hex('65 0001c200'))).toEqual({ about: 'baud', baud: 115200 });
    expect(parseComPort(hex('66 08'))).toEqual({ about: 'dataSize', bits: 8 });
    expect(parseComPort(hex('67 03'))).toEqual({ about: 'parity', parity: 'even' });
    expect(parseComPort(hex('68 02'))).toEqual({ about: 'stopSize', stop: '2' });
    expect(parseComPort(hex('69 08'))).toEqual({ about: 'control', value: 8 });
    expect(parseComPort(hex('6a 60'))).toEqual({ about: 'lineState', state: 0x60 });
    expect(parseComPort(hex('6b 30'))).toEqual({ about: 'modemState', state: 0x30 });
    expect(parseComPort(hex('6c'))).toEqual({ about: 'flowControl', suspend: true });
    expect(parseComPort(hex('6d'))).toEqual({ about: 'flowControl', suspend: false });
    expect(parseComPort(hex('70 03'))).toEqual({ about: 'purge', buffers: 3 });
    expect(parseComPort(hex('65 0001'))).toEqual({ about: 'unknown', code: 101, payload: hex('0001') });
    expect(parseComPort(hex('01 0001c200'))).toMatchObject({ about: 'unknown', code: 1 });
  });
});

describe('option negotiation', () => {
  const negotiator = () => new OptionNegotiator([OPTION.binary, OPTION.comPort], [OPTION.binary]);

  it('offers each wanted option once', () => {
    const options = negotiator();
    expect(options.offers()).toEqual(hex('fffb00 fffb2c fffd00'));
    expect(options.offers()).toEqual(Buffer.alloc(0));
  });

  it('takes what it wants, refuses the rest, and never answers an answer', () => {
    const options = negotiator();
    expect(options.receive('do', OPTION.comPort)).toEqual(encodeNegotiation('will', OPTION.comPort));
    expect(options.receive('do', OPTION.comPort)).toEqual(Buffer.alloc(0));
    expect(options.receive('will', OPTION.echo)).toEqual(encodeNegotiation('dont', OPTION.echo));
    expect(options.receive('do', OPTION.echo)).toEqual(encodeNegotiation('wont', OPTION.echo));
    expect(options.receive('dont', OPTION.echo)).toEqual(Buffer.alloc(0));
    expect(options.isOn('us', OPTION.comPort)).toBe(true);
    expect(options.isOn('him', OPTION.echo)).toBe(false);
  });

  it('confirms an option turned off, and records a refused offer', () => {
    const options = negotiator();
    options.offers();
    expect(options.receive('do', OPTION.binary)).toEqual(Buffer.alloc(0));
    expect(options.receive('dont', OPTION.binary)).toEqual(encodeNegotiation('wont', OPTION.binary));
    expect(options.receive('dont', OPTION.comPort)).toEqual(Buffer.alloc(0));
    expect(options.refused(OPTION.comPort)).toBe(true);
    expect(options.refused(OPTION.binary)).toBe(false);
  });
});

/** Runs a whole server transcript through a client at the given cuts; all it sent and got. */
function converse(server: Buffer, cuts: number[]): { sent: Buffer; data: Buffer; client: ComPortClient } {
  const client = new ComPortClient({ baud: 115200 });
  const sent: Buffer[] = [];
  const got: Buffer[] = [];
  for (const piece of pieces(server, cuts)) {
    const { data, send } = client.push(piece);
    sent.push(...send);
    got.push(...data);
  }
  return { sent: Buffer.concat(sent), data: Buffer.concat(got), client };
}

/** What our client answers to ser2net's greeting: offers, ECHO refused, then the line settings. */
const OUR_OFFERS = hex('fffb00 fffb03 fffb2c fffd00 fffd03');
const OUR_ANSWERS = hex('fffe01');
const OUR_SETTINGS = hex(
  'fffa2c010001c200fff0 fffa2c0208fff0 fffa2c0301fff0 fffa2c0401fff0 fffa2c0501fff0 fffa2c0508fff0 fffa2c050bfff0',
);

describe('COM-PORT client handshake', () => {
  it('sends nothing until the server speaks', () => {
    const client = new ComPortClient({ baud: 115200 });
    expect(client.push(Buffer.alloc(0))).toEqual({ data: [], send: [] });
    expect(client.phase).toBe('greeting');
  });

  it('walks ser2net 4.3 through the handshake the same way at every split point', () => {
    const server = Buffer.concat([
      SER2NET_GREETING,
      SER2NET_AFTER_OFFERS,
      SER2NET_SETTINGS_REPLY,
      Buffer.from('\r\n>>> '),
    ]);
    for (const cuts of splittings(server.length)) {
      const { sent, data, client } = converse(server, cuts);
      expect(sent, `cuts ${cuts.join(',')}`).toEqual(Buffer.concat([OUR_OFFERS, OUR_ANSWERS, OUR_SETTINGS]));
      expect(data.toString('latin1')).toBe('\r\n>>> ');
      expect(client.phase).toBe('ready');
      expect(client.server).toMatchObject({ baud: 115200, modemState: 0, suspended: false });
    }
  });

  it('is ready only once all four line settings are confirmed', () => {
    const client = new ComPortClient({ baud: 115200 });
    client.push(SER2NET_GREETING);
    expect(client.phase).toBe('configuring');
    client.push(hex('fffa2c650001c200fff0 fffa2c6608fff0 fffa2c6701fff0'));
    expect(client.phase).toBe('configuring');
    client.push(hex('fffa2c6801fff0'));
    expect(client.phase).toBe('ready');
  });

  it('passes board bytes that arrive during the handshake through, never as commands', () => {
    const client = new ComPortClient({ baud: 115200 });
    client.push(SER2NET_GREETING);
    expect(client.push(hex('41 ffff 42 fffa2c650001c200fff0'))).toEqual({
      data: [hex('41'), hex('ff'), hex('42')],
      send: [],
    });
  });

  it('refuses a server that sends data before any negotiation (a raw port), and sends nothing', () => {
    const { sent, data, client } = converse(Buffer.from('Port already in use\r\n'), [4]);
    expect(sent.length).toBe(0);
    expect(client.phase).toBe('refused');
    expect(client.refusal).toMatch(/data before any telnet negotiation/);
    expect(data.toString()).toBe('Port');
    expect(client.push(SER2NET_GREETING)).toEqual({ data: [], send: [] });
  });

  it('refuses a telnet server that turns down COM-PORT', () => {
    const { client } = converse(hex('fffb03 fffe2c'), []);
    expect(client.phase).toBe('refused');
    expect(client.refusal).toMatch(/refused the COM-PORT option/);
  });

  it('follows flow control and notifications after the handshake', () => {
    const client = new ComPortClient({ baud: 115200 });
    client.push(Buffer.concat([SER2NET_GREETING, SER2NET_SETTINGS_REPLY]));
    client.push(hex('fffa2c6c fff0'));
    expect(client.server.suspended).toBe(true);
    client.push(hex('fffa2c6d fff0 fffa2c6a60fff0 fffa2c64 736572326e6574 fff0'));
    expect(client.server).toMatchObject({ suspended: false, lineState: 0x60, signature: 'ser2net' });
  });
});
