import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostileStrings } from './hostileStrings.js';
import {
  slotCurrent,
  slotDiscard,
  slotHasChanges,
  slotSave,
  slotSwitch,
  stateGet,
  stateSet,
  stateSnapshot,
  stateUndo,
  wokwiImport,
} from './slots.js';
import { startToolHarness, type ToolHarness } from './testHarness.js';
import { ToolError } from './tool.js';

let h: ToolHarness;
beforeAll(async () => {
  h = await startToolHarness();
  // A test-only helper: whether two nodes share a net, from the board's own state.
  await h.client.exec(
    [
      'import json',
      'def _jlt_test_same_net(a, b):',
      "    for n in json.loads(get_state())['nets']:",
      "        if a in n['nodes'] and b in n['nodes']:",
      '            return True',
      '    return False',
    ].join('\n'),
  );
});
afterAll(async () => h.close());
beforeEach(async () => {
  await h.python('switch_slot(0)');
  await h.python('nodes_clear()');
});

const refusal = (code: string) => expect.objectContaining({ code });
const connected = (a: string, b: string) =>
  h.python<boolean>(`_jlt_test_same_net(${JSON.stringify(a)}, ${JSON.stringify(b)})`);

describe('slots', () => {
  it('reports the active slot and unsaved changes, and saves them', async () => {
    await h.python('nodes_save()');
    expect((await h.run(slotCurrent)).result).toEqual({ slot: 0, has_changes: false });
    await h.python('connect(3, 4)');
    expect((await h.run(slotHasChanges)).result).toEqual({ slot: 0, has_changes: true });
    const { result } = await h.run(slotSave);
    expect(result).toEqual({ slot: 0, file: '/slots/slot0.yaml', has_changes: false });
    expect(await h.python("fs_exists('/slots/slot0.yaml')")).toBe(true);
    expect(await h.python("'3' in fs_read('/slots/slot0.yaml')")).toBe(true);
  });

  it('refuses to switch away from unsaved changes unless told to discard them', async () => {
    await h.python('nodes_save()');
    await h.python('connect(7, 8)');
    await expect(h.run(slotSwitch, { slot: 2 })).rejects.toEqual(refusal('unsaved_changes'));
    expect(await h.python('CURRENT_SLOT()')).toBe(0);
    const { result } = await h.run(slotSwitch, { slot: 2, discard_changes: true });
    expect(result).toMatchObject({ slot: 2, previous_slot: 0 });
    expect(await h.python('CURRENT_SLOT()')).toBe(2);
    await h.run(slotSwitch, { slot: 0 });
    expect(await h.python('bool(is_connected(7, 8))')).toBe(false);
  });

  it('discards unsaved changes and verifies none are left', async () => {
    await h.python('nodes_save()');
    await h.python('connect(11, 12)');
    const { result } = await h.run(slotDiscard);
    expect(result).toEqual({ slot: 0, had_changes: true, has_changes: false });
    expect(await h.python('bool(is_connected(11, 12))')).toBe(false);
  });
});

