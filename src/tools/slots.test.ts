import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostileStrings } from '../../test/support/hostileStrings.js';
import { startToolHarness, type ToolHarness } from '../../test/support/toolHarness.js';
import { ToolError } from '../core/errors.js';
import { nodesClear } from './connections.js';
import { gpioGet, pwmStop } from './gpio.js';
/** The slot tools and the state tools they share a board image with (restorePlan.ts). */
import { slotDiscard, slotSwitch } from './slotSwitch.js';
import { slotCurrent, slotSave } from './slots.js';
import { stateGet } from './state.js';
import { stateSet } from './stateSet.js';
import { undo } from './stateUndo.js';
import { wokwiImport } from './wokwi.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
  // Test-only helpers: whether two nodes share a net, and a slot file's text ('' when missing).
  await h.client.exec(
    [
      'import json, os',
      'def _jlt_test_same_net(a, b):',
      "    for n in json.loads(get_state())['nets']:",
      "        if a in n['nodes'] and b in n['nodes']:",
      '            return True',
      '    return False',
      'def _jlt_test_slot(s):',
      '    try:',
      "        f = open('/slots/slot%d.yaml' % s)",
      '    except OSError:',
      "        return ''",
      '    t = f.read()',
      '    f.close()',
      '    return t',
      'def _jlt_test_reset():',
      '    switch_slot(0)',
      '    nodes_clear()',
      '    connect(BUFFER_IN, DAC0, 0)',
      '    for c, v in ((0, 3.33), (1, 0), (2, 0), (3, 0)):',
      '        dac_set(c, v)',
      '    for i in range(60):',
      '        set_net_name(i, None)',
      '    for p in range(1, 9):',
      '        gpio_set_dir(p, INPUT)',
      "        gpio_set_pull(p, 'PULLDOWN')",
      "    for f in os.listdir('/slots'):",
      "        os.remove('/slots/' + f)",
      '    nodes_save()',
    ].join('\n'),
  );
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.python('_jlt_test_reset()');
});

const refusal = (code: string) => expect.objectContaining({ code });
const connected = (a: string, b: string) =>
  h.python<boolean>(`_jlt_test_same_net(${JSON.stringify(a)}, ${JSON.stringify(b)})`);
