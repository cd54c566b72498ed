/**
 * Bad input never breaks the firmware: every function of the electrical groups, called directly
 * (as `jumperless._c(...)` allows from Python) with hostile arguments, either returns a JSON value
 * or raises a PyError, and the board keeps answering afterwards.
 */
import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';
import { adcGroup } from './adc.js';
import { connectionsGroup } from './connections.js';
import { gpioGroup } from './gpio.js';
import { historyGroup } from './history.js';
import { inaGroup } from './ina.js';
import { netsGroup } from './nets.js';
import { powerGroup } from './power.js';
import { pwmGroup } from './pwm.js';
import { slotsGroup } from './slots.js';
import { type Json, PyError } from './types.js';
import { wavegenGroup } from './wavegen.js';

const HOSTILE: Json[][] = [
  [],
  [null],
  [null, null, null, null],
  [1e308, -1e308],
  [-1, -1, -1, -1],
  [2 ** 53, 0.5],
  ['inf', '-inf', 'nan', 'nan'],
  ['', '\u0000', 'x'.repeat(10_000)],
  [[1, 2, 3], { a: 1 }],
  [true, false, true],
  [[], [[[]]]],
  ['{"nets":[{"nodes":["1","2","3","4","5","6","7","8","9","10"]}]}', true, false],
  ['{"power":{"top_rail":"high"}}'],
  [0, 'GND', 'TOP_RAIL', 7],
];

describe('hostile arguments to every electrical firmware function', () => {
  it('only ever returns JSON or raises PyError', () => {
    const b = testBoard({ noiseSeed: 1 });
    const hw = b.hardware;
    const host = b.env.host;
    const names = [
      powerGroup(hw),
      adcGroup(hw, b.circuit),
      inaGroup(hw, b.circuit),
      gpioGroup(hw, b.circuit, host),
      pwmGroup(hw),
      wavegenGroup(hw),
      connectionsGroup(hw, host),
      netsGroup(hw, host),
      slotsGroup(hw, b.circuit, host, () => b.env.fs),
      historyGroup(hw),
    ].flatMap((g) => Object.keys(g));
    expect(names.length).toBeGreaterThan(70);
    for (const name of [...names, ...names]) {
      const fn = b.functions[name];
      expect(fn, name).toBeDefined();
      for (const args of HOSTILE) {
        let result: unknown;
        try {
          result = fn?.(...args);
        } catch (error) {
          expect(error, `${name}(${JSON.stringify(args).slice(0, 80)})`).toBeInstanceOf(PyError);
          continue;
        }
        expect(() => JSON.stringify(result), name).not.toThrow();
      }
    }
    // Still a working board, even with a wave of infinite frequency and a NaN offset running.
    b.call('wavegen_set_freq', 'inf');
    b.call('wavegen_set_offset', 'nan');
    b.call('wavegen_set_output', 2);
    b.call('wavegen_start', true);
    expect(typeof b.call('adc_get', 0)).toBe('number');
    b.call('wavegen_stop');
    b.call('nodes_clear');
    b.call('dac_set', 2, 5);
    b.call('connect', 'TOP_RAIL', 'ADC1');
    expect(b.call('adc_get', 1)).toBeCloseTo(5, 1);
    expect(JSON.parse(b.call('get_state') as string).power.top_rail).toBe(5);
  });
});
