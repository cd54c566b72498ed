import { describe, expect, it } from 'vitest';
import { mulberry32 } from './noise.js';
import { DIODE_VF_CURRENT, type Element, isSolverError, type SolverErrorCode, solveDc } from './solver.js';

const r = (a: string, b: string, ohms: number, id?: string): Element => ({
  kind: 'resistor',
  a,
  b,
  ohms,
  id,
});
const v = (node: string, volts: number, ohms: number, id?: string): Element => ({
  kind: 'source',
  node,
  volts,
  ohms,
  id,
});
const d = (anode: string, cathode: string, vf: number, id?: string, rs?: number): Element => ({
  kind: 'diode',
  anode,
  cathode,
  vf,
  id,
  rs,
});

function solverCode(run: () => unknown): SolverErrorCode | 'no error' {
  try {
    run();
    return 'no error';
  } catch (error) {
    if (!isSolverError(error)) throw error;
    return error.code;
  }
}

/** Sum of currents leaving `node` through every element touching it: zero when KCL holds. */
function leaving(elements: readonly Element[], solution: ReturnType<typeof solveDc>, node: string): number {
  let sum = 0;
  elements.forEach((e, i) => {
    const current = solution.current(i);
    if (e.kind === 'resistor') sum += (e.a === node ? current : 0) - (e.b === node ? current : 0);
    if (e.kind === 'source' && e.node === node) sum -= current;
    if (e.kind === 'diode') sum += (e.anode === node ? current : 0) - (e.cathode === node ? current : 0);
  });
  return sum + 1e-12 * solution.voltage(node);
}

describe('solveDc, linear circuits', () => {
  it('splits 5 V across two equal resistors', () => {
    const s = solveDc([v('TOP', 5, 1e-3), r('TOP', 'MID', 1000), r('MID', 'GND', 1000)]);
    expect(s.voltage('MID')).toBeCloseTo(2.5, 5);
    expect(s.voltage('TOP')).toBeCloseTo(5, 5);
    expect(s.current(1)).toBeCloseTo(2.5e-3, 8);
    expect(s.iterations).toBe(1);
  });

  it('drops the output of a loaded source across its series resistance', () => {
    const s = solveDc([v('DAC0', 5, 0.5, 'dac'), r('DAC0', 'GND', 100, 'load')]);
    expect(s.voltage('DAC0')).toBeCloseTo((5 * 100) / 100.5, 9);
    expect(s.current('dac')).toBeCloseTo(5 / 100.5, 9);
    expect(s.current('load')).toBeCloseTo(5 / 100.5, 9);
  });

  it('passes ~3.3 mA through a 1k load behind the 2 ohm shunt (spec §8.6)', () => {
    const s = solveDc([
      v('TOP_RAIL', 3.3, 0.5, 'rail'),
      r('TOP_RAIL', 'ISENSE_PLUS', 40),
      r('ISENSE_PLUS', 'ISENSE_MINUS', 2, 'shunt'),
      r('ISENSE_MINUS', 'GND', 1000, 'load'),
    ]);
    const expected = 3.3 / (0.5 + 40 + 2 + 1000);
    expect(s.current('shunt')).toBeCloseTo(expected, 10);
    expect(s.current('shunt') * 1000).toBeCloseTo(3.17, 2);
    expect(s.voltage('ISENSE_PLUS') - s.voltage('ISENSE_MINUS')).toBeCloseTo(2 * expected, 10);
  });

  it('combines parallel resistors', () => {
    // 1k || 1k || 2k = 400 ohm, fed through 600 ohm from 10 V: 4 V at the node.
    const s = solveDc([
      v('IN', 10, 1e-6),
      r('IN', 'N', 600),
      r('N', 'GND', 1000, 'a'),
      r('N', 'GND', 1000, 'b'),
      r('GND', 'N', 2000, 'c'),
    ]);
    expect(s.voltage('N')).toBeCloseTo(4, 5);
    expect(s.current('a')).toBeCloseTo(4e-3, 8);
    expect(s.current('c')).toBeCloseTo(-2e-3, 8); // defined GND -> N
  });

  it('reads 0 V on floating nodes and on nodes it has never seen', () => {
    const s = solveDc([v('A', 5, 1), r('X', 'Y', 1000), r('B', 'C', 10)]);
    expect(s.voltage('X')).toBe(0);
    expect(s.voltage('Y')).toBe(0);
    expect(s.voltage('NOWHERE')).toBe(0);
    expect(s.voltage('GND')).toBe(0);
    expect(s.current(1)).toBe(0);
  });

  it('carries the driven voltage to the open end of a dangling resistor', () => {
    const s = solveDc([v('A', 5, 0.5), r('A', 'B', 10_000)]);
    expect(s.voltage('B')).toBeCloseTo(5, 6);
    expect(Math.abs(s.current(1))).toBeLessThan(1e-10);
  });

  it('is barely loaded by a 1 Mohm meter input (spec §8.5)', () => {
    const divider = [v('IN', 5, 1e-6), r('IN', 'MID', 10_000), r('MID', 'GND', 10_000)];
    const bare = solveDc(divider).voltage('MID');
    const metered = solveDc([...divider, r('MID', 'GND', 1e6, 'adc')]).voltage('MID');
    const lower = 1 / (1 / 10_000 + 1 / 1e6);
    expect(bare).toBeCloseTo(2.5, 6);
    expect(metered).toBeCloseTo((5 * lower) / (10_000 + lower), 6);
    expect(metered).toBeLessThan(bare);
    expect(bare - metered).toBeLessThan(0.02);
  });

  it('balances a Wheatstone bridge and solves an unbalanced one', () => {
    const bridge = (rx: number) =>
      solveDc([
        v('T', 10, 1e-6),
        r('T', 'L', 1000),
        r('L', 'GND', 2000),
        r('T', 'R', 500),
        r('R', 'GND', rx),
        r('L', 'R', 100, 'galvo'),
      ]);
    expect(Math.abs(bridge(1000).current('galvo'))).toBeLessThan(1e-9);
    expect(bridge(2000).current('galvo')).toBeLessThan(-1e-4);
  });

  it('solves negative supplies and several independent nets at once', () => {
    const s = solveDc([
      v('BOTTOM_RAIL', -8, 0.5),
      r('BOTTOM_RAIL', '5', 1000),
      r('5', 'GND', 1000),
      v('DAC1', 3, 0.5),
      r('DAC1', '40', 100),
    ]);
    expect(s.voltage('5')).toBeCloseTo(-8 * (1000 / 2000.5), 6);
    expect(s.voltage('40')).toBeCloseTo(3, 6);
  });

  it('keeps KCL at every node of random networks', () => {
    const rng = mulberry32(7);
    for (let round = 0; round < 30; round++) {
      const names = Array.from({ length: 12 }, (_, i) => `n${i}`);
      const pick = () => names[Math.floor(rng() * names.length)]!;
      const elements: Element[] = [v(pick(), 1 + rng() * 7, 0.5), v(pick(), -rng() * 7, 50)];
      for (let i = 0; i < 25; i++)
        elements.push(r(pick(), rng() < 0.2 ? 'GND' : pick(), 10 ** (1 + rng() * 5)));
      const s = solveDc(elements);
      for (const name of names) expect(Math.abs(leaving(elements, s, name))).toBeLessThan(1e-9);
    }
  });
});

