import { describe, expect, it } from 'vitest';
import { isDeviceError } from './errors.js';
import {
  type Expectation,
  encodeCode,
  encodeExec,
  MAX_OUTPUT_BYTES,
  RAW_HEADER,
  RawReplDecoder,
  type ReplEvent,
} from './rawRepl.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

/** Feeds `input` split at the given offsets, returning all events. */
function feedSplit(mode: Expectation, input: Buffer, cuts: number[], max?: number): ReplEvent[] {
  const decoder = new RawReplDecoder(max);
  decoder.expect(mode);
  const events: ReplEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    events.push(...decoder.push(input.subarray(from, cut)));
    from = cut;
  }
  return events;
}

/** Every single split point, every pair of split points for short inputs, and byte-by-byte. */
function* splittings(length: number): Generator<number[]> {
  yield [];
  for (let i = 1; i < length; i++) yield [i];
  if (length <= 40) {
    for (let i = 1; i < length; i++) for (let j = i + 1; j < length; j++) yield [i, j];
  }
  yield Array.from({ length: Math.max(0, length - 1) }, (_, i) => i + 1);
}

function expectSameEverySplit(mode: Expectation, input: Buffer, expected: ReplEvent[]): void {
  for (const cuts of splittings(input.length)) {
    expect(feedSplit(mode, input, cuts), `cuts ${cuts.join(',')}`).toEqual(expected);
  }
}

const result = (stdout: string, stderr = '', extra: Partial<ReplEvent> = {}): ReplEvent =>
  ({ kind: 'result', stdout, stderr, truncated: false, anomaly: false, ...extra }) as ReplEvent;

describe('raw REPL decoder: prompt', () => {
  it('finds the header after friendly-mode chatter, at every split point', () => {
    const input = bytes(`\r\n>>> \r\n>>> \r\n>>> \r\n${RAW_HEADER}`);
    expectSameEverySplit('prompt', input, [{ kind: 'prompt' }]);
  });

  it('does not report a partial header', () => {
    expect(feedSplit('prompt', bytes(RAW_HEADER.slice(0, -1)), [3, 9])).toEqual([]);
  });

  it('ignores bytes while idle and counts them as stray', () => {
    const decoder = new RawReplDecoder();
    expect(decoder.push(bytes(`OK\x04\x04>${RAW_HEADER}`))).toEqual([]);
    expect(decoder.strayBytes).toBe(5 + RAW_HEADER.length);
  });
});

