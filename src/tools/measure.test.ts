import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { interceptBoard } from '../../test/support/interceptBoard.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { isBridgeable, resolveNode } from '../board/nodes.js';
import { ToolError } from '../core/errors.js';
import type { AnyTool } from '../core/toolDefinition.js';
import { currentMeasure, currentShape, voltageMeasure } from './measure.js';
import { resistanceMeasure } from './resistance.js';
import { voltageSweep } from './sweep.js';

/** Virtual parts: a 1k-1k divider from the top rail, loose parts to measure, a red LED. */
const PARTS = JSON.stringify({
  parts: [
    { type: 'resistor', id: 'R1', between: ['TOP_RAIL', 10], ohms: '1k' },
    { type: 'resistor', id: 'R2', between: [10, 'GND'], ohms: '1k' },
    { type: 'resistor', id: 'R3', between: [20, 21], ohms: '1k' },
    { type: 'resistor', id: 'R4', between: [22, 23], ohms: '470k' },
    { type: 'resistor', id: 'R5', between: [24, 'GND'], ohms: '1k' },
    { type: 'led', id: 'LED1', anode: 40, cathode: 'GND', color: 'red' },
  ],
});

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness({ partsFileText: PARTS, noiseSeed: 7 });
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.session.exec('nodes_clear()\nfor c in range(4): dac_set(c, 3.33 if c == 0 else 0.0)');
});

const bridges = () => h.python<number[][]>('[list(get_bridge(i)) for i in range(get_num_bridges())]');
const setup = (code: string) => h.session.exec(code);

/** A context whose signal the test controls. */
function cancellable() {
  const controller = new AbortController();
  return {
    controller,
    extra: {
      signal: controller.signal,
    },
  };
}

describe('voltage_measure', () => {
  it('reads the middle of a 1k-1k divider on a 5 V rail, and removes the ADC bridge after', async () => {
    await setup('dac_set(TOP_RAIL, 5.0)');
    const before = await bridges();
    const { result } = await h.run(voltageMeasure, { node: 10 });
    expect(result).toMatchObject({ node: '10', adc: 'ADC0', routed_temporarily: true, clipped: false });
    expect((result as { volts: number }).volts).toBeCloseTo(2.5, 1);
    expect(await bridges()).toEqual(before);
  });

  it('uses an ADC already on the net and changes nothing', async () => {
    await setup('dac_set(TOP_RAIL, 5.0)\nconnect(ADC2, 10)');
    const before = await bridges();
    const { result } = await h.run(voltageMeasure, { node: '10', samples: 8 });
    expect(result).toMatchObject({ adc: 'ADC2', routed_temporarily: false, samples: 8 });
    expect((result as { volts: number }).volts).toBeCloseTo(2.5, 1);
    expect(await bridges()).toEqual(before);
  });

  it('reads a rail directly', async () => {
    await setup('dac_set(TOP_RAIL, 3.3)');
    const { result } = await h.run(voltageMeasure, { node: 'TOP_RAIL' });
    expect((result as { volts: number }).volts).toBeCloseTo(3.3, 1);
  });

  it('says so when every ADC is taken', async () => {
    await setup('connect(ADC0, 1)\nconnect(ADC1, 2)\nconnect(ADC2, 3)\nconnect(ADC3, 4)');
    await expect(h.run(voltageMeasure, { node: 10 })).rejects.toMatchObject({ code: 'no_free_adc' });
  });

  it('puts the routing back when cancelled mid-reading', async () => {
    await setup('dac_set(TOP_RAIL, 5.0)\nconnect(1, 2)');
    const before = await bridges();
    const { controller, extra } = cancellable();
    const run = h.run(voltageMeasure, { node: 10, settle_ms: 1000 }, extra);
    setTimeout(() => controller.abort(), 200);
    await expect(run).rejects.toMatchObject({ code: 'canceled' });
    expect(await bridges()).toEqual(before);
    expect(await h.python('bool(is_connected(ADC0, 10))')).toBe(false);
  });

  it('repairs the routing itself when the board was left with the ADC bridge (a failed call)', async () => {
    const before = await bridges();
    // A board that routed the ADC, then the link failed before its cleanup ran.
    const broken = interceptBoard(h.client, {
      call: async (expression, options, inner) => {
        if (expression.startsWith('_jlt.meas_volts')) {
          // Inside the call's lease: the session itself would wait for the lease this call holds.
          await inner.exec('connect(ADC0, 10)');
          throw new Error('link lost');
        }
        return inner.call(expression, options);
      },
    });
    await expect(h.run(voltageMeasure, { node: 10 }, { board: broken })).rejects.toThrow('link lost');
    expect(await bridges()).toEqual(before);
  });
});

