import { describe, expect, it } from 'vitest';
import { FederationError } from './errors.js';
import {
  checkSubsystemName,
  dotFormat,
  separatorFormat,
  subsystemNameProblem,
  underscoreFormat,
  type WireNameTranslator,
  WireTable,
  wireFormat,
} from './wireNames.js';

const table = (names: string[], translator: WireNameTranslator = underscoreFormat) =>
  WireTable.build(names, (name) => name, translator);

describe('subsystem names', () => {
  it('accepts kebab-case', () => {
    for (const name of ['jumperless', 'jumperless-a', 'esp32-p4', 'rp2350', 'a1-b2-c3']) {
      expect(subsystemNameProblem(name), name).toBeUndefined();
    }
  });

  it('refuses esp32_p4 and says why: the wire name would be ambiguous', () => {
    const problem = subsystemNameProblem('esp32_p4') ?? '';
    expect(problem).toMatch(/not kebab-case: use "esp32-p4"/);
    expect(problem).toMatch(/"esp32_p4_some_tool" would be ambiguous/);
    expect(problem).toMatch(/"esp32_p4" with tool "some_tool"/);
    expect(problem).toMatch(/"esp32" with tool "p4_some_tool"/);
    expect(() => checkSubsystemName('esp32_p4')).toThrow(FederationError);
  });

  it('refuses dots, capitals, empty names and loose hyphens', () => {
    expect(subsystemNameProblem('bench.a')).toMatch(/must not contain dots/);
    for (const name of ['', 'Esp32', 'a--b', '-a', 'a-', 'a b', 'ä']) {
      expect(subsystemNameProblem(name), name).toMatch(/not kebab-case/);
    }
  });
});

describe('wire formats', () => {
  it('underscore turns every dot into _ , nested names included', () => {
    expect(underscoreFormat.outbound('esp32-p4.some_tool')).toBe('esp32-p4_some_tool');
    expect(underscoreFormat.outbound('bench.jumperless.dac_set')).toBe('bench_jumperless_dac_set');
    expect(wireFormat()).toBe(underscoreFormat);
  });

  it('dot is the identity', () => {
    expect(dotFormat.outbound('bench.jumperless.dac_set')).toBe('bench.jumperless.dac_set');
    expect(wireFormat('dot')).toBe(dotFormat);
  });

  it('a custom translator: a separator from the config, or any object', () => {
    expect(wireFormat({ separator: '__' }).outbound('esp32-p4.some_tool')).toBe('esp32-p4__some_tool');
    const shouting: WireNameTranslator = {
      label: 'shouting',
      outbound: (n) => n.toUpperCase().replaceAll('.', '_'),
    };
    expect(wireFormat(shouting).outbound('scope.read')).toBe('SCOPE_READ');
    expect(() => separatorFormat('/')).toThrow(/separator "\/" must be/);
    expect(() => separatorFormat('')).toThrow(FederationError);
  });
});

describe('the inbound table', () => {
  it('maps esp32-p4.some_tool <-> esp32-p4_some_tool exactly', () => {
    const t = table(['esp32-p4.some_tool']).assertClean();
    expect(t.resolve('esp32-p4_some_tool')).toMatchObject({
      wire: 'esp32-p4_some_tool',
      internal: 'esp32-p4.some_tool',
    });
  });

  it('keeps esp32.p4_some_tool and esp32-p4.some_tool apart', () => {
    const t = table(['esp32.p4_some_tool', 'esp32-p4.some_tool']).assertClean();
    expect(t.resolve('esp32_p4_some_tool')?.internal).toBe('esp32.p4_some_tool');
    expect(t.resolve('esp32-p4_some_tool')?.internal).toBe('esp32-p4.some_tool');
    expect(t.size).toBe(2);
  });

  it('maps nested names in all three formats', () => {
    const names = ['bench.jumperless.dac_set', 'bench.esp32-p4.gpio_get', 'scope.read'];
    const underscore = table(names).assertClean();
    expect(underscore.resolve('bench_jumperless_dac_set')?.internal).toBe('bench.jumperless.dac_set');
    expect(underscore.resolve('bench_esp32-p4_gpio_get')?.internal).toBe('bench.esp32-p4.gpio_get');
    const dot = table(names, dotFormat).assertClean();
    expect(dot.resolve('bench.jumperless.dac_set')?.internal).toBe('bench.jumperless.dac_set');
    expect(dot.resolve('bench_jumperless_dac_set')).toBeUndefined();
    const custom = table(names, separatorFormat('__')).assertClean();
    expect(custom.resolve('bench__jumperless__dac_set')?.internal).toBe('bench.jumperless.dac_set');
    expect(custom.resolve('bench_jumperless_dac_set')).toBeUndefined();
  });

  it('answers nothing for malformed and unknown names: no prefix guessing', () => {
    const t = table(['esp32-p4.some_tool', 'jumperless-a.dac_set']).assertClean();
    for (const wire of [
      'esp32-p4_',
      'esp32-p4',
      'jumperless-a_',
      '',
      '_',
      'dac_set',
      'jumperless-a_dac_sett',
      'jumperless-a.dac_set',
      'JUMPERLESS-A_DAC_SET',
      'jumperless-a_dac_set ',
      'jumperless_a_dac_set',
    ]) {
      expect(t.resolve(wire), JSON.stringify(wire)).toBeUndefined();
    }
  });

  it('refuses two tools that would share a wire name, naming both', () => {
    // Tool c_d of subsystem a-b, and tool d of a-b's nested child c.
    const t = table(['a-b.c_d', 'a-b.c.d']);
    expect(t.problems).toEqual([
      'tools a-b.c_d and a-b.c.d would share the wire name "a-b_c_d" (underscore format): rename a subsystem',
    ]);
    expect(t.resolve('a-b_c_d')?.internal).toBe('a-b.c_d');
    expect(() => t.assertClean()).toThrow(/a-b\.c_d and a-b\.c\.d would share the wire name "a-b_c_d"/);
    // The dot format keeps them apart.
    expect(table(['a-b.c_d', 'a-b.c.d'], dotFormat).problems).toEqual([]);
    // A custom translator can collide too.
    const flat: WireNameTranslator = { label: 'flat', outbound: (n) => n.replaceAll('.', '') };
    expect(table(['ab.c', 'a.bc'], flat).problems[0]).toMatch(/ab\.c and a\.bc .* "abc" \(flat format\)/);
  });

  it('refuses wire names clients cannot take: too long, odd characters, empty', () => {
    const long = `esp32-p4.${'x'.repeat(56)}`;
    const t = table([long, 'esp32-p4.get/weather', 'esp32-p4.ok', '']);
    expect(t.problems).toHaveLength(3);
    expect(t.problems[0]).toMatch(/is 65 characters long \(at most 64\)/);
    expect(t.problems[1]).toMatch(/"esp32-p4_get\/weather" is refused: it holds characters outside/);
    expect(t.problems[2]).toMatch(/it is empty/);
    expect(t.resolve('esp32-p4_ok')).toBeDefined();
    expect(table([`a.${'x'.repeat(62)}`]).problems).toEqual([]);
    // Dots are fine on the wire only in the dot format.
    expect(table(['a.b'], dotFormat).problems).toEqual([]);
    expect(table(['a.b'], { label: 'keep', outbound: (n) => n }).problems[0]).toMatch(
      /outside A-Z a-z 0-9 _ -$/,
    );
  });

  it('refuses a tool offered twice', () => {
    expect(table(['a.x', 'a.x']).problems).toEqual(['tool a.x is offered twice']);
  });
});