describe('raw REPL decoder: exec reply', () => {
  it('parses OK + stdout + \\x04 + stderr + \\x04 + > at every split', () => {
    expectSameEverySplit('exec', bytes('OKhello\n\x04\x04>'), [{ kind: 'ok' }, result('hello\n')]);
  });

  it('parses a traceback in the stderr part', () => {
    const tb =
      'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\nZeroDivisionError: divide by zero\n';
    expectSameEverySplit('exec', bytes(`OK\x04${tb}\x04>`), [{ kind: 'ok' }, result('', tb)]);
  });

  it('tolerates stray output (even control bytes) before OK', () => {
    const input = bytes(`\x04>garbage\x00\x01\xff${RAW_HEADER}OKx\x04\x04>`);
    expect(feedSplit('exec', input, [4, 11])).toEqual([{ kind: 'ok' }, result('x')]);
  });

  it('decodes UTF-8 split across chunks', () => {
    const input = Buffer.concat([bytes('OK'), Buffer.from('µ→𝄞\n', 'utf8'), bytes('\x04\x04>')]);
    expectSameEverySplit('exec', input, [{ kind: 'ok' }, result('µ→𝄞\n')]);
  });

  it('waits on a truncated frame and completes when the rest arrives', () => {
    const decoder = new RawReplDecoder();
    decoder.expect('exec');
    expect(decoder.push(bytes('OKpart'))).toEqual([{ kind: 'ok' }]);
    expect(decoder.push(bytes('ial\x04'))).toEqual([]);
    expect(decoder.push(bytes('\x04>'))).toEqual([result('partial')]);
  });

  it('flags bytes between the second \\x04 and the prompt as an anomaly', () => {
    expect(feedSplit('exec', bytes('OKa\x04b\x04junk>'), [])).toEqual([
      { kind: 'ok' },
      result('a', 'b', { anomaly: true }),
    ]);
  });

  it('leaves bytes after the prompt as stray', () => {
    const decoder = new RawReplDecoder();
    decoder.expect('exec');
    decoder.push(bytes('OK\x04\x04>late'));
    expect(decoder.strayBytes).toBe(4);
  });

  it('caps a flood at the output limit with a clear marker', () => {
    const decoder = new RawReplDecoder();
    decoder.expect('exec');
    decoder.push(bytes('OK'));
    const block = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 48; i++) expect(decoder.push(block)).toEqual([]); // 3 MB
    const [event] = decoder.push(bytes('\x04\x04>'));
    if (event?.kind !== 'result') throw new Error('expected a result');
    expect(event.truncated).toBe(true);
    expect(event.stdout.startsWith('a'.repeat(MAX_OUTPUT_BYTES))).toBe(true);
    expect(event.stdout.slice(MAX_OUTPUT_BYTES)).toBe(
      `\n[output truncated: ${48 * 64 * 1024 - MAX_OUTPUT_BYTES} more bytes dropped after the first ${MAX_OUTPUT_BYTES}]\n`,
    );
  });

  it('applies a custom cap to stderr too', () => {
    const [, event] = feedSplit('exec', bytes('OK12345\x04abcdef\x04>'), [], 4);
    expect(event).toMatchObject({
      kind: 'result',
      stdout: expect.stringMatching(/^1234\n\[output truncated: 1 more/),
    });
    expect(event).toMatchObject({
      stderr: expect.stringMatching(/^abcd\n\[output truncated: 2 more/),
      truncated: true,
    });
  });

  it('handles two replies in one chunk when re-armed between them', () => {
    const decoder = new RawReplDecoder();
    decoder.expect('exec');
    const first = decoder.push(bytes('OK1\x04\x04>'));
    decoder.expect('exec');
    const second = decoder.push(bytes('OK2\x04\x04>'));
    expect([...first, ...second]).toEqual([{ kind: 'ok' }, result('1'), { kind: 'ok' }, result('2')]);
  });
});

describe('raw REPL decoder: raw-paste', () => {
  it('reads acceptance with the window size, then window grants, at every split', () => {
    expectSameEverySplit('pasteReply', bytes('R\x01\x80\x00\x01\x01'), [
      { kind: 'pasteAccepted', window: 128 },
      { kind: 'pasteWindow' },
      { kind: 'pasteWindow' },
    ]);
  });

  it('reads a little-endian window above 255', () => {
    expect(feedSplit('pasteReply', bytes('R\x01\x00\x02\x01'), [])).toEqual([
      { kind: 'pasteAccepted', window: 512 },
      { kind: 'pasteWindow' },
    ]);
  });

  it('reads a refusal', () => {
    expectSameEverySplit('pasteReply', bytes('R\x00'), [{ kind: 'pasteRefused', answered: true }]);
  });

  it('reads "not understood" when the device just re-enters raw mode', () => {
    expectSameEverySplit('pasteReply', bytes(RAW_HEADER), [
      { kind: 'pasteRefused', answered: false },
      { kind: 'prompt' },
    ]);
  });

  it('treats \\x04 during the paste as an abort, then reads the output', () => {
    const input = bytes('R\x01\x80\x00\x01\x04\x04Traceback\nKeyboardInterrupt: \n\x04>');
    expectSameEverySplit('pasteReply', input, [
      { kind: 'pasteAccepted', window: 128 },
      { kind: 'pasteWindow' },
      { kind: 'pasteAbort' },
      result('', 'Traceback\nKeyboardInterrupt: \n'),
    ]);
  });

  it('after the host ends the paste, skips late grants and reads the acknowledgement and output', () => {
    const decoder = new RawReplDecoder();
    decoder.expect('pasteReply');
    expect(decoder.push(bytes('R\x01\x80\x00'))).toEqual([{ kind: 'pasteAccepted', window: 128 }]);
    decoder.expect('pasteEnd');
    expect(decoder.push(bytes('\x01\x04big\x04\x04>'))).toEqual([{ kind: 'pasteDone' }, result('big')]);
  });
});

describe('raw REPL decoder: hostile input', () => {
  it('never throws and stays bounded on random bytes in any mode', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const modes: Expectation[] = ['idle', 'prompt', 'exec', 'pasteReply', 'pasteEnd', 'output'];
    for (const mode of modes) {
      const decoder = new RawReplDecoder(1024);
      decoder.expect(mode);
      for (let round = 0; round < 200; round++) {
        const chunk = Buffer.from(Array.from({ length: random() % 300 }, () => random() % 256));
        const events = decoder.push(chunk);
        for (const event of events) {
          if (event.kind === 'result')
            expect(event.stdout.length + event.stderr.length).toBeLessThan(2 * 1024 + 200);
        }
        if (random() % 7 === 0) decoder.expect(modes[random() % modes.length] ?? 'idle');
      }
    }
  });

  it('recovers a clean reply after garbage once re-armed', () => {
    const decoder = new RawReplDecoder();
    decoder.expect('exec');
    decoder.push(bytes('OK\x04')); // a reply cut off by a reset
    decoder.expect('exec');
    expect(decoder.push(bytes('\xfe\x00OKfine\x04\x04>'))).toEqual([{ kind: 'ok' }, result('fine')]);
  });
});