describe('voltage_measure says what it reads against and how much it loads (issue 20)', () => {
  it('names GND as the reference and the ADC input resistance the board has', async () => {
    const { result } = await h.run(voltageMeasure, { node: 30 });
    expect(result).toMatchObject({
      against: expect.stringMatching(/^the board's GND: .*minus joined to GND/),
      loading: expect.stringMatching(/^About 1 Mohm to GND/),
    });
  });
});

describe('current_measure', () => {
  it('reads the current through the ISENSE shunt in series with a 1k load', async () => {
    await setup('connect(DAC1, ISENSE_PLUS)\nconnect(ISENSE_MINUS, 24)\ndac_set(DAC1, 2.0)');
    const { result } = await h.run(currentMeasure, { window_ms: 100 });
    const r = result as {
      milliamps: number;
      isense_minus_volts: number;
      in_circuit: boolean;
      changing: boolean;
    };
    expect(r.in_circuit).toBe(true);
    expect(r.changing).toBe(false);
    // 2 V over 1k + the shunt and two crossbar paths (about 80 ohm).
    expect(r.milliamps).toBeGreaterThan(1.75);
    expect(r.milliamps).toBeLessThan(2.0);
    expect(r.isense_minus_volts).toBeGreaterThan(1.8);
    expect(result).not.toHaveProperty('frequency_hz');
  });

  it('sees a blinking LED in one call: min, max, mean, frequency and duty', async () => {
    await setup('connect(GPIO_1, ISENSE_PLUS)\nconnect(ISENSE_MINUS, 24)\npwm(1, 2, 0.5)');
    try {
      const { result } = await h.run(currentMeasure, {});
      const r = result as {
        milliamps: number;
        min_milliamps: number;
        max_milliamps: number;
        changing: boolean;
        frequency_hz: number;
        duty: number;
        window_ms: number;
      };
      expect(r.changing).toBe(true);
      expect(result).toMatchObject({ on_milliamps: expect.any(Number), off_milliamps: expect.any(Number) });
      expect(r.min_milliamps).toBeLessThan(0.1);
      expect(r.max_milliamps).toBeGreaterThan(2.5);
      expect(r.milliamps).toBeGreaterThan(0.25 * r.max_milliamps);
      expect(r.milliamps).toBeLessThan(0.75 * r.max_milliamps);
      expect(r.frequency_hz).toBeGreaterThan(1.6);
      expect(r.frequency_hz).toBeLessThan(2.4);
      expect(r.duty).toBeGreaterThan(0.35);
      expect(r.duty).toBeLessThan(0.65);
      expect(r.window_ms).toBeGreaterThanOrEqual(1000);
    } finally {
      await setup('pwm_stop(1)');
    }
  });

  it('times a blink from the middle of the gap each edge fell in, and says how sure it is (issue 20)', () => {
    // 2 Hz, half on, read every 20 ms but for a 100 ms stall (a busy board) just before the first rise.
    const times = Array.from({ length: 60 }, (_, i) => i * 20).filter((t) => !(t > 420 && t <= 500));
    const blink = times.map((t) => [t, t % 500 < 250 ? 0.003 : 0] as const);
    const shape = currentShape(blink);
    // Timed at the sample after, the rises came at 520 and 1000: 2.08 Hz, said as exact. At the
    // gaps' middles they are 470 +- 50 and 990 +- 10, and the bound covers the truth.
    expect(shape.frequencyError).toBeGreaterThan(0);
    expect(Math.abs((shape.frequency as number) - 2)).toBeLessThanOrEqual(
      2 * (shape.frequencyError as number),
    );
    expect(shape.frequencyError).toBeLessThan(0.25);
  });

  it('weighs each reading by the time it stands for: uneven reads give the true duty and mean (issue 20)', () => {
    // 2 Hz, half on at 3 mA, over 1 s: read every 5 ms while on but every 50 ms while off (a busy
    // board). Counting readings alike said about 90 % on and 2.7 mA mean.
    const times: number[] = [];
    for (let t = 0; t < 1000; t += t % 500 < 250 ? 5 : 50) times.push(t);
    const blink = times.map((t) => [t, t % 500 < 250 ? 0.003 : 0] as const);
    const shape = currentShape(blink);
    expect(shape.duty).toBeGreaterThan(0.45);
    expect(shape.duty).toBeLessThan(0.55);
    expect(shape.mean).toBeGreaterThan(0.0013);
    expect(shape.mean).toBeLessThan(0.0017);
  });

  it('reads a blink slower than the window again over 4 s, and says so (issue 20)', async () => {
    await setup('connect(GPIO_1, ISENSE_PLUS)\nconnect(ISENSE_MINUS, 24)\npwm(1, 0.7, 0.5)');
    try {
      const { result } = await h.run(currentMeasure, { window_ms: 1000 });
      expect(result).toMatchObject({ window_extended: expect.stringMatching(/4000 ms/) });
      const r = result as { frequency_hz: number; frequency_plus_minus_hz: number; window_ms: number };
      expect(r.window_ms).toBeGreaterThanOrEqual(4000);
      expect(Math.abs(r.frequency_hz - 0.7)).toBeLessThan(0.05);
      expect(r.frequency_plus_minus_hz).toBeGreaterThan(0);
    } finally {
      await setup('pwm_stop(1)');
    }
  });

  it('tells a steady current from a switching one by the shape of the samples', () => {
    const steady = Array.from({ length: 50 }, (_, i) => [i * 10, 0.002 + (i % 2) * 30e-6] as const);
    expect(currentShape(steady)).toMatchObject({ changing: false });
    const blink = Array.from({ length: 201 }, (_, i) => [i * 5, i % 100 < 25 ? 0.003 : 0] as const);
    const shape = currentShape(blink);
    expect(shape.changing).toBe(true);
    expect(shape.frequency).toBeCloseTo(2, 5);
    expect(shape.duty).toBeCloseTo(51 / 201, 5);
    // The on and off levels are the means of the readings beyond each threshold: noise lifts max, not them.
    const noisy = blink.map(([t, a], i) => [t, a + (i % 4 === 0 ? 0.0004 : 0)] as const);
    const levels = currentShape(noisy);
    expect(levels.max).toBeCloseTo(0.0034, 6);
    expect(levels.on).toBeGreaterThan(0.003);
    expect(levels.on).toBeLessThan(0.0032);
    expect(levels.off).toBeGreaterThan(0);
    expect(levels.off).toBeLessThan(0.0002);
  });

  it('notes when the shunt is not in any circuit', async () => {
    const { result } = await h.run(currentMeasure, { window_ms: 0 });
    expect(result).toMatchObject({ in_circuit: false, milliamps: expect.any(Number), samples: 1 });
    expect((result as { note: string }).note).toMatch(/ISENSE/);
  });
});

describe('resistance_measure', () => {
  it('refuses nodes in a circuit, supplies, and a busy DAC1', async () => {
    await setup('connect(20, 30)');
    await expect(h.run(resistanceMeasure, { a: 20, b: 21 })).rejects.toMatchObject({ code: 'in_circuit' });
    await expect(h.run(resistanceMeasure, { a: 'TOP_RAIL', b: 21 })).rejects.toMatchObject({
      code: 'invalid_node',
    });
    await setup('connect(DAC1, 44)');
    await expect(h.run(resistanceMeasure, { a: 22, b: 23 })).rejects.toMatchObject({ code: 'busy' });
  });
});

describe('voltage_sweep', () => {
  it('sweeps DAC1 into an LED: progress per point, I-V points, a PNG plot, DAC1 and bridges restored', async () => {
    await setup('connect(DAC1, ISENSE_PLUS)\nconnect(ISENSE_MINUS, 40)\ndac_set(DAC1, 0.5)');
    const before = await bridges();
    const { result, images, progress } = await h.run(voltageSweep, {
      supply: 'DAC1',
      start_volts: 0,
      stop_volts: 4,
      points: 9,
      node: 40,
    });
    const r = result as { points: Array<{ supply_volts: number; node_volts: number; current_amps: number }> };
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(r.points.map((p) => p.supply_volts)).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4]);
    // An LED: no current below its knee, then the voltage levels off while the current rises.
    expect(r.points[1]?.current_amps).toBeLessThan(1e-4);
    expect(r.points[8]?.current_amps).toBeGreaterThan(0.01);
    expect(r.points[8]?.node_volts).toBeLessThan(2.2);
    expect(result).toMatchObject({
      restored_volts: 0.5,
      node: '40',
      current: 'ISENSE current read at every point',
      plot: 'Voltage at 40 (V) against the DAC1 setpoint (V)',
    });
    expect(await h.python('dac_get(1)')).toBe(0.5);
    expect(await bridges()).toEqual(before);

    expect(images).toHaveLength(1);
    const png = Buffer.from(images[0]?.data ?? '', 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeLessThan(200 * 1024);
    expect(png.readUInt32BE(16)).toBe(560);
    const idat = png.indexOf('IDAT');
    expect(inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4))).length).toBe(
      (560 * 3 + 1) * 360,
    );
  });

  it("plots a node's volts against the supply, and leaves out a current that belongs to another circuit", async () => {
    // The issue's trap: an LED lit from DAC1 through ISENSE, and a divider swept on the top rail.
    await setup('connect(DAC1, ISENSE_PLUS)\nconnect(ISENSE_MINUS, 40)\ndac_set(DAC1, 3.0)');
    const { result } = await h.run(voltageSweep, {
      supply: 'TOP_RAIL',
      start_volts: 0,
      stop_volts: 4,
      points: 3,
      node: 10,
    });
    const r = result as {
      points: Array<{ supply_volts: number; node_volts: number; current_amps?: number }>;
      current: string;
      plot: string;
    };
    expect(r.points.map((p) => p.node_volts)).toEqual([
      expect.closeTo(0, 1),
      expect.closeTo(1, 1),
      expect.closeTo(2, 1),
    ]);
    expect(r.points.every((p) => p.current_amps === undefined)).toBe(true);
    expect(r.current).toMatch(/not read: ISENSE is wired into another circuit/);
    expect(r.plot).toBe('Voltage at 10 (V) against the TOP_RAIL setpoint (V)');
    // No node and no shunt in the circuit: nothing to plot, said before anything moves.
    await setup('nodes_clear()');
    await expect(
      h.run(voltageSweep, { supply: 'TOP_RAIL', start_volts: 0, stop_volts: 1 }),
    ).rejects.toMatchObject({ code: 'nothing_to_measure' });
  });

  it('stops between points when cancelled and still restores the supply and routing', async () => {
    await setup('dac_set(TOP_RAIL, 1.0)');
    const before = await bridges();
    const { controller, extra } = cancellable();
    const seen: number[] = [];
    const run = h.run(
      voltageSweep,
      { supply: 'TOP_RAIL', start_volts: 0, stop_volts: 5, points: 50, node: 10 },
      {
        ...extra,
        progress: (value: number) => {
          seen.push(value);
          if (value === 3) controller.abort();
        },
      },
    );
    // What the client sees: the sweep's own answer, with the points it had.
    const stopped = await run.then(
      () => undefined,
      (error: unknown) => error as ToolError,
    );
    expect(stopped).toBeInstanceOf(ToolError);
    expect(stopped?.code).toBe('canceled');
    const points = (stopped?.options.details?.points ?? []) as unknown[];
    expect(stopped?.message).toBe(`Sweep cancelled after ${points.length} of 50 points.`);
    expect(points.length).toBeGreaterThanOrEqual(3);
    expect(seen.length).toBeLessThan(50);
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(1);
    expect(await bridges()).toEqual(before);
    // And the rail's output is back too: the divider middle reads half of 1 V.
    const { result } = await h.run(voltageMeasure, { node: 10 });
    expect((result as { volts: number }).volts).toBeCloseTo(0.5, 1);
  });

  it('refuses the arguments voltage_sweep no longer takes, saying why, rather than dropping them', () => {
    for (const old of [{ settle_ms: 500 }, { samples: 8 }, { measure_current: false }]) {
      const parsed = voltageSweep.input.safeParse({ supply: 'DAC1', start_volts: 0, stop_volts: 1, ...old });
      expect(parsed.success, JSON.stringify(old)).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/settles 20 ms a point/);
    }
  });

  it('refuses a supply the waveform generator drives, and reports the setpoint it restores', async () => {
    await setup(
      'wavegen_set_output(1); wavegen_set_wave(0); wavegen_set_freq(10); wavegen_set_amplitude(0); wavegen_set_offset(0); wavegen_start()',
    );
    try {
      await expect(
        h.run(voltageSweep, { supply: 'DAC1', start_volts: 0, stop_volts: 1, node: 40 }),
      ).rejects.toMatchObject({ code: 'busy' });
      await expect(h.run(resistanceMeasure, { a: 20, b: 21 })).rejects.toMatchObject({ code: 'busy' });
      // Routing an ADC is refused too; a node already on an ADC net can be read.
      await expect(h.run(voltageMeasure, { node: 10 })).rejects.toMatchObject({ code: 'busy' });
      await setup('dac_set(TOP_RAIL, 5)\nconnect(ADC2, 10)');
      const { result: routed } = await h.run(voltageMeasure, { node: 10 });
      expect((routed as { volts: number }).volts).toBeCloseTo(2.5, 1);
      await setup('disconnect(ADC2, 10)');
    } finally {
      await setup('wavegen_stop()');
    }
    await setup('dac_set(TOP_RAIL, 2.0)');
    const { result } = await h.run(voltageSweep, {
      supply: 'TOP_RAIL',
      start_volts: 0,
      stop_volts: 1,
      points: 2,
      node: 10,
    });
    // The steps used save=False: the stored setpoint never moved, and it is what is reported.
    expect(result).toMatchObject({ restored_volts: 2 });
    const { result: middle } = await h.run(voltageMeasure, { node: 10 });
    expect((middle as { volts: number }).volts).toBeCloseTo(1, 1);
  });

  it('checks every voltage against the safety limits before sending', async () => {
    await expect(
      h.run(
        voltageSweep,
        { supply: 'DAC1', start_volts: 0, stop_volts: 5, node: 10 },
        { safety: { maxVolts: 3.3, minVolts: 0 } },
      ),
    ).rejects.toMatchObject({ code: 'unsafe_voltage' });
    expect(voltageSweep.input.safeParse({ supply: 'DAC0', start_volts: 0, stop_volts: 1 }).success).toBe(
      false,
    );
    expect(voltageSweep.input.safeParse({ supply: 'DAC1', start_volts: 0, stop_volts: 9 }).success).toBe(
      false,
    );
  });
});