describe('solveDc, diodes', () => {
  it('puts vf across a diode carrying the reference current', () => {
    // 10 mA through 100 ohm drops 1 V, so the 2.9 V source leaves 1.9 V for a 1.9 V LED.
    const s = solveDc([v('S', 2.9, 1e-6), r('S', 'A', 100), d('A', 'GND', 1.9, 'led')]);
    expect(s.voltage('A')).toBeCloseTo(1.9, 6);
    expect(s.current('led')).toBeCloseTo(DIODE_VF_CURRENT, 8);
    expect(s.iterations).toBeGreaterThan(1);
  });

  it('lights a red LED from 5 V through 220 ohm', () => {
    const elements = [v('5V', 5, 0.5), r('5V', 'A', 220), d('A', 'GND', 1.9, 'led')];
    const s = solveDc(elements);
    const current = s.current('led');
    expect(current).toBeGreaterThan(0.013);
    expect(current).toBeLessThan(0.0145);
    expect(s.voltage('A')).toBeGreaterThan(1.9);
    expect(Math.abs(leaving(elements, s, 'A'))).toBeLessThan(1e-12);
  });

  it('blocks reverse current', () => {
    const s = solveDc([v('S', 5, 0.5), r('S', 'K', 1000), d('GND', 'K', 0.7, 'd')]);
    expect(s.voltage('K')).toBeCloseTo(5, 4);
    expect(Math.abs(s.current('d'))).toBeLessThan(1e-8);
  });

  it('lets the lower-vf LED of a parallel pair take most of the current', () => {
    const s = solveDc([
      v('S', 5, 0.5),
      r('S', 'A', 100),
      d('A', 'GND', 1.9, 'red'),
      d('A', 'GND', 3.0, 'blue'),
    ]);
    expect(s.current('red')).toBeGreaterThan(0.02);
    expect(s.current('blue')).toBeLessThan(1e-9);
  });

  it('drops extra voltage across a series resistance rs', () => {
    const plain = solveDc([v('S', 5, 0.5), r('S', 'A', 100), d('A', 'GND', 2, 'led')]);
    const resistive = solveDc([v('S', 5, 0.5), r('S', 'A', 100), d('A', 'GND', 2, 'led', 20)]);
    expect(resistive.current('led')).toBeLessThan(plain.current('led'));
    expect(resistive.voltage('A')).toBeGreaterThan(plain.voltage('A') + 0.2);
  });

  it('converges with a diode straight across a stiff 8 V rail', () => {
    const s = solveDc([v('R', 8, 0.5, 'rail'), d('R', 'GND', 0.7, 'd')]);
    expect(s.current('d')).toBeGreaterThan(10);
    expect(s.current('d')).toBeCloseTo(s.current('rail'), 6);
  });

  it('converges on a chain of diodes, anti-parallel pairs and negative rails', () => {
    const elements = [
      v('P', 8, 0.5),
      v('N', -8, 0.5),
      r('P', 'a', 330),
      d('a', 'b', 0.7),
      d('b', 'c', 1.9, undefined, 10),
      d('c', 'e', 2.2),
      d('e', 'c', 3.1),
      r('e', 'N', 470),
      r('b', 'GND', 10_000),
    ];
    const s = solveDc(elements);
    for (const node of ['a', 'b', 'c', 'e']) expect(Math.abs(leaving(elements, s, node))).toBeLessThan(1e-9);
    expect(s.current(3)).toBeGreaterThan(0.01);
  });

  it('converges and keeps KCL on random networks of diodes, LEDs and resistors', () => {
    const rng = mulberry32(99);
    let iterations = 0;
    for (let round = 0; round < 300; round++) {
      const names = Array.from({ length: 10 }, (_, i) => `n${i}`);
      const pick = () => names[Math.floor(rng() * names.length)]!;
      const elements: Element[] = [v(pick(), 8 * (rng() * 2 - 1), 0.5), v(pick(), 3.3, 50)];
      for (let i = 0; i < 12; i++) elements.push(r(pick(), rng() < 0.3 ? 'GND' : pick(), 10 ** (rng() * 5)));
      for (let i = 0; i < 6; i++) {
        elements.push(
          d(pick(), rng() < 0.3 ? 'GND' : pick(), 0.5 + rng() * 3, undefined, rng() < 0.5 ? 0 : rng() * 30),
        );
      }
      const s = solveDc(elements);
      iterations = Math.max(iterations, s.iterations);
      for (const name of names)
        expect(Math.abs(leaving(elements, s, name)), `round ${round}`).toBeLessThan(1e-7);
    }
    expect(iterations).toBeLessThan(100);
  });

  it('reports non-convergence with its own code when the cap is too low', () => {
    expect(
      solverCode(() =>
        solveDc([v('S', 5, 0.5), r('S', 'A', 220), d('A', 'GND', 2, 'led')], { maxIterations: 1 }),
      ),
    ).toBe('no_convergence');
  });

  it('leaves an undriven diode network at 0 V without iterating', () => {
    const s = solveDc([d('A', 'B', 2), r('B', 'GND', 100)]);
    expect(s.voltage('A')).toBe(0);
    expect(s.iterations).toBe(0);
  });
});

