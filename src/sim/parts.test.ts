import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from './noise.js';
import {
  MAX_PARTS,
  type Part,
  type PartsFileResult,
  parsePartsFile,
  parseQuantity,
  partElementId,
  partsToElements,
  placeOnBoard,
} from './parts.js';
import { GROUND, solveDc } from './solver.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../test/fixtures/parts/${name}`, import.meta.url), 'utf8');

function parts(text: string): readonly Part[] {
  const result = parsePartsFile(text);
  if (!result.ok) throw new Error(result.error);
  return result.parts;
}

function errors(text: string): readonly string[] {
  const result = parsePartsFile(text);
  return result.ok ? [] : result.errors;
}

/** The same mapping as the simulator: ground pins are the solver's GND, other nodes `n<id>`. */
const nodeName = (id: number): string => ([100, 104, 126].includes(id) ? GROUND : `n${id}`);

const file = (...lines: string[]) => lines.join('\n');

describe('parseQuantity', () => {
  it.each([
    [220, 'ohms', 220],
    ['220', 'ohms', 220],
    ['4.7k', 'ohms', 4700],
    ['4k7', 'ohms', 4700],
    ['2R2', 'ohms', 2.2],
    ['1M5', 'ohms', 1.5e6],
    ['2M', 'ohms', 2e6],
    ['1m', 'ohms', 1e-3],
    [' 1 kΩ ', 'ohms', 1000],
    ['10kohm', 'ohms', 10_000],
    ['330 Ohms', 'ohms', 330],
    ['1e3', 'ohms', 1000],
    ['3.3', 'volts', 3.3],
    ['5V', 'volts', 5],
    ['-500mV', 'volts', -0.5],
    ['.5', 'volts', 0.5],
  ] as const)('reads %j as %s', (input, unit, expected) => {
    expect(parseQuantity(input, unit)).toBeCloseTo(expected, 12);
  });

  it.each([
    ['', 'ohms'],
    ['k', 'ohms'],
    ['1x', 'ohms'],
    ['1V', 'ohms'],
    ['1Ω', 'volts'],
    ['4k7k', 'ohms'],
    ['1e400', 'ohms'],
    [Number.NaN, 'ohms'],
    [null, 'volts'],
    [true, 'volts'],
    ['1'.repeat(50), 'ohms'],
  ] as const)('refuses %j as %s', (input, unit) => {
    expect(parseQuantity(input, unit)).toBeUndefined();
  });
});

describe('placeOnBoard', () => {
  it('accepts rows, Nano pins and rails, case-insensitively, as numbers or strings', () => {
    expect(placeOnBoard(10)).toBe(10);
    expect(placeOnBoard('60')).toBe(60);
    expect(placeOnBoard('d13')).toBe(83);
    expect(placeOnBoard('NANO_A0')).toBe(86);
    expect(placeOnBoard('top_rail')).toBe(101);
    expect(placeOnBoard('GND')).toBe(100);
    expect(placeOnBoard('BOTTOM_RAIL_GND')).toBe(126);
  });

  it('refuses internal nodes, unknown names and numbers off the board', () => {
    for (const place of [
      'DAC0',
      'ADC0',
      'ISENSE_PLUS',
      'GPIO_1',
      'BUFFER_IN',
      'ROW1',
      '61',
      0,
      61,
      200,
      1.5,
      -1,
    ]) {
      expect(placeOnBoard(place), String(place)).toBeUndefined();
    }
  });
});