describe('payload encoding', () => {
  it('appends Ctrl-D to the code', () => {
    expect(encodeExec('print(1)\n')).toEqual(bytes('print(1)\n\x04'));
  });

  it('accepts tabs, newlines, CR and non-ASCII text', () => {
    expect(encodeCode('if 1:\r\n\tx = "µ→𝄞"\n').toString('utf8')).toBe('if 1:\r\n\tx = "µ→𝄞"\n');
  });

  it.each([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x11, 0x1b, 0x1f])('refuses control byte 0x%s', (byte) => {
    const code = `print('a${String.fromCharCode(byte)}b')`;
    try {
      encodeCode(code);
      expect.unreachable();
    } catch (error) {
      expect(isDeviceError(error, 'invalid_code')).toBe(true);
      expect((error as Error).message).toContain(`0x${byte.toString(16).padStart(2, '0')} at offset 8`);
    }
  });
});

describe('code the V5 hard-faults on', () => {
  it.each([
    ['@micropython.native\ndef f():\n    return 1', 'micropython.native', 1],
    ['import micropython\n\n@micropython.viper\ndef f(x: int) -> int:\n    return x', 'micropython.viper', 3],
    [
      'class A:\n    @micropython.asm_thumb\n    def f(r0):\n        add(r0, r0, 1)',
      'micropython.asm_thumb',
      2,
    ],
    ['x = 1\n\t@ micropython . native\ndef g(): pass', 'micropython.native', 2],
  ])('refuses %j before anything is encoded', (code, decorator, line) => {
    try {
      encodeExec(code);
      expect.unreachable();
    } catch (error) {
      expect(isDeviceError(error, 'invalid_code')).toBe(true);
      expect(error).toMatchObject({ details: { decorator, line } });
      expect((error as Error).message).toMatch(/hard-faults the Jumperless V5.*5\.7\.0\.13 and 5\.7\.11\.0/);
    }
  });

  it.each([
    '# @micropython.native is not used here\nprint(1)',
    "s = '@micropython.native'\nprint(s)",
    "print('\\n@micropython.viper')",
    '@micropython.const_not_a_decorator\ndef f(): pass',
    'import micropython\nprint(micropython.native)',
  ])('lets %j through (no native decorator at the start of a line)', (code) => {
    expect(() => encodeExec(code)).not.toThrow();
  });
});

describe('raw REPL decoder: re-armed exec', () => {
  it('reads back-to-back replies in one chunk', () => {
    const decoder = new RawReplDecoder();
    decoder.expect('exec', { rearm: true });
    expect(decoder.push(bytes('OKold\x04\x04>OKnew\x04\x04>'))).toEqual([
      { kind: 'ok' },
      result('old'),
      { kind: 'ok' },
      result('new'),
    ]);
  });
});
