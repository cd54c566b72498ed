import { describe, expect, it } from 'vitest';
import { LineReader } from './stdio.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** Every line the reader gives for `text` cut at `cuts`, and whether it overflowed. */
function read(text: string, cuts: number[], max = 1 << 20) {
  const reader = new LineReader(max);
  const all = bytes(text);
  const lines: string[] = [];
  let overflow = false;
  let from = 0;
  for (const at of [...cuts, all.length]) {
    const pushed = reader.push(all.subarray(from, at));
    lines.push(...pushed.lines);
    overflow ||= pushed.overflow;
    from = at;
  }
  return { lines, overflow, rest: reader.end() };
}

describe('the stdin line reader', () => {
  const text = '{"a":1}\r\n\n{"b":"é ✓"}\n{"c":[1,2]}';

  it('gives the same lines wherever the input is cut, \\r\\n and multibyte characters included', () => {
    const whole = read(text, []);
    expect(whole).toEqual({ lines: ['{"a":1}', '', '{"b":"é ✓"}'], overflow: false, rest: '{"c":[1,2]}' });
    const length = bytes(text).length;
    for (let a = 0; a <= length; a++) {
      for (let b = a; b <= length; b++) expect(read(text, [a, b]), `cut at ${a}, ${b}`).toEqual(whole);
    }
  });

  it('drops a line that grows past the cap without a newline, keeps nothing of it, and reads no more', () => {
    const reader = new LineReader(16);
    expect(reader.push(bytes('{"ok":1}\n0123456789'))).toEqual({ lines: ['{"ok":1}'], overflow: false });
    expect(reader.push(bytes('0123456789'))).toEqual({ lines: [], overflow: true });
    expect(reader.push(bytes('\n{"late":1}\n'))).toEqual({ lines: [], overflow: true });
    expect(reader.end()).toBe('');
  });

  it('takes a line of exactly the cap, and refuses one byte more even with its newline in the chunk', () => {
    expect(new LineReader(8).push(bytes('12345678\n'))).toEqual({ lines: ['12345678'], overflow: false });
    expect(new LineReader(8).push(bytes('123456789\n'))).toEqual({ lines: [], overflow: true });
  });
});
