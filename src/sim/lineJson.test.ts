import { describe, expect, it } from 'vitest';
import { type JsonNode, readJson, toPlain } from './lineJson.js';
import { mulberry32 } from './noise.js';

function read(text: string): JsonNode {
  const result = readJson(text);
  if (!result.ok) throw new Error(`line ${result.line}: ${result.message}`);
  return result.value;
}

function failure(text: string): string {
  const result = readJson(text);
  return result.ok ? 'ok' : `${result.line}:${result.column} ${result.message}`;
}

describe('readJson', () => {
  it('records the line of every value and key', () => {
    const doc = read('{\n  "a": 1,\n  "b": [\n    true,\n    "x"\n  ]\n}');
    expect(doc.line).toBe(1);
    if (doc.kind !== 'object') throw new Error('not an object');
    expect(doc.entries.map((e) => [e.key, e.line, e.value.line])).toEqual([
      ['a', 2, 2],
      ['b', 3, 3],
    ]);
    const b = doc.entries[1]!.value;
    if (b.kind !== 'array') throw new Error('not an array');
    expect(b.items.map((i) => i.line)).toEqual([4, 5]);
  });

  it('counts CRLF and lone CR line ends once each', () => {
    const doc = read('[\r\n1,\r2,\n3]');
    if (doc.kind !== 'array') throw new Error('not an array');
    expect(doc.items.map((i) => i.line)).toEqual([2, 3, 4]);
  });

  it('decodes strings, escapes and numbers like JSON.parse', () => {
    const text =
      '{"s":"a\\"b\\\\c\\/\\n\\u00e9\\ud83d\\ude00","n":[-0,1.5e3,0.25,-12E-2],"t":true,"f":false,"z":null}';
    expect(toPlain(read(text))).toEqual(JSON.parse(text));
  });

  it('keeps a __proto__ key as plain data', () => {
    const plain = toPlain(read('{"__proto__": {"polluted": 1}}')) as Record<string, unknown>;
    expect(Object.keys(plain)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports syntax errors with line, column and a readable reason', () => {
    expect(failure('{\n  "a": 1\n  "b": 2\n}')).toBe("3:3 expected ',' or '}' after a member, found '\"'");
    expect(failure('{\n  "a": 1,\n}')).toBe("3:1 a comma before '}' (JSON allows no trailing comma)");
    expect(failure('[1,\n2,]')).toBe("2:3 a comma before ']' (JSON allows no trailing comma)");
    expect(failure('{\n  a: 1}')).toBe('2:3 expected a "quoted" key, found \'a\'');
    expect(failure('{"a":\n  True}')).toBe('2:3 unexpected word "True" (strings need "quotes")');
    expect(failure('{"a": "x\n"}')).toBe('1:9 a string is not closed before the end of the line (missing ")');
    expect(failure('{"a": 01}')).toBe('1:7 a malformed number "01"');
    expect(failure('{"a": 1}\n\n x')).toBe("3:2 unexpected 'x' after the end of the JSON value");
    expect(failure('')).toBe('1:1 expected a value, found the end of the file');
    expect(failure('{"a": "\\q"}')).toBe('1:8 unknown escape \\q in a string');
    expect(failure('"\\u12"')).toBe('1:2 a \\u escape needs four hex digits');
    expect(failure('\uFEFF{}')).toBe('1:1 expected a value, found U+FEFF');
  });

  it('refuses nesting past the depth limit instead of exhausting the stack', () => {
    expect(failure('['.repeat(100_000))).toMatch(/nesting deeper than 64 levels/);
    expect(readJson('[[[1]]]', { maxDepth: 3 }).ok).toBe(true);
    expect(readJson('[[[[1]]]]', { maxDepth: 3 }).ok).toBe(false);
  });

  it('agrees with JSON.parse on random token soup', () => {
    const rng = mulberry32(2024);
    const tokens = [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"k"',
      '"\\u0041"',
      '"\\x"',
      '1',
      '-2.5e1',
      '01',
      'true',
      'nul',
      'null',
      ' ',
      '\n',
      '\r\n',
      '"',
      '\\',
      '1.',
      '.5',
      '-',
      'x',
    ];
    let agreed = 0;
    for (let round = 0; round < 20_000; round++) {
      const length = 1 + Math.floor(rng() * 12);
      let text = '';
      for (let i = 0; i < length; i++) text += tokens[Math.floor(rng() * tokens.length)];
      let expected: { ok: true; value: unknown } | { ok: false };
      try {
        expected = { ok: true, value: JSON.parse(text) };
      } catch {
        expected = { ok: false };
      }
      const result = readJson(text);
      expect(result.ok, text).toBe(expected.ok);
      if (result.ok && expected.ok) expect(toPlain(result.value)).toEqual(expected.value);
      agreed++;
    }
    expect(agreed).toBe(20_000);
  });

  it('agrees with JSON.parse on mutations of a real document', () => {
    const rng = mulberry32(11);
    const base =
      '{\n  "parts": [\n    {"type": "resistor", "between": [1, "GND"], "ohms": "4.7k"},\n    {"x": [true, false, null, -1.25e-3, "\\u00b5"]}\n  ]\n}\n';
    for (let round = 0; round < 5000; round++) {
      const chars = [...base];
      for (let edits = 1 + Math.floor(rng() * 3); edits > 0; edits--) {
        const at = Math.floor(rng() * chars.length);
        const choice = rng();
        if (choice < 0.4) chars.splice(at, 1);
        else if (choice < 0.8) chars.splice(at, 0, String.fromCharCode(Math.floor(rng() * 128)));
        else chars[at] = chars[Math.floor(rng() * chars.length)]!;
      }
      const text = chars.join('');
      let parsed: unknown;
      let ok = true;
      try {
        parsed = JSON.parse(text);
      } catch {
        ok = false;
      }
      const result = readJson(text);
      expect(result.ok, text).toBe(ok);
      if (result.ok) expect(toPlain(result.value)).toEqual(parsed);
      else {
        expect(result.line).toBeGreaterThanOrEqual(1);
        expect(result.line).toBeLessThanOrEqual(text.split(/\r\n|\r|\n/).length);
      }
    }
  });
});