const slotFile = (s: number) => h.python<string>(`_jlt_test_slot(${s})`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls until the board's idle autosave has written the state (has_changes false). On 5.7.11 raw-REPL
 * traffic counts as user input and holds the autosave back for 750 ms, so the polls leave it quiet.
 */
async function untilSaved(): Promise<void> {
  for (let i = 0; i < 8; i++) {
    await sleep(900);
    if (!(await h.run(slotCurrent)).result.has_changes) return;
  }
  throw new Error('the board never autosaved');
}

describe('slot changes', () => {
  it('has no changes right after a save, and changes after a Python switch_slot (which loads nothing)', async () => {
    expect((await h.run(slotCurrent)).result).toEqual({
      slot: 0,
      has_changes: false,
      differences: [],
      file: '/slots/slot0.yaml',
      saved: true,
    });
    await h.python('connect(7, 8)');
    await untilSaved();
    await h.python('switch_slot(3)');
    const { result } = await h.run(slotCurrent);
    expect(result).toMatchObject({ slot: 3, has_changes: true, saved: false });
    expect(result.differences).toContain("bridge 7-8 is on the board but not in slot 3's file");
  });

  it('has changes after a change while the user is active, none once the board autosaved', async () => {
    await sleep(800);
    h.board.inputs.clickwheelTurn(1); // user input holds the autosave back for 750 ms
    await sleep(30);
    await h.python('connect(21, 22)');
    const { result } = await h.run(slotCurrent);
    expect(result).toMatchObject({ slot: 0, has_changes: true });
    expect(result.differences).toEqual(["bridge 21-22 is on the board but not in slot 0's file"]);
    await untilSaved();
    expect(await slotFile(0)).toContain('{n1: 21, n2: 22, dup: 2}');
  });

  it('has no changes after slot_save, which verifies the file', async () => {
    await h.python('switch_slot(2)');
    await h.python('dac_set(TOP_RAIL, 1.5)');
    const { result } = await h.run(slotSave);
    expect(result).toEqual({ slot: 2, active_slot: 2, file: '/slots/slot2.yaml', note: null });
    expect((await h.run(slotCurrent)).result.has_changes).toBe(false);
    expect(await slotFile(2)).toContain('topRail: 1.50');
  });

  it('compares user colours by the name the board writes, so a saved colour is no change', async () => {
    await h.python('connect(25, 26)');
    await h.python('set_net_color(6, 0x00FF00)');
    const name = await h.python<string>('get_net_color_name(6)');
    await h.run(slotSave);
    expect((await h.run(slotCurrent)).result).toMatchObject({ has_changes: false, differences: [] });
    const away = await h.run(slotSwitch, { slot: 1 });
    // Saved just before: nothing was pending, and the result says so in words.
    expect(away.result).toMatchObject({
      saved_previous: false,
      previous_changes:
        'Slot 0 had no unsaved changes: its file already held the board, so nothing was saved or lost.',
    });
    const back = await h.run(slotSwitch, { slot: 0 });
    expect(back.result).toMatchObject({ restored: true, differences: [] });
    expect(await h.python('get_net_color_name(6)')).toBe(name);
    expect((await h.run(slotCurrent)).result.has_changes).toBe(false);
  });

  it('saving to another slot keeps the active slot: a clear afterwards is autosaved into the active slot, never into the copy', async () => {
    await h.python('connect(5, 6)');
    await h.python('pwm(1, 2, 0.5)');
    const { result } = await h.run(slotSave, { slot: 3 });
    expect(result).toMatchObject({ slot: 3, active_slot: 0, file: '/slots/slot3.yaml' });
    expect(result.note).toBe(
      'Slot 3 holds the board as it is now (wiring, supplies, GPIO, PWM). Slot 0 stays active: later changes, a clear too, are autosaved into slot 0, not 3.',
    );
    expect(await h.python('CURRENT_SLOT()')).toBe(0);
    const copy = await slotFile(3);
    expect(copy).toContain('{n1: 5, n2: 6, dup: 2}');
    // The issue's trap: save, clear, and the autosave a second later.
    const cleared = await h.run(nodesClear);
    expect(cleared.result.autosave).toMatch(/^Slot 0 \(the active slot\) gets this cleared board/);
    await h.python('pwm_stop(1)');
    await untilSaved();
    expect(await slotFile(3)).toBe(copy);
    expect(await slotFile(0)).not.toContain('n1: 5');
    // Back: everything the slot holds, PWM included, and its file is not written back short.
    const back = await h.run(slotSwitch, { slot: 3 });
    expect(back.result).toMatchObject({ slot: 3, restored: true, differences: [], not_restored: [] });
    expect(back.result.note).toMatch(/Slot 3 is the active slot: the board autosaves/);
    expect(await connected('5', '6')).toBe(true);
    expect(await h.python('str(gpio_get_dir(1))')).toBe('OUTPUT'); // the 2 Hz timer PWM drives the pad
    expect(await slotFile(3)).toContain('pwmEnabled:   [1,');
    // This server started that PWM, at the file's rate: it says so (a model trial read "rate unknown").
    expect((await h.run(stateGet)).result.running).toContain('PWM on GPIO_1: 2 Hz, duty 0.5');
    expect((await h.run(gpioGet, { pin: 1 })).result.pwm).toEqual({ frequency_hz: 2, duty_cycle: 0.5 });
    // A later change to the pin outranks the slot's rate.
    await h.run(pwmStop, { pin: 1 });
    expect((await h.run(gpioGet, { pin: 1 })).result.pwm).toBeUndefined();
  });
});

describe('slot_switch', () => {
  it('switch then save keeps both slots right (the board alone would write slot 0 into slot 2)', async () => {
    await h.python('connect(7, 8)');
    const first = await h.run(slotSwitch, { slot: 2 });
    expect(first.result).toMatchObject({
      slot: 2,
      previous_slot: 0,
      loaded_from: 'power_on_default',
      restored: true,
      differences: [],
    });
    expect(await connected('7', '8')).toBe(false);
    expect(await h.python('[list(get_bridge(i)) for i in range(get_num_bridges())]')).toEqual([
      [139, 106, 0],
    ]);
    await h.python('connect(9, 10)');
    expect((await h.run(slotSave)).result.slot).toBe(2);
    const two = await slotFile(2);
    expect(two).toContain('{n1: 9, n2: 10, dup: 2}');
    expect(two).not.toContain('n1: 7');
    const zero = await slotFile(0);
    expect(zero).toContain('{n1: 7, n2: 8, dup: 2}');
    expect(zero).not.toContain('n1: 9');

    const back = await h.run(slotSwitch, { slot: 0 });
    expect(back.result).toMatchObject({ slot: 0, previous_slot: 2, loaded_from: 'file', restored: true });
    expect(await connected('7', '8')).toBe(true);
    expect(await connected('9', '10')).toBe(false);
    expect(await slotFile(2)).toContain('{n1: 9, n2: 10, dup: 2}');
  });

  it("loads the target's bridges with their duplicates, supplies, names and GPIO settings", async () => {
    await h.python('connect(12, 13, 3)');
    await h.python('connect(GPIO_2, 40)');
    await h.python('dac_set(TOP_RAIL, 2.5)');
    await h.python('dac_set(DAC1, -1.25)');
    await h.python("set_net_name(6, 'clock')");
    await h.python('gpio_set_pull(2, 1)');
    await h.python('gpio_set_dir(5, OUTPUT)');
    await h.run(slotSave, { slot: 5 });
    await h.run(slotSwitch, { slot: 1 });
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(0);
    expect(await connected('12', '13')).toBe(false);

    const { result } = await h.run(slotSwitch, { slot: 5 });
    expect(result).toMatchObject({
      slot: 5,
      loaded_from: 'file',
      restored: true,
      differences: [],
      not_restored: [],
    });
    expect(await h.python('CURRENT_SLOT()')).toBe(5);
    expect(await h.python('[list(get_bridge(i)) for i in range(get_num_bridges())]')).toEqual([
      [139, 106, 0],
      [12, 13, 3],
      [132, 40, 2],
    ]);
    expect(await h.python('[dac_get(c) for c in range(4)]')).toEqual([3.33, -1.25, 2.5, 0]);
    expect(await h.python('get_net_name(6)')).toBe('clock');
    expect(await h.python('str(gpio_get_dir(5))')).toBe('OUTPUT');
    expect(await h.python('str(gpio_get_pull(2))')).toBe('PULLUP');
  });

  it('saves the active slot first, or drops its differences with discard_changes (and lists them)', async () => {
    await h.python('switch_slot(6)'); // the board now differs from slot 6's file (never saved)
    // Hold the autosave back (it would save slot 6 as soon as the REPL is idle, on a loaded machine
    // before slot_switch looks), so that slot_switch is the one to save it.
    h.board.inputs.clickwheelTurn(1);
    await h.python('connect(30, 31)');
    const kept = await h.run(slotSwitch, { slot: 7 });
    expect(kept.result.saved_previous).toBe(true);
    expect(kept.result.previous_changes).toMatch(
      /^Slot 6 had \d+ unsaved changes?; (it was|they were) saved into \/slots\/slot6\.yaml before switching\.$/,
    );
    expect(await slotFile(6)).toContain('{n1: 30, n2: 31, dup: 2}');

    await sleep(800);
    h.board.inputs.clickwheelTurn(1); // hold the autosave back while we change slot 7 and renumber
    await sleep(30);
    await h.python('connect(32, 33)');
    await h.python('switch_slot(3)');
    const dropped = await h.run(slotSwitch, { slot: 6, discard_changes: true });
    expect(dropped.result).toMatchObject({ saved_previous: false, slot: 6, restored: true });
    expect(dropped.result.discarded).toContain("bridge 32-33 is on the board but not in slot 3's file");
    expect(dropped.result.previous_changes).toMatch(
      /^Slot 3 had \d+ unsaved changes?; discard_changes dropped (it|them) \(see discarded\), and \/slots\/slot3\.yaml is as it was\.$/,
    );
    expect(await slotFile(3)).toBe('');
    expect(await connected('32', '33')).toBe(false);
    expect(await connected('30', '31')).toBe(true);
  });

  it('refuses a slot whose supplies exceed the limits, before changing anything', async () => {
    await h.python('dac_set(TOP_RAIL, 5)');
    await h.run(slotSave, { slot: 3 });
    await h.run(slotSwitch, { slot: 0 });
    await expect(h.run(slotSwitch, { slot: 3 }, { safety: { maxVolts: 3.3, minVolts: 0 } })).rejects.toEqual(
      refusal('unsafe_voltage'),
    );
    expect(await h.python('CURRENT_SLOT()')).toBe(0);
  });

  it('reports what a slot file holds that the API cannot restore, starts its PWM, and keeps the file whole', async () => {
    const file = [
      'version: 2',
      'sourceOfTruth: bridges',
      '',
      'bridges:',
      '  - {n1: 14, n2: 15, dup: 2, color: red}',
      '',
      'power:',
      '  topRail: 1.00',
      '',
      'config:',
      '  gpio:',
      '    pwmEnabled:   [0,0,1,0,0,0,0,0,0,0]',
    ].join('\\n');
    await h.python(`fs_write('/slots/slot1.yaml', '${file}')`);
    const before = await slotFile(1);
    const { result } = await h.run<{ not_restored: string[] }>(slotSwitch, { slot: 1 });
    expect(await connected('14', '15')).toBe(true);
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(1);
    expect(result.not_restored.join('\n')).toMatch(/bridge colour/);
    expect(result.not_restored.join('\n')).not.toMatch(/PWM/);
    expect(result.not_restored.join('\n')).toMatch(/kept as it was, whole/);
    expect(await h.python('str(gpio_get_dir(3))')).toBe('OUTPUT');
    // Not written back short, and the board's state is clean: no autosave shortens it either.
    await sleep(900);
    expect(await slotFile(1)).toBe(before);
    expect(await h.python('CURRENT_SLOT()')).toBe(1);
  });
});

describe('slot_discard', () => {
  it('puts the slot file back', async () => {
    await h.python('connect(11, 12)');
    await h.run(slotSave);
    await h.python('switch_slot(4)');
    await h.python('switch_slot(0)');
    await h.python('nodes_clear()');
    await h.python('connect(44, 45)');
    const { result } = await h.run(slotDiscard);
    // The board may have autosaved the change already; then there is nothing left to discard.
    if (result.had_changes) {
      expect(result).toMatchObject({ slot: 0, restored: true });
      expect(await connected('11', '12')).toBe(true);
    }
    expect((await h.run(slotCurrent)).result.has_changes).toBe(false);
  });
});

describe('state', () => {
  it('reads the state as structured data, leaving out what is as at power-on and naming it', async () => {
    const fresh = await h.run(stateGet);
    // The supplies at power-on go too, named (DAC0, the probe's calibrated supply, stays).
    expect(fresh.result).toMatchObject({ power: { dac0: 3.33 }, nets: [], gpio: [], overlays: [] });
    expect(Object.keys(fresh.result.power as object)).toEqual(['dac0']);
    expect(fresh.result.as_at_power_on).toBe(
      'top rail, bottom rail, DAC1 at 0 V; nets 1, 2, 3, 4, 5 (each supply alone); net 4 is DAC0 with BUFFER_IN (the probe-power bridge BUFFER_IN-DAC0); pins 1, 2, 3, 4, 5, 6, 7, 8, TX, RX (on no net, inputs with pull-down; TX/RX the UART); no LED overlays',
    );
    expect(Buffer.byteLength(JSON.stringify(fresh.result))).toBeLessThan(400);
    await h.python('connect(1, 2)');
    await h.python('connect(GPIO_3, 2)');
    await h.python("gpio_set_pull(5, 'PULLUP')");
    await h.python('connect(TOP_RAIL, 9)');
    const { result } = await h.run<{
      nets: Array<{ nodes: string[] }>;
      gpio: Array<{ pin: number | string }>;
      as_at_power_on: string;
    }>(stateGet);
    expect(result).toMatchObject({ power: { dac0: 3.33 } });
    expect(result.as_at_power_on).toMatch(/^top rail, bottom rail, DAC1 at 0 V; /);
    expect(result.nets.map((n) => n.nodes)).toEqual([
      ['TOP_RAIL', '9'],
      ['1', '2', 'GPIO_3'],
    ]);
    expect(result.gpio.map((g) => g.pin)).toEqual([3, 5]);
    expect(result.as_at_power_on).toMatch(/; nets 1, 3, 4, 5 .*pins 1, 2, 4, 6, 7, 8, TX, RX/);
  });

  it('wires nets as chains (rows, connect names, state names), keeps the probe power, and undoes exactly', async () => {
    await h.python('connect(20, 21, 4)');
    await h.python("set_net_name(6, 'old')");
    const { result } = await h.run(stateSet, {
      nets: [
        ['TOP_RAIL', 10],
        [14, 'GP_2', '15'],
      ],
    });
    expect(result).toMatchObject({ applied: true, differences: [] });
    expect(result.nets).toEqual(
      expect.arrayContaining([expect.objectContaining({ nodes: ['14', 'GPIO_2', '15'] })]),
    );
    expect(await connected('TOP_R', '10')).toBe(true);
    expect(await connected('14', 'GP_2')).toBe(true);
    expect(await connected('GP_2', '15')).toBe(true);
    // clear_first replaced the earlier bridge, but not the probe-power one (duplicates 0).
    expect(await connected('20', '21')).toBe(false);
    expect(await h.python('get_bridge(0)')).toEqual([139, 106, 0]);

    const undone = await h.run(undo);
    expect(undone.result).toMatchObject({
      undone: 'state_set (2 nets, the rest cleared)',
      tool: 'state_set',
      skipped: [],
    });
    expect(await h.python('[list(get_bridge(i)) for i in range(get_num_bridges())]')).toEqual([
      [139, 106, 0],
      [20, 21, 4],
    ]);
    expect(await h.python('get_net_name(6)')).toBe('old');
  });

  it('refuses what it no longer takes (supplies, GPIO, overlays), saying which tool does it', () => {
    for (const args of [
      { nets: [['1', '2']], power: { top_rail: 5 } },
      { nets: [['1', '2']], gpio: [{ pin: 3, direction: 'OUTPUT' }] },
      { nets: [['1', '2']], overlays: [] },
      { state: { nets: [{ nodes: ['1', '2'] }] } },
    ]) {
      const parsed = stateSet.input.safeParse(args);
      expect(parsed.success, JSON.stringify(args)).toBe(false);
      expect(parsed.error?.issues.map((i) => i.message).join('; ')).toMatch(
        /dac_set.*gpio_config.*overlay_set/,
      );
    }
    expect(stateSet.input.safeParse({ nets: [['1', '2']] }).success).toBe(true);
    expect(stateSet.input.safeParse({}).success).toBe(false);
  });

  it('refuses a GPIO on a supply net, which the firmware would drop without a word, saying why', async () => {
    const before = await h.python('get_num_bridges()');
    await expect(h.run(stateSet, { nets: [['GP_1', 'TOP_R']] })).rejects.toMatchObject({
      code: 'unsafe_short',
      message: expect.stringMatching(/GP_1, TOP_R would join GPIO_1 and TOP_RAIL.*burns its driver/),
    });
    expect(await h.python('get_num_bridges()')).toBe(before);
  });

  it('refuses shorts, outputs on driven nets and unknown nodes before sending anything', async () => {
    await h.python('connect(30, 31)');
    await expect(
      h.run(stateSet, {
        nets: [
          ['TOP_R', '5'],
          ['5', 'GND'],
        ],
      }),
    ).rejects.toEqual(refusal('unsafe_short'));
    await expect(h.run(stateSet, { nets: [['BOT_R', 'DAC_1']] })).rejects.toEqual(refusal('unsafe_short'));
    // Without clear_first the present nets count: row 30 joins row 31, which the request ties to GND.
    await h.python('connect(30, TOP_RAIL)');
    await expect(h.run(stateSet, { nets: [['31', 'GND']], clear_first: false })).rejects.toEqual(
      refusal('unsafe_short'),
    );
    // A GPIO output already there (gpio_config made it one) must not land on a net with GND.
    await h.python("gpio_set_dir(4, 'OUTPUT')");
    await expect(h.run(stateSet, { nets: [['GP_4', '40', 'GND']] })).rejects.toEqual(refusal('unsafe_drive'));
    await h.python("gpio_set_dir(4, 'INPUT')");
    // Nor a pin running PWM, whatever its direction says.
    await h.python('pwm(4, 1000, 0.5)');
    await expect(h.run(stateSet, { nets: [['GP_4', '40', 'GND']] })).rejects.toMatchObject({
      code: 'unsafe_drive',
      message: expect.stringMatching(/runs PWM.*pwm_stop/),
    });
    await h.python('pwm_stop(4)');
    await expect(h.run(stateSet, { nets: [['5', 'NOPE']] })).rejects.toEqual(refusal('bad_state'));
    await expect(h.run(stateSet, { nets: [[5, 200]] })).rejects.toEqual(refusal('bad_state'));
    expect(await connected('30', '31')).toBe(true);
  });
});

const diagram = (connections: unknown[]) =>
  JSON.stringify({
    version: 1,
    parts: [
      { type: 'wokwi-breadboard', id: 'bb1', top: 0, left: 0, attrs: {} },
      { type: 'wokwi-arduino-nano', id: 'nano', top: 0, left: 0, attrs: {} },
      { type: 'wokwi-resistor', id: 'r1', top: 0, left: 0, attrs: { value: '1000' } },
    ],
    connections,
  });

describe('wokwi_import', () => {
  it('routes breadboard rows, rails and Nano pins, and lists what it skipped', async () => {
    const { result } = await h.run<{ applied: boolean; skipped: { pin: string }[] }>(wokwiImport, {
      diagram: diagram([
        ['r1:1', 'bb1:5t.a', '', ['$bb']],
        ['r1:2', 'bb1:10t.a', '', ['$bb']],
        ['bb1:tp.1', 'bb1:5t.b', 'red', []],
        ['bb1:tn.3', 'bb1:10t.c', 'black', []],
        ['nano:2', 'bb1:12b.f', 'green', []],
        ['nano:5V', 'bb1:bp.1', 'red', []],
      ]),
    });
    expect(result).toMatchObject({ applied: true, wires: 6 });
    expect(await connected('TOP_R', '5')).toBe(true);
    expect(await connected('GND', '10')).toBe(true);
    expect(await connected('D2', '42')).toBe(true);
    // The resistor's legs are two separate rows.
    expect(await connected('5', '10')).toBe(false);
    expect(result.skipped.map((s) => s.pin).sort()).toEqual(['nano:5V', 'r1:1', 'r1:2']);
    // The probe-power bridge survived clear_first.
    expect(await h.python('get_bridge(0)')).toEqual([139, 106, 0]);
  });

  it('refuses a diagram that shorts two supplies, and malformed diagrams', async () => {
    await expect(
      h.run(wokwiImport, {
        diagram: diagram([
          ['bb1:tp.1', 'bb1:3t.a'],
          ['bb1:tn.1', 'bb1:3t.e'],
        ]),
      }),
    ).rejects.toEqual(refusal('unsafe_short'));
    await expect(h.run(wokwiImport, { diagram: '{"parts": [' })).rejects.toEqual(refusal('bad_wokwi'));
    await expect(h.run(wokwiImport, { diagram: '{"connections": 5}' })).rejects.toEqual(refusal('bad_wokwi'));
    await expect(h.run(wokwiImport, { diagram: diagram([['r1:1', 'r1:2']]) })).rejects.toEqual(
      refusal('nothing_to_route'),
    );
    await expect(h.run(wokwiImport, { diagram: diagram([['bb1:99t.a', 'bb1:1t.a']]) })).rejects.toEqual(
      refusal('nothing_to_route'),
    );
  });
});

describe('hostile strings', () => {
  /** Runs a tool; returns its result, or the error it refused with. */
  const attempt = (tool: Parameters<ToolHarness['run']>[0], args: unknown) =>
    h.run(tool, args).then(
      (r) => r.result as Record<string, unknown>,
      (e: unknown) => e as Error,
    );

  it('every string field works literally or is refused with a clear message', async () => {
    await h.python("fs_write('/canary.txt', 'alive')");
    for (const s of hostileStrings()) {
      // Node names: only real node names pass.
      const node = await attempt(stateSet, { nets: [['5', s]] });
      if (node instanceof Error) {
        // Refused before the board, never by the firmware.
        expect(node instanceof ToolError ? node.code : 'validation').not.toBe('refused');
      } else {
        expect(node.applied).toBe(true);
      }

      const wokwi = await attempt(wokwiImport, { diagram: s });
      expect(wokwi).toBeInstanceOf(Error);
    }
    expect(await h.python("fs_read('/canary.txt')")).toBe('alive');
  }, 180_000);
});
