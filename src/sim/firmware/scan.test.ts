/**
 * The 5.7.11 net scan's lag on the twin (NetVoltageScan.cpp@09391b7/@7ce7726): a reading is a blend
 * of taps 5 ms apart round the nodes in nets, kept for 5 s, not cleared by a supply change, wiped
 * after a routing change only by the scan's next pass, and no pass runs within 100 ms of user input.
 * A host reading it right after it changed the board gets the board as it was.
 */
import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/support/firmwareEnv.js';

/** Row 54 wired to the top rail at 3.3 V, and the scan given a second to settle on it. */
function railOnRow54() {
  const b = testBoard({ firmware: '5.7.11.0' });
  b.call('dac_set', 'TOP_RAIL', 3.3);
  b.call('connect', 54, 'TOP_RAIL');
  b.advance(1000);
  const volts = () => b.call('get_node_voltage', 54) as number | null;
  expect(volts()).toBeCloseTo(3.3, 2);
  return { b, volts };
}

describe('the net scan lags the board (5.7.11 twin)', () => {
  it('answers the old volts right after a supply change, and the old setpoint for the rail', () => {
    const { b, volts } = railOnRow54();
    b.call('dac_set', 'TOP_RAIL', 0);
    expect(volts()).toBeCloseTo(3.3, 2);
    expect(b.call('get_node_voltage', 'TOP_RAIL')).toBeCloseTo(3.3, 2);
    // A host's next job is user input: no pass for 100 ms after it, so still the old level.
    b.noteUserInput();
    b.advance(99);
    expect(volts()).toBeCloseTo(3.3, 2);
    b.advance(1000);
    expect(volts()).toBeCloseTo(0, 2);
    expect(b.call('get_node_voltage', 'TOP_RAIL')).toBe(0);
  });

  it('blends each tap into the last: 30 % of the way per tap, so the first taps are far off', () => {
    const { b, volts } = railOnRow54();
    const before = volts() as number;
    b.call('dac_set', 'TOP_RAIL', 0);
    // Row 54 shares the round with the boot's BUFFER_IN-DAC0 bridge: a tap of it every 10 ms.
    const levels: number[] = [];
    for (let ms = 0; ms < 40; ms += 5) {
      b.advance(5);
      const v = volts() as number;
      if (v !== (levels.at(-1) ?? before)) levels.push(v);
    }
    expect(levels.slice(0, 3)).toEqual(
      [before * 0.7, before * 0.7 ** 2, before * 0.7 ** 3].map((v) => expect.closeTo(v, 4)),
    );
    b.advance(200);
    expect(volts()).toBeCloseTo(0, 2);
  });

  it('keeps a rewired node at its old volts until the scan passes after the change', () => {
    const { b, volts } = railOnRow54();
    b.noteUserInput();
    b.call('disconnect', 54, 'TOP_RAIL');
    b.call('connect', 54, 'GND');
    expect(volts()).toBeCloseTo(3.3, 2);
    b.advance(50);
    expect(volts()).toBeCloseTo(3.3, 2);
    b.advance(60);
    expect(volts()).toBeCloseTo(0, 2);
  });

  it('a node taken out of every net reads None once the scan has passed', () => {
    const { b, volts } = railOnRow54();
    b.call('disconnect', 54, 'TOP_RAIL');
    b.advance(1);
    expect(volts()).toBeNull();
  });

  it('has no reading older than 5 s: paused core 2 keeps the last one until then', () => {
    const { b, volts } = railOnRow54();
    b.call('pause_core2', true);
    b.call('dac_set', 'TOP_RAIL', 1);
    b.advance(4000);
    expect(volts()).toBeCloseTo(3.3, 2);
    b.advance(1000);
    expect(volts()).toBeNull();
    b.call('pause_core2', false);
    b.advance(10);
    expect(volts()).toBeCloseTo(1, 2);
  });

  it('reads nothing for an undriven net and stops reading while the wave generator runs', () => {
    const b = testBoard({ firmware: '5.7.11.0' });
    b.call('connect', 20, 25);
    b.advance(500);
    expect(b.call('get_node_voltage', 20)).toBeNull();
    b.call('dac_set', 'DAC1', 2);
    b.call('connect', 30, 'DAC1');
    b.advance(500);
    expect(b.call('get_node_voltage', 30)).toBeCloseTo(2, 1);
    b.call('wavegen_set_output', 'DAC0');
    b.call('wavegen_start', true);
    b.call('dac_set', 'DAC1', 1);
    b.advance(1000);
    expect(b.call('get_node_voltage', 30)).toBeCloseTo(2, 1);
    b.advance(4500);
    expect(b.call('get_node_voltage', 30)).toBeNull();
  });
});