describe('parsePartsFile', () => {
  it('reads the divider example, and it solves to half the battery at row 10', () => {
    const divider = parts(fixture('divider.json'));
    expect(divider.map((p) => p.id)).toEqual(['BAT', 'R1', 'R2']);
    expect(divider[1]).toEqual({ type: 'resistor', id: 'R1', line: 5, between: [1, 10], ohms: 10_000 });
    const solution = solveDc(partsToElements(divider, nodeName));
    expect(solution.voltage('n10')).toBeCloseTo(2.5, 4);
    expect(solution.current(partElementId('R2'))).toBeCloseTo(2.5e-4, 8);
  });

  it('reads the LED example with defaults filled in and lights the LED from D13', () => {
    const led = parts(fixture('led.json'));
    expect(led.map((p) => p.id)).toEqual(['R1', 'LED1', 'W1', 'D1', 'RL']);
    expect(led[1]).toMatchObject({ type: 'led', anode: 20, cathode: 100, color: 'green', vf: 2.1, rs: 0 });
    expect(led[2]).toMatchObject({ type: 'wire', between: [101, 40] });
    const solution = solveDc([
      { kind: 'source', id: 'd13', node: 'n83', volts: 3.3, ohms: 50 },
      { kind: 'source', id: 'rail', node: 'n101', volts: 5, ohms: 0.5 },
      ...partsToElements(led, nodeName),
    ]);
    expect(solution.current(partElementId('LED1'))).toBeGreaterThan(1e-3);
    expect(solution.voltage('n41')).toBeGreaterThan(4);
  });

  it('reads a capacitor with its value, open at DC: an RC low-pass passes DC unchanged', () => {
    const rc = parts(
      JSON.stringify({
        parts: [
          { type: 'source', node: 1, volts: 5 },
          { type: 'resistor', between: [1, 2], ohms: '1.5k' },
          { type: 'capacitor', id: 'C1', between: [2, 'GND'], farads: '100n' },
        ],
      }),
    );
    expect(rc[2]).toMatchObject({ type: 'capacitor', id: 'C1', between: [2, 100] });
    expect((rc[2] as { farads: number }).farads).toBeCloseTo(1e-7, 15);
    expect(parseQuantity('4.7uF', 'farads')).toBeCloseTo(4.7e-6, 12);
    expect(parseQuantity('4.7uV', 'farads')).toBeUndefined();
    const solution = solveDc(partsToElements(rc, nodeName));
    expect(solution.voltage('n2')).toBeCloseTo(5, 4);
    const refused = parsePartsFile(
      JSON.stringify({ parts: [{ type: 'capacitor', between: [3, 4], farads: 2 }] }),
    );
    expect(refused.ok).toBe(false);
  });

  it('fills in source resistance, diode vf and LED colour, and makes up ids that do not clash', () => {
    const result = parts(
      file(
        '{"parts": [',
        '  {"type": "source", "node": "30", "volts": "9V"},',
        '  {"type": "diode", "anode": 31, "cathode": 32},',
        '  {"type": "led", "anode": 33, "cathode": "gnd"},',
        '  {"type": "led", "anode": 34, "cathode": "gnd", "color": "Blue", "vf": 2.9, "rs": "10"},',
        '  {"type": "resistor", "id": "R1", "between": [1, 2], "ohms": 1},',
        '  {"type": "resistor", "between": [3, 4], "ohms": 1},',
        '  {"type": "resistor", "id": "R3", "between": [5, 6], "ohms": 1},',
        '  {"type": "resistor", "between": [7, 8], "ohms": 1}',
        ']}',
      ),
    );
    expect(result.map((p) => p.id)).toEqual(['V1', 'D1', 'LED1', 'LED2', 'R1', 'R2', 'R3', 'R4']);
    expect(result[0]).toMatchObject({ node: 30, volts: 9, ohms: 0.1, line: 2 });
    expect(result[1]).toMatchObject({ vf: 0.7, rs: 0 });
    expect(result[2]).toMatchObject({ color: 'red', vf: 1.9 });
    expect(result[3]).toMatchObject({ color: 'blue', vf: 2.9, rs: 10 });
  });

  it('accepts an empty parts list, a comment and a byte-order mark', () => {
    expect(parts('\uFEFF{"comment": "nothing yet", "parts": []}')).toEqual([]);
  });

  it('names the line and the reason of each problem', () => {
    const text = file(
      '{',
      '  "parts": [',
      '    {"type": "resistor", "between": [1, 2], "ohms": 1000},',
      '    {"type": "resistor", "between": [1, 2], "ohms": "abc"},',
      '    {',
      '      "type": "resistor",',
      '      "between": [1, "DAC0"],',
      '      "ohm": 5',
      '    },',
      '    {"type": "inductor", "between": [1, 2]},',
      '    {"type": "source", "node": 5, "volts": 5, "ohms": 0},',
      '    {"type": "led", "anode": 5, "cathode": 5, "color": "pink"},',
      '    {"type": "wire", "between": [1]},',
      '    {"type": "diode", "anode": 1, "cathode": 2, "vf": 99}',
      '  ]',
      '}',
    );
    expect(errors(text)).toEqual([
      'line 4: parts[1].ohms must be a resistance from 1e-6 to 1e12 ohms, a number or a string like "220", "4.7k", "4k7", "1M" (got "abc")',
      'line 5: parts[2] (a resistor) needs "ohms"',
      'line 7: parts[2].between[1] "DAC0" is not a place on the breadboard (use a row 1-60, a Nano pin such as "D13" or "A0", or a rail: "TOP_RAIL", "BOTTOM_RAIL", "GND")',
      'line 8: parts[2] has an unknown field "ohm" (a resistor takes type, id, comment, between, ohms)',
      'line 10: parts[3].type "inductor" is not a part type (one of resistor, wire, source, led, diode, capacitor)',
      'line 11: parts[4].ohms must be a resistance from 1e-6 to 1e12 ohms, a number or a string like "220", "4.7k", "4k7", "1M" (got 0)',
      'line 12: parts[5] has its anode and cathode on the same place',
      'line 12: parts[5].color "pink" is not one of red, orange, yellow, green, blue, white',
      'line 13: parts[6].between must be two places, like [10, "GND"], not an array',
      'line 14: parts[7].vf must be a forward voltage above 0 and up to 20 V, a number or a string like "0.7", "2.1V" (got 99)',
    ]);
    const result = parsePartsFile(text) as PartsFileResult & { ok: false };
    expect(result.error).toBe(result.errors.join('\n'));
  });

  it('reports JSON syntax errors with their line and column', () => {
    expect(errors(file('{', '  "parts": [', '    {"type": "resistor",}', '  ]', '}'))).toEqual([
      "line 3: JSON syntax error at column 25: a comma before '}' (JSON allows no trailing comma)",
    ]);
    expect(errors('{"parts": [\n\n  {"type": \'wire\'}]}')).toEqual([
      "line 3: JSON syntax error at column 12: expected a value, found '''",
    ]);
  });

  it('refuses a wrong top level, duplicate keys and duplicate ids', () => {
    expect(errors('[1, 2]')).toEqual(['line 1: the file must be a JSON object like {"parts": [...]}']);
    expect(errors('{\n"part": []}')).toEqual([
      'line 1: missing "parts" (an array of parts)',
      'line 2: unknown field "part" at the top level (expected "parts" and an optional "comment")',
    ]);
    expect(errors('{"parts": {}}')).toEqual(['line 1: "parts" must be an array, not an object']);
    expect(errors('{"parts": [\n"R1"]}')).toEqual([
      'line 2: parts[0] must be an object like {"type": "resistor", ...}, not "R1"',
    ]);
    expect(errors('{"parts": [{"type": "wire", "between": [1, 2],\n "between": [3, 4]}]}')).toEqual([
      'line 2: parts[0] has "between" twice',
    ]);
    expect(
      errors(
        file(
          '{"parts": [',
          '{"type": "wire", "id": "X", "between": [1, 2]},',
          '{"type": "wire", "id": "X", "between": [3, 4]},',
          '{"type": "wire", "id": "bad id", "between": [3, 4]}',
          ']}',
        ),
      ),
    ).toEqual([
      'line 3: parts[1].id "X" is used by an earlier part',
      "line 4: parts[2].id must be 1-32 letters, digits, '_', '.' or '-', not \"bad id\"",
    ]);
  });

  it('refuses values outside the ranges the solver handles', () => {
    const value = (field: string, v: string) =>
      errors(`{"parts": [{"type": "source", "node": 1, "volts": 1, ${field}: ${v}}]}`);
    expect(value('"ohms"', '"1e-300"')[0]).toMatch(/ohms must be a resistance from 1e-6 to 1e12 ohms/);
    expect(value('"ohms"', '2e12')[0]).toMatch(/got 2000000000000/);
    expect(errors('{"parts": [{"type": "source", "node": 1, "volts": "1e6V"}]}')[0]).toMatch(
      /volts must be a voltage from -1000 to 1000 V/,
    );
    expect(errors('{"parts": [{"type": "diode", "anode": 1, "cathode": 2, "rs": -1}]}')[0]).toMatch(
      /rs must be 0 or a resistance/,
    );
  });

  it('refuses a part with both ends on one place, and too many parts', () => {
    expect(errors('{"parts": [{"type": "resistor", "between": ["D13", 83], "ohms": 1}]}')).toEqual([
      'line 1: parts[0].between puts both ends on the same place',
    ]);
    const many = JSON.stringify({
      parts: Array.from({ length: MAX_PARTS + 1 }, () => ({ type: 'wire', between: [1, 2] })),
    });
    expect(errors(many)).toEqual([`line 1: more than ${MAX_PARTS} parts`]);
  });

  it('uses the resolver it is given, and survives one that throws', () => {
    const custom = parsePartsFile('{"parts": [{"type": "wire", "between": ["A", "B"]}]}', (place) =>
      place === 'A' ? 1 : place === 'B' ? 2 : undefined,
    );
    expect(custom.ok && custom.parts[0]).toMatchObject({ between: [1, 2] });
    const throwing = parsePartsFile('{"parts": [{"type": "wire", "between": ["A", "B"]}]}', () => {
      throw new Error('boom');
    });
    expect(throwing).toMatchObject({ ok: false, error: 'line 1: could not check the parts file: boom' });
  });

  it('never throws on random bytes, and every error names a line', () => {
    const rng = mulberry32(5);
    for (let round = 0; round < 3000; round++) {
      const bytes = Buffer.from(
        Array.from({ length: Math.floor(rng() * 200) }, () => Math.floor(rng() * 256)),
      );
      for (const text of [bytes.toString('utf8'), bytes.toString('latin1')]) {
        const result = parsePartsFile(text);
        expect(result.ok).toBe(false);
        if (!result.ok) for (const error of result.errors) expect(error).toMatch(/^line \d+: /);
      }
    }
  });

  it('never throws on mutations of a valid file, and what it accepts is well formed', () => {
    const rng = mulberry32(6);
    const base = fixture('led.json');
    const alphabet = '{}[],:"0123456789.-kKMΩ eE\\\n\t tfnrulsGNDTOP_RAIL';
    let accepted = 0;
    for (let round = 0; round < 4000; round++) {
      const chars = [...base];
      for (let edits = 1 + Math.floor(rng() * 4); edits > 0; edits--) {
        const at = Math.floor(rng() * chars.length);
        if (rng() < 0.5) chars.splice(at, 1);
        else chars.splice(at, 0, alphabet[Math.floor(rng() * alphabet.length)]!);
      }
      const text = chars.join('');
      const result = parsePartsFile(text);
      if (result.ok) {
        accepted++;
        const lines = text.split(/\r\n|\r|\n/).length;
        for (const part of result.parts) {
          expect(part.line).toBeGreaterThanOrEqual(1);
          expect(part.line).toBeLessThanOrEqual(lines);
        }
        // Whatever is accepted must also solve.
        expect(() => solveDc(partsToElements(result.parts, nodeName))).not.toThrow();
      } else {
        for (const error of result.errors) expect(error).toMatch(/^line \d+: /);
      }
    }
    expect(accepted).toBeGreaterThan(0);
  });
});