describe('state', () => {
  it('reads the state as structured data', async () => {
    await h.python('connect(1, 2)');
    const { result } = await h.run(stateGet);
    expect(result).toMatchObject({ power: { dac0: 3.33 } });
    expect(result.nets).toEqual(expect.arrayContaining([expect.objectContaining({ nodes: ['1', '2'] })]));
    expect(result.gpio).toHaveLength(10);
  });

  it('applies supplies, nets, GPIO and overlays, verifies them, and snapshots first', async () => {
    await h.python('connect(20, 21)');
    const { result } = await h.run(stateSet, {
      state: {
        power: { top_rail: 5 },
        nets: [{ nodes: ['TOP_R', '10'] }, { nodes: ['14', 'GP_2', '15'], name: 'signal' }],
        gpio: [{ pin: 3, direction: 'OUTPUT', pull: 'none' }],
        overlays: [{ name: 'mark', row: 1, col: 14, width: 1, height: 1, colors: ['002200'] }],
      },
    });
    expect(result).toMatchObject({ applied: true, differences: [], power: { top_rail: 5 } });
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(5);
    expect(await connected('TOP_R', '10')).toBe(true);
    expect(await connected('GP_2', '15')).toBe(true);
    expect(await h.python('str(gpio_get_dir(3))')).toBe('OUTPUT');
    // clear_first replaced the earlier bridge.
    expect(await connected('20', '21')).toBe(false);

    const undo = await h.run(stateUndo, { snapshot_id: result.snapshot_id });
    expect(undo.result).toMatchObject({ restored: true, differences: [], slot_warning: null });
    expect(await connected('20', '21')).toBe(true);
    expect(await h.python('dac_get(TOP_RAIL)')).toBe(0);
  });

  it('reports what the firmware silently left out', async () => {
    // GPIO_1 to TOP_RAIL is a forbidden pair: the firmware drops it without a word (spec §8.3).
    const { result } = await h.run(stateSet, { state: { nets: [{ nodes: ['GP_1', 'TOP_R'] }] } });
    expect(result.applied).toBe(false);
    expect(result.differences).toEqual(['GP_1 and TOP_R are not connected']);
  });

  it('refuses shorts, outputs on driven nets and unsafe voltages before sending anything', async () => {
    await h.python('connect(30, 31)');
    await expect(
      h.run(stateSet, { state: { nets: [{ nodes: ['TOP_R', '5'] }, { nodes: ['5', 'GND'] }] } }),
    ).rejects.toEqual(refusal('unsafe_short'));
    await expect(h.run(stateSet, { state: { nets: [{ nodes: ['BOT_R', 'DAC_1'] }] } })).rejects.toEqual(
      refusal('unsafe_short'),
    );
    // Without clear_first the present nets count: row 30 joins row 31, which the request ties to GND.
    await h.python('connect(30, TOP_RAIL)');
    await expect(
      h.run(stateSet, { state: { nets: [{ nodes: ['31', 'GND'] }] }, clear_first: false }),
    ).rejects.toEqual(refusal('unsafe_short'));
    await expect(
      h.run(stateSet, {
        state: { nets: [{ nodes: ['GP_4', '40', 'GND'] }], gpio: [{ pin: 4, direction: 'OUTPUT' }] },
      }),
    ).rejects.toEqual(refusal('unsafe_drive'));
    await expect(
      h.run(stateSet, { state: { power: { dac1: 5 } } }, { safety: { maxVolts: 3.3, minVolts: 0 } }),
    ).rejects.toEqual(refusal('unsafe_voltage'));
    await expect(h.run(stateSet, { state: { nets: [{ nodes: ['5', 'NOPE'] }] } })).rejects.toEqual(
      refusal('bad_state'),
    );
    await expect(h.run(stateSet, { state: {} })).rejects.toEqual(refusal('bad_state'));
    expect(await connected('30', '31')).toBe(true);
    expect(await h.python('dac_get(1)')).toBe(0);
  });

  it('snapshots and undoes, and names missing snapshots', async () => {
    await h.python('connect(44, 45)');
    const snap = await h.run(stateSnapshot, { label: 'before the divider' });
    expect(snap.result).toMatchObject({ label: 'before the divider', slot: 0 });
    await h.python('nodes_clear()');
    await h.python('connect(50, 51)');
    const { result } = await h.run(stateUndo);
    expect(result).toMatchObject({ snapshot_id: snap.result.snapshot_id, restored: true });
    expect(await connected('44', '45')).toBe(true);
    expect(await connected('50', '51')).toBe(false);
    await expect(h.run(stateUndo, { snapshot_id: 99999 })).rejects.toEqual(refusal('no_snapshot'));
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
    let literal = 0;
    for (const s of hostileStrings()) {
      // Node names: only real node names pass.
      const node = await attempt(stateSet, { state: { nets: [{ nodes: ['5', s] }] } });
      if (node instanceof Error) expect(node.message.length).toBeGreaterThan(0);
      else expect(node.applied).toBe(true);

      // Net names: printable names land verbatim, the rest is refused.
      const named = await attempt(stateSet, { state: { nets: [{ nodes: ['7', '8'], name: s }] } });
      if (named instanceof Error) {
        expect(named instanceof ToolError ? named.code : 'validation').not.toBe('refused');
      } else {
        expect(named).toMatchObject({ applied: true, differences: [] });
        literal++;
      }

      const overlay = await attempt(stateSet, {
        state: { overlays: [{ name: s, row: 1, col: 1, width: 1, height: 1, colors: ['010101'] }] },
      });
      if (!(overlay instanceof Error)) expect(overlay).toMatchObject({ applied: true });

      const color = await attempt(stateSet, {
        state: { overlays: [{ name: 'c', row: 1, col: 1, width: 1, height: 1, colors: [s] }] },
      });
      expect(color instanceof Error).toBe(true);

      const snap = await attempt(stateSnapshot, { label: s });
      if (!(snap instanceof Error)) expect(snap.label).toBe(s);
      else expect(s.length).toBeGreaterThan(100);

      const wokwi = await attempt(wokwiImport, { diagram: s });
      expect(wokwi).toBeInstanceOf(Error);

      // Enum-valued strings of the state document pass only as their exact words.
      const gpio = (g: Record<string, unknown>) => stateSet.input.safeParse({ state: { gpio: [g] } }).success;
      expect(gpio({ pin: s })).toBe(s === 'TX' || s === 'RX');
      expect(gpio({ pin: 1, direction: s })).toBe(s === 'OUTPUT');
      expect(gpio({ pin: 1, pull: s })).toBe(false);
    }
    expect(literal).toBeGreaterThan(50);
    expect(await h.python("fs_read('/canary.txt')")).toBe('alive');
  }, 120_000);
});
