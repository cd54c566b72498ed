import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { connect, disconnect, nodesClear } from './connections.js';
import { gpioConfig, pwmStart, pwmStop } from './gpio.js';
import { overlayClear, overlaySet } from './leds.js';
import { voltageMeasure } from './measure.js';
import { dacSet } from './power.js';
import { slotSwitch } from './slotSwitch.js';
import { undo } from './stateUndo.js';
import { firmwareUndo } from './system.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
});
afterAll(async () => h.close());
beforeEach(async () => {
  // Empty the journal: undo until there is nothing left, then start from a plain board.
  for (;;) {
    const more = await h.run(undo).then(
      () => true,
      () => false,
    );
    if (!more) break;
  }
  await h.session.exec(
    'nodes_clear()\nconnect(BUFFER_IN, DAC0, 0)\nfor c in range(4): dac_set(c, 3.33 if c == 0 else 0.0)\noverlay_clear_all()\nfor p in range(1, 9):\n    pwm_stop(p)\n    gpio_set_dir(p, INPUT)\n    gpio_set_pull(p, "PULLDOWN")',
  );
});

const bridged = (a: string | number, b: string | number) =>
  h.python<boolean>(`bool(is_connected(${JSON.stringify(a)}, ${JSON.stringify(b)}))`);