describe('hostile strings', () => {
  it('node arguments are refused before anything is sent, or name a node and work literally', async () => {
    const cases: Array<[AnyTool, (s: string) => unknown]> = [
      [voltageMeasure, (s) => ({ node: s })],
      [resistanceMeasure, (s) => ({ a: s, b: 21 })],
      [resistanceMeasure, (s) => ({ a: 20, b: s })],
      [voltageSweep, (s) => ({ supply: 'DAC1', start_volts: 0, stop_volts: 0.1, points: 2, node: s })],
    ];
    let refused = 0;
    const start = await bridges();
    for (const s of hostileStrings()) {
      const id = resolveNode(s);
      const valid = id !== undefined && isBridgeable(id);
      for (const [tool, args] of cases) {
        if (!tool.input.safeParse(args(s)).success) {
          refused++;
          continue;
        }
        const sent: string[] = [];
        const board = interceptBoard(h.client, {
          call: (expression, options, inner) => {
            sent.push(expression);
            return inner.call(expression, options);
          },
        });
        const run = h.run(tool, args(s), { board });
        if (valid) {
          await run.catch((error: unknown) => expect(error).toBeInstanceOf(ToolError));
        } else {
          await expect(run).rejects.toMatchObject({ code: 'invalid_node' });
          expect(sent).toEqual([]);
          refused++;
        }
      }
    }
    for (const s of hostileStrings()) {
      expect(voltageSweep.input.safeParse({ supply: s, start_volts: 0, stop_volts: 1 }).success).toBe(false);
    }
    expect(refused).toBeGreaterThan(800);
    expect(await bridges()).toEqual(start);
  });
});