describe('solveDc, bad input', () => {
  const bad = (element: unknown) => solverCode(() => solveDc([element as Element]));

  it('refuses non-positive or non-finite resistance and voltage', () => {
    expect(bad({ kind: 'resistor', a: 'A', b: 'B', ohms: 0 })).toBe('invalid_circuit');
    expect(bad({ kind: 'resistor', a: 'A', b: 'B', ohms: Number.NaN })).toBe('invalid_circuit');
    expect(bad({ kind: 'source', node: 'A', volts: Number.POSITIVE_INFINITY, ohms: 1 })).toBe(
      'invalid_circuit',
    );
    expect(bad({ kind: 'source', node: 'A', volts: 5, ohms: 0 })).toBe('invalid_circuit');
    expect(bad({ kind: 'diode', anode: 'A', cathode: 'B', vf: -1 })).toBe('invalid_circuit');
    expect(bad({ kind: 'diode', anode: 'A', cathode: 'B', vf: 1, rs: -1 })).toBe('invalid_circuit');
  });

  it('refuses unknown kinds, missing nodes, junk elements and duplicate ids', () => {
    expect(bad({ kind: 'capacitor', a: 'A', b: 'B' })).toBe('invalid_circuit');
    expect(bad({ kind: 'resistor', a: 'A', ohms: 1 })).toBe('invalid_circuit');
    expect(bad(null)).toBe('invalid_circuit');
    expect(solverCode(() => solveDc([r('A', 'B', 1, 'R1'), r('B', 'C', 1, 'R1')]))).toBe('invalid_circuit');
  });

  it('refuses values so extreme that the solution overflows', () => {
    expect(
      solverCode(() => solveDc([v('A', 1e300, 1e-300), r('A', 'B', 1e-300), r('B', 'GND', 1e-300)])),
    ).toBe('invalid_circuit');
  });

  it('names the offending element in the message', () => {
    expect(() => solveDc([r('A', 'B', 1), r('A', 'B', -5, 'R7')])).toThrow('elements[1] (R7): ohms');
  });

  it('tells its own errors from other errors with a code', () => {
    expect(isSolverError(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
    expect(isSolverError({ code: 'invalid_circuit' })).toBe(false);
  });

  it('throws unknown_element for a current it cannot find', () => {
    const s = solveDc([r('A', 'B', 1, 'R1')]);
    expect(solverCode(() => s.current('R2'))).toBe('unknown_element');
    expect(solverCode(() => s.current(5))).toBe('unknown_element');
    expect(solverCode(() => s.current(-1))).toBe('unknown_element');
  });
});