describe("undo: this server's last change, named, part by part", () => {
  it('undoes the last change first and names it; a measurement in between is no change', async () => {
    await h.run(connect, { pairs: [[50, 'TOP_RAIL']] });
    await h.run(dacSet, { channel: 'TOP_RAIL', volts: 5 });
    await h.run(voltageMeasure, { node: 50 });
    // A preview names the change and what would come back, and changes nothing.
    const peek = await h.run(undo, { preview: true });
    // Its fields say what would happen: no `undone` in a preview (issue 20's trial).
    expect(peek.result).toEqual({
      would_undo: 'dac_set TOP_RAIL 0 V -> 5 V',
      tool: 'dac_set',
      would_put_back: ['TOP_RAIL back to 0 V (from 5 V)'],
      remaining: 2,
    });
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(5);
    const first = await h.run(undo);
    expect(first.result).toEqual({
      undone: 'dac_set TOP_RAIL 0 V -> 5 V',
      tool: 'dac_set',
      restored: ['TOP_RAIL back to 0 V (from 5 V)'],
      skipped: [],
      remaining: 1,
      next: 'connect 50-TOP_RAIL',
    });
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(0);
    expect(await bridged(50, 'TOP_RAIL')).toBe(true);
    const second = await h.run(undo);
    expect(second.result).toMatchObject({
      undone: 'connect 50-TOP_RAIL',
      restored: ['removed bridge 50-TOP_RAIL'],
      next: null,
    });
    expect(await bridged(50, 'TOP_RAIL')).toBe(false);
    expect(await h.python('bool(is_connected(ADC0, 50))')).toBe(false);
    await expect(h.run(undo)).rejects.toMatchObject({
      code: 'nothing_to_undo',
      message: expect.stringMatching(/firmware_undo/),
    });
  });

  it('puts back what nodes_clear removed, with the duplicates and the net name', async () => {
    await h.run(connect, { pairs: [[12, 13]] });
    await h.session.exec("connect(12, 13, 3)\nset_net_name(6, 'clock')");
    await h.run(nodesClear);
    expect(await bridged(12, 13)).toBe(false);
    const { result } = await h.run(undo);
    expect(result).toMatchObject({ undone: 'nodes_clear (1 bridge)', skipped: [] });
    expect(result.restored).toEqual(['put back bridge 12-13', 'net name "clock"']);
    expect(await h.python('[list(get_bridge(i)) for i in range(get_num_bridges())]')).toContainEqual([
      12, 13, 3,
    ]);
    expect(await h.python('get_net_name(6)')).toBe('clock');
  });

  it('undoes GPIO, PWM and overlays', async () => {
    await h.run(gpioConfig, { pin: 3, direction: 'OUTPUT', level: 'HIGH' });
    await h.run(pwmStart, { pin: 5, frequency_hz: 2 });
    await h.run(overlaySet, { name: 'box', x_col: 1, y_row: 1, width: 2, height: 1, color: '#200000' });
    expect((await h.run(undo)).result).toMatchObject({
      undone: 'overlay_set "box"',
      restored: ['overlay "box" removed'],
    });
    expect(await h.python('overlay_count()')).toBe(0);
    expect((await h.run(undo)).result).toMatchObject({
      undone: 'pwm_start GPIO 5 2 Hz, duty 0.5',
      restored: ['GPIO 5 back to INPUT, PULLDOWN'],
    });
    expect(await h.python('str(gpio_get_dir(5))')).toBe('INPUT');
    expect((await h.run(undo)).result).toMatchObject({
      undone: 'gpio_config GPIO 3 OUTPUT HIGH',
      restored: ['GPIO 3 back to INPUT, PULLDOWN'],
    });
    expect(await h.python('str(gpio_get_dir(3))')).toBe('INPUT');
    // A PWM this server started and stopped comes back at its own frequency.
    await h.run(pwmStart, { pin: 6, frequency_hz: 4, duty_cycle: 0.25 });
    await h.run(pwmStop, { pin: 6 });
    expect((await h.run(undo)).result).toMatchObject({
      undone: 'pwm_stop GPIO 6',
      restored: ['GPIO 6 back to PWM 4 Hz, PULLDOWN'],
    });
    expect(await h.python('str(gpio_get_dir(6))')).toBe('OUTPUT');
  });

  it('puts a cleared overlay back', async () => {
    await h.run(overlaySet, { name: 'mark', x_col: 4, y_row: 2, width: 3, height: 2, color: '#002000' });
    await h.run(overlayClear, {});
    const { result } = await h.run(undo);
    expect(result).toMatchObject({ undone: 'overlay_clear (all)', restored: ['overlay "mark" put back'] });
    expect(await h.python('overlay_count()')).toBe(1);
  });

  it('leaves alone what changed since, and says so', async () => {
    await h.run(connect, { pairs: [[5, 6]] });
    await h.python('disconnect(5, 6)');
    const { result } = await h.run(undo);
    expect(result).toMatchObject({
      undone: 'connect 5-6',
      restored: [],
      skipped: ['bridge 5-6 is gone already'],
    });
  });

  it('refuses to put back a bridge that would now make a short, and applies nothing', async () => {
    await h.run(connect, { pairs: [[7, 'TOP_RAIL']] });
    await h.run(disconnect, { pairs: [[7, 'TOP_RAIL']] });
    await h.python('connect(7, GND)');
    await expect(h.run(undo)).rejects.toMatchObject({
      code: 'unsafe_short',
      message: expect.stringMatching(/7-TOP_RAIL would join GND \(0 V\) and TOP_RAIL/),
    });
    expect(await bridged(7, 'TOP_RAIL')).toBe(false);
  });

  it('does not go back past a slot switch', async () => {
    await h.run(connect, { pairs: [[20, 21]] });
    await h.run(slotSwitch, { slot: 2, discard_changes: true });
    await expect(h.run(undo)).rejects.toMatchObject({
      code: 'nothing_to_undo',
      message: expect.stringMatching(/since slot_switch to slot 2/),
    });
    await h.run(slotSwitch, { slot: 0, discard_changes: true });
  });

  it("keeps the firmware's own history apart: firmware_undo steps it, supplies included as the firmware records them", async () => {
    await h.run(connect, { pairs: [[30, 31]] });
    const step = await h.run(firmwareUndo);
    expect(step.result).toMatchObject({ changed: true, step: 'connect 30-31' });
    expect(await bridged(30, 31)).toBe(false);
  });
});
