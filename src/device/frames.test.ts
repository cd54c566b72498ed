import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, FrameError, MAX_FRAME_BYTES } from './frames.js';

const MESSAGES = [
  { type: 'ping' },
  {
    type: 'run_tool',
    tool_id: 'jumperless.dac_set',
    args: { channel: 1, volts: 3.3, note: 'µ – ✓ 🎛' },
    dry_run: false,
  },
  { type: 'hello', client_id: 'x', requested_capabilities: [] },
];

function header(length: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(length >>> 0, 0);
  return bytes;
}

function frameOf(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([header(bytes.length), bytes]);
}

describe('encodeFrame', () => {
  it('writes a big-endian length then UTF-8 JSON', () => {
    const frame = encodeFrame({ type: 'pong', s: 'é' });
    const body = '{"type":"pong","s":"é"}';
    expect(frame.readUInt32BE(0)).toBe(Buffer.byteLength(body));
    expect(frame.subarray(4).toString('utf8')).toBe(body);
  });

  it('refuses a message over the cap', () => {
    expect(() => encodeFrame({ s: 'x'.repeat(100) }, 50)).toThrow(FrameError);
  });
});

describe('FrameDecoder', () => {
  const stream = Buffer.concat(MESSAGES.map((m) => encodeFrame(m)));

  it('decodes the same messages whatever the single split point', () => {
    for (let at = 0; at <= stream.length; at++) {
      const decoder = new FrameDecoder();
      const first = decoder.push(stream.subarray(0, at));
      const second = decoder.push(stream.subarray(at));
      expect([...first.messages, ...second.messages]).toEqual(MESSAGES);
      expect(first.error ?? second.error).toBeUndefined();
      expect(decoder.midFrame).toBe(false);
    }
  });

  it('decodes the same messages whatever the two split points', () => {
    const small = Buffer.concat([encodeFrame({ a: 1 }), encodeFrame('é'), encodeFrame([])]);
    for (let i = 0; i <= small.length; i++) {
      for (let j = i; j <= small.length; j++) {
        const decoder = new FrameDecoder();
        const got = [small.subarray(0, i), small.subarray(i, j), small.subarray(j)].flatMap(
          (part) => decoder.push(part).messages,
        );
        expect(got).toEqual([{ a: 1 }, 'é', []]);
      }
    }
  });

  it('decodes byte by byte, splitting multi-byte characters', () => {
    const decoder = new FrameDecoder();
    const got: unknown[] = [];
    for (const byte of stream) got.push(...decoder.push(Uint8Array.of(byte)).messages);
    expect(got).toEqual(MESSAGES);
  });

  it('holds a truncated frame without output until the rest arrives', () => {
    const frame = encodeFrame({ type: 'tool_list' });
    const decoder = new FrameDecoder();
    expect(decoder.push(frame.subarray(0, 2))).toEqual({ messages: [] });
    expect(decoder.midFrame).toBe(true);
    expect(decoder.push(frame.subarray(2, 10))).toEqual({ messages: [] });
    expect(decoder.buffered).toBe(10);
    expect(decoder.push(frame.subarray(10)).messages).toEqual([{ type: 'tool_list' }]);
    expect([decoder.midFrame, decoder.buffered]).toEqual([false, 0]);
  });

  it('refuses a giant length from the header alone, keeping frames decoded before it', () => {
    for (const length of [MAX_FRAME_BYTES + 1, 0xffffffff, 0x80000000]) {
      const decoder = new FrameDecoder();
      const result = decoder.push(Buffer.concat([encodeFrame({ ok: 1 }), header(length)]));
      expect(result.messages).toEqual([{ ok: 1 }]);
      expect(result.error?.kind).toBe('too_large');
      expect(result.error?.message).toBe(
        `frame of ${length} bytes is over the ${MAX_FRAME_BYTES}-byte limit`,
      );
      expect(decoder.buffered).toBe(0);
      // A broken stream stays broken: framing cannot be trusted after a bad frame.
      expect(decoder.push(encodeFrame({ ok: 2 })).messages).toEqual([]);
    }
  });

  it('accepts a frame of exactly the cap', () => {
    const body = JSON.stringify('x'.repeat(MAX_FRAME_BYTES - 2));
    const decoder = new FrameDecoder();
    const frame = frameOf(body);
    const got: unknown[] = [];
    for (let at = 0; at < frame.length; at += 65_536)
      got.push(...decoder.push(frame.subarray(at, at + 65_536)).messages);
    expect(got).toHaveLength(1);
    expect((got[0] as string).length).toBe(MAX_FRAME_BYTES - 2);
  });

  it('stores only what arrived of a frame that promises the maximum', () => {
    const decoder = new FrameDecoder();
    decoder.push(Buffer.concat([header(MAX_FRAME_BYTES), Buffer.from('"abc')]));
    expect(decoder.buffered).toBe(8);
  });

  it('names the fault of an empty frame, bad JSON and bad UTF-8', () => {
    const cases: [Buffer, string, RegExp][] = [
      [frameOf(''), 'invalid_json', /not valid JSON \(empty\)/],
      [frameOf('{"type": "ping",}'), 'invalid_json', /not valid JSON/],
      [frameOf('{"type"'), 'invalid_json', /not valid JSON/],
      [frameOf(Buffer.from([0x22, 0xc3, 0x28, 0x22])), 'invalid_utf8', /not valid UTF-8/],
      [frameOf(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])), 'invalid_utf8', /not valid UTF-8/],
    ];
    for (const [frame, kind, message] of cases) {
      const result = new FrameDecoder().push(frame);
      expect(result.error?.kind).toBe(kind);
      expect(result.error?.message).toMatch(message);
    }
  });

  it('never throws on random bytes, whatever the chunking', () => {
    let errors = 0;
    for (let round = 0; round < 2000; round++) {
      const decoder = new FrameDecoder(4096);
      // Small lengths half the time, so some garbage bodies complete and reach the JSON parser.
      const bytes = randomBytes(4 + (round % 300));
      if (round % 2 === 0) bytes.writeUInt32BE(round % 64, 0);
      let at = 0;
      while (at < bytes.length) {
        const step = 1 + ((round * 7 + at) % 17);
        const result = decoder.push(bytes.subarray(at, at + step));
        if (result.error) {
          errors++;
          expect(result.error).toBeInstanceOf(FrameError);
          break;
        }
        at += step;
      }
    }
    expect(errors).toBeGreaterThan(1000);
  });
});
