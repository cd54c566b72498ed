import { describe, expect, it } from 'vitest';
import { isDeviceError } from './errors.js';
import { pyLiteral, pyString } from './pyLiteral.js';
import { encodeCode } from './rawRepl.js';

describe('pyLiteral', () => {
  it('writes scalars', () => {
    expect([null, undefined, true, false, 3, -2.5, 1e21, 10n].map((v) => pyLiteral(v))).toEqual([
      'None',
      'None',
      'True',
      'False',
      '3',
      '-2.5',
      '1e+21',
      '10',
    ]);
  });

  it('refuses non-finite numbers', () => {
    expect(() => pyLiteral(Number.NaN)).toThrow(/finite/);
    try {
      pyLiteral(Number.POSITIVE_INFINITY);
    } catch (error) {
      expect(isDeviceError(error, 'invalid_code')).toBe(true);
    }
  });

  it('writes nested containers', () => {
    expect(pyLiteral({ a: [1, 'x'], "b'": { c: null } })).toBe("{'a': [1, 'x'], 'b\\'': {'c': None}}");
  });

  it('escapes everything outside printable ASCII', () => {
    expect(pyString("a\\b'c\n\r\t\x03\x04\x11\x7fé→𝄞\ud800")).toBe(
      "'a\\\\b\\'c\\n\\r\\t\\x03\\x04\\x11\\x7f\\xe9\\u2192\\U0001d11e\\ufffd'",
    );
  });

  it('always yields code the raw REPL accepts (fuzz)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const text = String.fromCharCode(...Array.from({ length: random() % 20 }, () => random() % 0x10000));
      const literal = pyString(text);
      expect(() => encodeCode(literal)).not.toThrow();
      expect(/^'[\x20-\x7e]*'$/.test(literal)).toBe(true);
    }
  });
});
