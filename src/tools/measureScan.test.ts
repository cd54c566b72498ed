/**
 * voltage_measure on both releases: 5.7.11 answers from the firmware's passive scan where it has a
 * value (no ADC routed, so no bridge and no undo step); 5.7.0.13, which has no scan, and a node the
 * scan has no value for still route an ADC for the reading.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { interceptBoard } from '../../test/support/interceptBoard.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import type { FirmwareVersion } from '../board/firmware.js';
import { voltageMeasure } from './measure.js';

/** A 1k-1k divider from the top rail at row 10 and a loose resistor nothing drives (20-21). */
const PARTS = JSON.stringify({
  parts: [
    { type: 'resistor', id: 'R1', between: ['TOP_RAIL', 10], ohms: '1k' },
    { type: 'resistor', id: 'R2', between: [10, 'GND'], ohms: '1k' },
    { type: 'resistor', id: 'R3', between: [20, 21], ohms: '1k' },
  ],
});

interface Measured {
  volts: number;
  via: string;
  adc?: string;
  routed_temporarily: boolean;
  samples: number;
}

function onFirmware(firmware: FirmwareVersion) {
  let h: ToolHarness;
  beforeAll(async () => {
    h = await startToolHarness({ firmware, partsFileText: PARTS, noiseSeed: 7 });
  });
  afterAll(async () => h.close());
  beforeEach(async () => {
    // Row 10 joins a net (with row 11), so the scan taps it; 20 joins one with 25, undriven.
    await h.session.exec('nodes_clear()\ndac_set(TOP_RAIL, 5.0)\nconnect(10, 11)\nconnect(20, 25)');
  });
  const board = async () =>
    h.python<[number[][], number[]]>(
      '[[list(get_bridge(i)) for i in range(get_num_bridges())], [history_size(), history_position()]]',
    );
  const measure = async (node: number, extra = {}) =>
    (await h.run(voltageMeasure, { node }, extra)).result as unknown as Measured;
  return { h: () => h, board, measure };
}

describe('voltage_measure on 5.7.11 (the passive scan)', () => {
  const { h, board, measure } = onFirmware('5.7.11.0');

  it('reads a node in a driven net from the scan: no bridge, no undo step', async () => {
    const before = await board();
    const result = await measure(10);
    expect(result).toMatchObject({ via: 'scan', routed_temporarily: false, samples: 1 });
    expect(result.adc).toBeUndefined();
    expect(result.volts).toBeCloseTo(2.5, 1);
    expect(await board()).toEqual(before);
  });

  it('routes an ADC when the scan has no value (an undriven net)', async () => {
    const before = await board();
    expect(await h().python('get_node_voltage(20)')).toBeNull();
    const result = await measure(20);
    expect(result).toMatchObject({ via: 'adc', adc: 'ADC0', routed_temporarily: true });
    expect((await board())[0]).toEqual(before[0]);
  });

  it('routes an ADC when the board answers None or garbage for a driven node', async () => {
    for (const answer of [null, 'x', Number.NaN]) {
      const broken = interceptBoard(h().client, {
        call: async (expression, options, inner) =>
          expression.startsWith('get_node_voltage(') ? answer : inner.call(expression, options),
      });
      const result = await measure(10, { board: broken });
      expect(result).toMatchObject({ via: 'adc', adc: 'ADC0', routed_temporarily: true });
      expect(result.volts).toBeCloseTo(2.5, 1);
    }
  });
});

describe('voltage_measure on 5.7.0.13 (no scan)', () => {
  const { board, measure } = onFirmware('5.7.0.13');

  it('routes an ADC for the reading and removes it after, as before', async () => {
    const before = await board();
    const result = await measure(10);
    expect(result).toMatchObject({ via: 'adc', adc: 'ADC0', routed_temporarily: true, samples: 4 });
    expect(result.volts).toBeCloseTo(2.5, 1);
    expect((await board())[0]).toEqual(before[0]);
  });
});
