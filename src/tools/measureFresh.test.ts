/**
 * voltage_measure reads the node as it is now, on both releases. 5.7.11's passive scan
 * (get_node_voltage) can still hold the board as it was before the caller's last change (the twin
 * keeps that lag, sim/firmware/scan.ts), so the tool routes an ADC for every reading there too.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import type { FirmwareVersion } from '../board/firmware.js';
import { voltageMeasure } from './measure.js';

/** A 1k-1k divider from the top rail at row 10. */
const PARTS = JSON.stringify({
  parts: [
    { type: 'resistor', id: 'R1', between: ['TOP_RAIL', 10], ohms: '1k' },
    { type: 'resistor', id: 'R2', between: [10, 'GND'], ohms: '1k' },
  ],
});

interface Measured {
  volts: number;
  adc: string;
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
    // Row 10 in a net (with row 11), so 5.7.11's scan taps it; a second for the scan to settle.
    await h.session.exec(
      'import time\nnodes_clear()\ndac_set(TOP_RAIL, 5.0)\nconnect(10, 11)\ntime.sleep_ms(1000)',
    );
  });
  const bridges = async () => h.python<number[][]>('[list(get_bridge(i)) for i in range(get_num_bridges())]');
  const measure = async (node: number) =>
    (await h.run(voltageMeasure, { node })).result as unknown as Measured;
  return { h: () => h, bridges, measure };
}

describe.each(['5.7.11.0', '5.7.0.13'] as const)(
  'voltage_measure reads the board as it is now (%s)',
  (firmware) => {
    const { h, bridges, measure } = onFirmware(firmware);

    it('dac_set then voltage_measure at once gives the new volts', async () => {
      expect((await measure(10)).volts).toBeCloseTo(2.5, 1);
      await h().session.exec('dac_set(TOP_RAIL, 1.0)');
      const result = await measure(10);
      expect(result).toMatchObject({ adc: 'ADC0', routed_temporarily: true, samples: 4 });
      expect(result.volts).toBeCloseTo(0.5, 1);
    });

    it('rewiring then voltage_measure at once reads the node as it is wired now', async () => {
      expect((await measure(10)).volts).toBeCloseTo(2.5, 1);
      await h().session.exec('disconnect(10, 11)\nconnect(10, GND)');
      // Row 10 now sits on GND through the crossbar (a few tenths of a volt over its paths).
      expect((await measure(10)).volts).toBeLessThan(0.3);
    });

    it('leaves the bridges as they were', async () => {
      const before = await bridges();
      await measure(10);
      expect(await bridges()).toEqual(before);
    });
  },
);

describe('the scan a scan-based reading would have used (5.7.11)', () => {
  const { h } = onFirmware('5.7.11.0');

  it('still answers the old volts right after dac_set: what the test above would catch', async () => {
    const [before, after] = await h().python<[number, number]>(
      '[get_node_voltage(10), (dac_set(TOP_RAIL, 1.0), get_node_voltage(10))[1]]',
    );
    expect(before).toBeCloseTo(2.5, 1);
    expect(after).toBeCloseTo(2.5, 1);
  });
});
